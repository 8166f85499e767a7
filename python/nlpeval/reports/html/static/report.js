(function () {
  "use strict";

  // ------------------------------------------------------------------ sortable tables
  function cellKey(cell, numeric) {
    if (!cell) return numeric ? null : "";
    var v = cell.getAttribute("data-v");
    if (numeric) {
      if (v === null) v = cell.textContent.replace(/[^0-9eE+.\u2212-]/g, "").replace("\u2212", "-");
      if (v === "") return null;
      var x = parseFloat(v);
      return isNaN(x) ? null : x;
    }
    return (v !== null && v !== "" ? v : cell.textContent).trim();
  }

  function sortTable(table, th) {
    var headRow = th.parentNode;
    var col = Array.prototype.indexOf.call(headRow.children, th);
    var numeric = th.getAttribute("data-type") === "num";
    var current = th.getAttribute("aria-sort");
    var descending = numeric ? current !== "descending" : current === "ascending";
    Array.prototype.forEach.call(headRow.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, i: i, key: cellKey(row.cells[col], numeric) };
    });
    var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
    rows.sort(function (a, b) {
      if (a.key === null && b.key === null) return a.i - b.i;
      if (a.key === null) return 1;
      if (b.key === null) return -1;
      var c = numeric ? a.key - b.key : collator.compare(a.key, b.key);
      if (descending) c = -c;
      return c !== 0 ? c : a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortTable(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortTable(table, th); }
      });
    });
  });

  // ------------------------------------------------------------------ example browser
  var dataNode = document.getElementById("report-data");
  if (!dataNode) return;
  var D = JSON.parse(dataNode.textContent);

  // ------------------------------------------------------------------ sentence scatter plots
  // the axes come with the page; the points are the sentence scores embedded once in the data
  var SVGNS = "http://www.w3.org/2000/svg";
  Array.prototype.forEach.call(document.querySelectorAll("g.scatter-points"), function (g) {
    var metric = g.getAttribute("data-metric");
    var xs = (D.scores[metric] || [])[D.systems.indexOf(g.getAttribute("data-x"))];
    var ys = (D.scores[metric] || [])[D.systems.indexOf(g.getAttribute("data-y"))];
    if (!xs || !ys) return;
    var ax = +g.getAttribute("data-ax"), bx = +g.getAttribute("data-bx");
    var ay = +g.getAttribute("data-ay"), by = +g.getAttribute("data-by");
    var groups = { above: [], on: [], below: [] };
    for (var i = 0; i < xs.length; i++) {
      var a = xs[i], b = ys[i];
      if (a === null || b === null) continue;
      var key = b > a ? "above" : b < a ? "below" : "on";
      groups[key].push("M" + (ax + bx * a).toFixed(1) + " " + (ay + by * b).toFixed(1) + "h0");
    }
    var fills = { above: "#d55e00", on: "#6b7280", below: "#0072b2" };
    ["on", "below", "above"].forEach(function (key) {
      if (!groups[key].length) return;
      var path = document.createElementNS(SVGNS, "path");
      var title = document.createElementNS(SVGNS, "title");
      title.textContent = groups[key].length + " segments " + key + " the diagonal";
      path.appendChild(title);
      path.setAttribute("d", groups[key].join(""));
      path.setAttribute("stroke", fills[key]);
      path.setAttribute("stroke-opacity", "0.55");
      path.setAttribute("stroke-width", "4");
      path.setAttribute("stroke-linecap", "round");
      path.setAttribute("fill", "none");
      path.setAttribute("class", "points-" + key);
      g.appendChild(path);
    });
    g.setAttribute("data-drawn", String(groups.above.length + groups.on.length + groups.below.length));
  });
  var $ = function (id) { return document.getElementById(id); };
  var N = D.ids.length;
  var PAGE = 20;
  var S = D.strings;
  var state = { a: 0, b: D.systems.length > 1 ? 1 : 0, metric: 0, sort: "id", re: null, beats: null,
    bucket: "", label: "", ngram: null, seg: null, page: 0, all: D.systems.length <= 4, align: false };
  var tokenCache = {};
  // the whitespace of Python's str.split(): the model's token positions count these tokens
  var WS = "[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+";
  var WS_SPLIT = new RegExp("(" + WS + ")"), WS_ONLY = new RegExp("^" + WS + "$"), WS_ANY = new RegExp(WS);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function option(select, value, text) {
    var o = el("option", null, text);
    o.value = String(value);
    select.appendChild(o);
  }
  function tokens(si) {
    var t = tokenCache[si];
    if (!t) { t = S[si].split(WS_ANY).filter(function (w) { return w.length > 0; }); tokenCache[si] = t; }
    return t;
  }
  function metricInfo() { return D.metrics[state.metric] || null; }
  function score(sys, i) {
    var m = metricInfo();
    if (!m) return null;
    var v = D.scores[m.name][sys][D.ids[i]];
    return v === undefined ? null : v;
  }
  function advantage(i) {
    var a = score(state.a, i), b = score(state.b, i);
    if (a === null || b === null) return null;
    var m = metricInfo();
    return Math.round((m.hib ? a - b : b - a) * 100) / 100;
  }
  function fmt(v) { return v === null || v === undefined ? "\u2014" : v.toFixed(2); }
  function fmtDiff(v) { return v === null ? "\u2014" : (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + Math.abs(v).toFixed(2); }
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  // controls
  var selA = $("ex-sys-a"), selB = $("ex-sys-b"), selM = $("ex-metric"), selBucket = $("ex-bucket"), selLabel = $("ex-label");
  D.systems.forEach(function (name, i) { option(selA, i, name); option(selB, i, name); });
  selA.value = String(state.a); selB.value = String(state.b);
  D.metrics.forEach(function (m, i) { option(selM, i, m.label + (m.hib ? " \u2191" : " \u2193")); });
  if (D.sort_metric) {
    D.metrics.forEach(function (m, i) { if (m.name === D.sort_metric) state.metric = i; });
  }
  selM.value = String(state.metric);
  if (!D.metrics.length) { selM.disabled = true; $("ex-beats").disabled = true; }
  D.buckets.forEach(function (t, ti) {
    var group = el("optgroup");
    group.label = t.title + (t.sys ? " (system A)" : "");
    t.rows.forEach(function (r, ri) {
      var o = el("option", null, r);
      o.value = ti + ":" + ri;
      group.appendChild(o);
    });
    selBucket.appendChild(group);
  });
  if (!D.buckets.length) selBucket.parentNode.hidden = true;
  if (D.labels) {
    var seen = {};
    var labels = D.labels.filter(function (l) {
      if (l === null || seen[l]) return false;
      seen[l] = true; return true;
    }).sort();
    labels.forEach(function (l) { option(selLabel, l, l); });
  } else {
    $("ex-label-wrap").hidden = true;
  }
  if (!D.align) $("ex-align").parentNode.hidden = true;
  $("ex-all-systems").checked = state.all;
  if (D.systems.length <= 2) $("ex-all-systems").parentNode.hidden = true;

  // bucket of example i in table t (the model's membership; system A's when it depends on the output)
  function bucketOf(t, i) {
    var codes = t.seg !== undefined ? t.seg : t.sys[state.a];
    return codes.charCodeAt(i) - 48;
  }
  function inBucket(i) {
    if (!state.bucket) return true;
    var parts = state.bucket.split(":");
    return bucketOf(D.buckets[+parts[0]], i) === +parts[1];
  }
  // n-gram occurrences of comparison c, per example: [[side, start, length, entry], ...]
  var spanCache = {};
  function spansOf(c) {
    var by = spanCache[c];
    if (by) return by;
    by = spanCache[c] = {};
    var f = D.ngrams[c].spans;
    for (var k = 0; k + 4 < f.length; k += 5) (by[f[k]] = by[f[k]] || []).push([f[k + 1], f[k + 2], f[k + 3], f[k + 4]]);
    return by;
  }
  function comparisonOf(sys, other) {
    var a = D.systems[sys], b = D.systems[other];
    for (var c = 0; c < D.ngrams.length; c++) {
      var g = D.ngrams[c];
      if ((g.system === a && g.other === b) || (g.system === b && g.other === a)) return c;
    }
    return -1;
  }
  function matches(i) {
    if (state.seg !== null && D.ids[i] !== state.seg) return false;
    if (state.label && (!D.labels || D.labels[i] !== state.label)) return false;
    if (!inBucket(i)) return false;
    if (state.beats !== null) {
      var adv = advantage(i);
      if (adv === null || adv < state.beats) return false;
    }
    if (state.ngram) {
      var entry = state.ngram.entry;
      var hit = (spansOf(state.ngram.pair)[i] || []).some(function (sp) { return sp[3] === entry; });
      if (!hit) return false;
    }
    if (state.re) {
      var re = state.re;
      var texts = [];
      if (D.src) texts.push(D.src[i]);
      D.refs[i].forEach(function (r) { texts.push(r); });
      D.hyps.forEach(function (h) { texts.push(h[i]); });
      if (!texts.some(function (si) { re.lastIndex = 0; return re.test(S[si]); })) return false;
    }
    return true;
  }
  function sortKey(i) {
    var mode = state.sort;
    if (mode === "id") return D.ids[i];
    if (mode.indexOf("diff") === 0) return advantage(i);
    return score(mode.charAt(0) === "a" ? state.a : state.b, i);
  }
  function selection() {
    var idx = [];
    for (var i = 0; i < N; i++) if (matches(i)) idx.push(i);
    if (state.sort !== "id") {
      var desc = /desc$/.test(state.sort);
      var keys = {};
      idx.forEach(function (i) { keys[i] = sortKey(i); });
      idx.sort(function (x, y) {
        var kx = keys[x], ky = keys[y];
        if (kx === null && ky === null) return x - y;
        if (kx === null) return 1;
        if (ky === null) return -1;
        var c = desc ? ky - kx : kx - ky;
        return c !== 0 ? c : x - y;
      });
    }
    return idx;
  }

  // highlighting: matched words and salient n-grams as the model gives them
  function highlighted(text, sys, other, i) {
    var box = el("div", "ex-text");
    box.dir = "auto";
    if (text === "") { box.classList.add("empty"); return box; }
    var toks = tokens(D.hyps[sys][i]);
    var flags = D.matched[sys][i];
    if (flags.length !== toks.length) flags = "";
    var ng = new Array(toks.length);
    if (other !== null && other !== sys) {
      var c = comparisonOf(sys, other);
      if (c >= 0) {
        var g = D.ngrams[c], mySide = g.system === D.systems[sys] ? 0 : 1, k = g.better.length;
        (spansOf(c)[i] || []).forEach(function (sp) {
          if (sp[0] !== mySide) return;
          var favours = sp[3] < k ? 0 : 1;
          var text = sp[3] < k ? g.better[sp[3]] : g.worse[sp[3] - k];
          for (var t = sp[1]; t < sp[1] + sp[2] && t < toks.length; t++) ng[t] = [favours === mySide ? "hl-up" : "hl-down", text];
        });
      }
    }
    var parts = text.split(WS_SPLIT);
    var t = 0;
    parts.forEach(function (part) {
      if (part === "") return;
      if (WS_ONLY.test(part)) { box.appendChild(document.createTextNode(part)); return; }
      var cls = [];
      if (flags.charAt(t) === "1") cls.push("hl-m");
      if (ng[t]) cls.push(ng[t][0]);
      if (cls.length) {
        var span = el("span", cls.join(" "), part);
        span.setAttribute("data-t", String(t));
        if (ng[t]) span.title = (ng[t][0] === "hl-up" ? "salient n-gram of this system: " : "salient n-gram of the other system: ") + ng[t][1];
        box.appendChild(span);
      } else {
        box.appendChild(document.createTextNode(part));
      }
      t += 1;
    });
    return box;
  }
  function plainText(text) {
    var box = el("div", "ex-text", text);
    box.dir = "auto";
    if (text === "") box.classList.add("empty");
    return box;
  }

  // WER-style alignment: jiwer's operations from the model (one character each: = S D I)
  function alignmentView(i, sys) {
    var box = el("div", "align");
    var ops = D.align[sys][i];
    var k = D.align_ref ? D.align_ref[sys][i] : 0;
    var ref = k < D.refs[i].length ? tokens(D.refs[i][k]) : [];
    var hyp = tokens(D.hyps[sys][i]);
    var nRef = 0, nHyp = 0, c;
    for (c = 0; c < ops.length; c++) { if (ops[c] !== "I") nRef++; if (ops[c] !== "D") nHyp++; }
    if (nRef !== ref.length || nHyp !== hyp.length) {
      box.appendChild(el("span", "muted", "(the WER normalisation changed the words: see nlpeval align)"));
      return box;
    }
    var counts = { S: 0, D: 0, I: 0 }, r = 0, h = 0;
    for (c = 0; c < ops.length; c++) {
      var op = ops[c];
      var col = el("span", "col" + (op === "=" ? "" : " " + op));
      var rs = el("span", null, op === "I" ? "\u2205" : ref[r++]); rs.dir = "auto";
      var hs = el("span", null, op === "D" ? "\u2205" : hyp[h++]); hs.dir = "auto";
      col.appendChild(rs); col.appendChild(hs);
      col.appendChild(el("span", "op", op === "=" ? "" : op));
      if (op !== "=") counts[op] += 1;
      box.appendChild(col);
    }
    box.appendChild(el("span", "muted", "S=" + counts.S + " D=" + counts.D + " I=" + counts.I + " (reference " + ref.length + " words)"));
    return box;
  }

  function scoreLine(sys, i, withDiff) {
    var box = el("div", "ex-scores");
    D.metrics.forEach(function (m, k) {
      var v = D.scores[m.name][sys][D.ids[i]];
      box.appendChild(document.createTextNode((k ? " \u00b7 " : "") + m.label + " " + fmt(v)));
    });
    if (withDiff) {
      var adv = advantage(i);
      if (adv !== null) {
        box.appendChild(document.createTextNode(" \u00b7 "));
        box.appendChild(el("span", adv > 0 ? "d-pos" : adv < 0 ? "d-neg" : "", "\u0394 " + fmtDiff(adv)));
      }
    }
    return box;
  }
  function row(cls, role, content, scores) {
    var r = el("div", "ex-row " + cls);
    var roleEl = el("div", "ex-role", role);
    roleEl.dir = "auto";
    r.appendChild(roleEl);
    r.appendChild(content);
    r.appendChild(scores || el("div", "ex-scores"));
    return r;
  }
  function card(i) {
    var c = el("article", "ex-card");
    c.id = "ex-" + D.ids[i];
    if (state.seg !== null) c.classList.add("focus");
    var head = el("div", "ex-head");
    head.appendChild(el("span", "ex-id", "Segment #" + D.ids[i]));
    var info = [];
    if (D.labels && D.labels[i] !== null) info.push("label: " + D.labels[i]);
    var adv = D.metrics.length && state.a !== state.b ? advantage(i) : null;
    if (adv !== null) info.push(D.systems[state.a] + " vs " + D.systems[state.b] + ": " + fmtDiff(adv) + " " + metricInfo().label);
    var infoEl = el("span", null, info.join(" \u00b7 ")); infoEl.dir = "auto";
    head.appendChild(infoEl);
    c.appendChild(head);
    if (D.src) c.appendChild(row("src", "source", plainText(S[D.src[i]])));
    D.refs[i].forEach(function (r, k) {
      c.appendChild(row("ref", D.refs[i].length > 1 ? "reference " + (k + 1) : "reference", plainText(S[r])));
    });
    var shown = [];
    if (state.all) { for (var s = 0; s < D.systems.length; s++) shown.push(s); }
    else { shown.push(state.a); if (state.b !== state.a) shown.push(state.b); }
    shown.forEach(function (s) {
      var other = s === state.a ? state.b : s === state.b ? state.a : null;
      var text = S[D.hyps[s][i]];
      var body = highlighted(text, s, other, i);
      var wrap = el("div");
      wrap.appendChild(body);
      if (state.align && D.align) wrap.appendChild(alignmentView(i, s));
      var role = D.systems[s] + (s === state.a && state.a !== state.b ? " (A)" : s === state.b && state.a !== state.b ? " (B)" : "");
      c.appendChild(row("hyp", role, wrap, scoreLine(s, i, s === state.a && state.a !== state.b)));
    });
    return c;
  }

  var chip = $("ex-ngram-filter");
  function renderChip() {
    while (chip.firstChild) chip.removeChild(chip.firstChild);
    var text = null;
    if (state.ngram) text = "n-gram \u201c" + state.ngram.text + "\u201d in " + D.ngrams[state.ngram.pair].system + " or " + D.ngrams[state.ngram.pair].other;
    else if (state.seg !== null) text = "segment #" + state.seg;
    chip.hidden = text === null;
    if (text === null) return;
    var label = el("span", null, text); label.dir = "auto";
    chip.appendChild(label);
    var x = el("button", null, "\u00d7");
    x.type = "button";
    x.title = "clear this filter";
    x.setAttribute("aria-label", "clear this filter");
    x.addEventListener("click", function () { state.ngram = null; state.seg = null; state.page = 0; render(); });
    chip.appendChild(x);
  }

  function render() {
    var idx = selection();
    var pages = Math.max(1, Math.ceil(idx.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    if (state.page < 0) state.page = 0;
    var start = state.page * PAGE, stop = Math.min(idx.length, start + PAGE);
    var list = $("ex-list");
    while (list.firstChild) list.removeChild(list.firstChild);
    for (var k = start; k < stop; k++) list.appendChild(card(idx[k]));
    if (!idx.length) {
      var msg = state.seg !== null && D.ids.indexOf(state.seg) < 0
        ? "Segment #" + state.seg + " is not among the " + thousands(N) + " segments kept in this page."
        : "No segment matches these filters.";
      list.appendChild(el("p", "muted", msg));
    }
    $("ex-count").textContent = idx.length
      ? "Showing " + thousands(start + 1) + "\u2013" + thousands(stop) + " of " + thousands(idx.length) + " matching segments"
      : "0 matching segments";
    $("ex-page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("ex-first").disabled = $("ex-prev").disabled = state.page === 0;
    $("ex-next").disabled = $("ex-last").disabled = state.page >= pages - 1;
    list.setAttribute("data-matching", String(idx.length));
    renderChip();
  }

  function update() { state.page = 0; render(); }
  $("ex-regex").addEventListener("input", function () {
    var value = this.value, err = $("ex-error");
    state.re = null;
    err.hidden = true; err.textContent = "";
    if (value) {
      try {
        state.re = new RegExp(value, /[A-Z]/.test(value.replace(/\\./g, "")) ? "" : "i");
      } catch (e) {
        err.textContent = "Not a valid regular expression: " + e.message;
        err.hidden = false;
      }
    }
    update();
  });
  selA.addEventListener("change", function () { state.a = +this.value; update(); });
  selB.addEventListener("change", function () { state.b = +this.value; update(); });
  selM.addEventListener("change", function () { state.metric = +this.value; update(); });
  $("ex-sort").addEventListener("change", function () { state.sort = this.value; update(); });
  $("ex-beats").addEventListener("input", function () {
    var v = this.value.trim();
    state.beats = v === "" || isNaN(parseFloat(v)) ? null : parseFloat(v);
    update();
  });
  selBucket.addEventListener("change", function () { state.bucket = this.value; update(); });
  selLabel.addEventListener("change", function () { state.label = this.value; update(); });
  $("ex-all-systems").addEventListener("change", function () { state.all = this.checked; render(); });
  $("ex-align").addEventListener("change", function () { state.align = this.checked; render(); });
  $("ex-first").addEventListener("click", function () { state.page = 0; render(); });
  $("ex-prev").addEventListener("click", function () { state.page -= 1; render(); });
  $("ex-next").addEventListener("click", function () { state.page += 1; render(); });
  $("ex-last").addEventListener("click", function () { state.page = 1e9; render(); });

  function goToExamples() {
    var target = $("examples");
    if (target && target.scrollIntoView) target.scrollIntoView();
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.ngram-link"), function (b) {
    b.addEventListener("click", function () {
      var pair = +b.getAttribute("data-pair"), c = D.ngrams[pair];
      var text = b.getAttribute("data-ngram");
      var entry = +b.getAttribute("data-entry");
      var a = D.systems.indexOf(c.system), o = D.systems.indexOf(c.other);
      state.a = a; state.b = o; selA.value = String(a); selB.value = String(o);
      state.ngram = { text: text, pair: pair, entry: entry };
      state.seg = null;
      update();
      goToExamples();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("a.seg-link"), function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      state.seg = +a.getAttribute("data-seg");
      state.ngram = null;
      update();
      goToExamples();
    });
  });
  render();
})();
