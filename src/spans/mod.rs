//! Span F1 for sequence labelling (issue 26): per-sentence, per-type chunk counts in one
//! pass over both sides' label codes.
//!
//! The input is the layout of `nlpeval.metrics.span_f1.chunks`: position 0 is the state
//! before the first sentence, then each sentence's label codes followed by one `O` (code 0,
//! the sentence break). How a mode reads a label stays in Python (`rules.py`): the caller
//! gives each code's prefix code and type, and the mode's chunk rules as one table of bits
//! (start, end, inside) over (previous prefix, current prefix, same type). This kernel walks
//! the positions once with each mode's state (seqeval's `get_entities`, seqeval's strict
//! `Tokens.entities`, conlleval.pl's `inCorrect`) and counts each chunk in the sentence where
//! it starts: the same counts as the vectorised NumPy path it replaces.

pub mod py;

/// The bits of a rule table entry.
pub const START: u8 = 1;
pub const END: u8 = 2;
pub const INSIDE: u8 = 4;

/// How chunks are read: `chunks.count`'s three modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Conlleval,
    Lenient,
    Strict,
}

impl Mode {
    pub fn parse(name: &str) -> Result<Mode, String> {
        match name {
            "conlleval" => Ok(Mode::Conlleval),
            "lenient" => Ok(Mode::Lenient),
            "strict" => Ok(Mode::Strict),
            _ => Err(format!("unknown span F1 mode {name:?}")),
        }
    }
}

/// What a mode knows of each label code, and its chunk rules.
pub struct Rules<'a> {
    /// prefix code of each label code
    pub prefixes: &'a [i32],
    /// type id of each label code
    pub types: &'a [i32],
    /// the key compared for token accuracy (conlleval: the canonical (prefix, type) id)
    pub tokens: Option<&'a [i32]>,
    /// rule bits at `(prev_prefix * n_prefixes + cur_prefix) * 2 + same_type`
    pub table: &'a [u8],
    pub n_prefixes: usize,
    /// each type id's place among the types sorted by name
    pub rank: &'a [i64],
}

/// Per-sentence counts of the types that occur in some chunk, in `rank` order.
#[derive(Debug, PartialEq, Eq)]
pub struct Counts {
    /// type ids of the columns
    pub types: Vec<usize>,
    /// `(n_sentences, types.len())`, row-major
    pub tp: Vec<i64>,
    pub pred: Vec<i64>,
    pub truth: Vec<i64>,
    /// correctly labelled tokens per sentence
    pub correct: Vec<i64>,
}

/// A chunk event: (sentence, type id).
type Event = (u32, u32);

/// The layout, checked: both sides the same size, sentences fitting it, codes known.
fn check(hyp: &[i32], reference: &[i32], lengths: &[i64], rules: &Rules) -> Result<(), String> {
    let v = rules.prefixes.len();
    if rules.types.len() != v || rules.tokens.is_some_and(|t| t.len() != v) {
        return Err("one prefix, type and token key per label code is required".into());
    }
    if rules.table.len() != rules.n_prefixes * rules.n_prefixes * 2 {
        return Err("the rule table must have n_prefixes * n_prefixes * 2 entries".into());
    }
    if rules
        .prefixes
        .iter()
        .any(|&p| p < 0 || p as usize >= rules.n_prefixes)
    {
        return Err("a prefix code is out of range".into());
    }
    if rules
        .types
        .iter()
        .any(|&t| t < 0 || t as usize >= rules.rank.len())
    {
        return Err("a type id has no rank".into());
    }
    if lengths.iter().any(|&n| n < 0) {
        return Err("a sentence length is negative".into());
    }
    let size = 1 + lengths.iter().sum::<i64>() as usize + lengths.len();
    if hyp.len() != size || reference.len() != size {
        return Err(format!(
            "the layouts have {} and {} positions; the sentence lengths need {size}",
            hyp.len(),
            reference.len()
        ));
    }
    let bad = |codes: &[i32]| {
        codes
            .iter()
            .fold(false, |bad, &c| bad | (c < 0) | (c as usize >= v))
    };
    if bad(hyp) || bad(reference) {
        return Err("a label code is out of range".into());
    }
    Ok(())
}

/// Label codes up to which the rule bits of every (previous, current) pair are tabled first.
const PAIR_TABLE_MAX: usize = 256;

/// One side's codes with the rule bits at each position.
struct Side<'a> {
    codes: &'a [i32],
    rules: &'a Rules<'a>,
    /// the rule bits of each code pair `prev * v + cur` (few codes), else empty
    pairs: &'a [u8],
}

/// The rule bits of every code pair (`prev * v + cur`) when the codes are few, else empty.
fn pair_table(rules: &Rules) -> Vec<u8> {
    let v = rules.prefixes.len();
    if v > PAIR_TABLE_MAX {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(v * v);
    for a in 0..v {
        for b in 0..v {
            out.push(rule_bits(rules, a, b));
        }
    }
    out
}

#[inline]
fn rule_bits(r: &Rules, a: usize, b: usize) -> u8 {
    let same = (r.types[a] == r.types[b]) as usize;
    r.table[(r.prefixes[a] as usize * r.n_prefixes + r.prefixes[b] as usize) * 2 + same]
}

impl Side<'_> {
    #[inline]
    fn kind(&self, p: usize) -> u32 {
        self.rules.types[self.codes[p] as usize] as u32
    }

    /// The rule bits at position `p >= 1` (from labels `p - 1` and `p`).
    #[inline]
    fn flags(&self, p: usize) -> u8 {
        let (a, b) = (self.codes[p - 1] as usize, self.codes[p] as usize);
        if self.pairs.is_empty() {
            rule_bits(self.rules, a, b)
        } else {
            self.pairs[a * self.rules.prefixes.len() + b]
        }
    }
}

/// seqeval's `get_entities`: the begin of the open chunk is the last start (or position 1).
struct Lenient {
    begin: usize,
    sentence: u32,
}

/// seqeval's strict `Tokens.entities`: a chunk opens at the first start of a run (an outside
/// position and the inside ones after it) and is kept if the next outside position ends it.
struct Strict {
    started: bool,
    open: Option<(usize, u32, u32)>, // begin, its sentence, its type
}

impl Strict {
    /// Handles position `p` with bits `f`; a closed chunk `(begin, sentence, type)` ends here.
    #[inline]
    fn step(&mut self, f: u8, p: usize, kind: u32, s: u32) -> Option<(usize, u32, u32)> {
        let mut closed = None;
        if f & INSIDE == 0 {
            if let Some(chunk) = self.open.take() {
                if f & END != 0 {
                    closed = Some(chunk);
                }
            }
            self.started = false;
        }
        if f & START != 0 && !self.started {
            self.open = Some((p, s, kind));
            self.started = true;
        }
        closed
    }
}

/// conlleval.pl's `inCorrect`, the sentence of the position that last set or cleared it, and
/// whether the previous position's types were equal.
struct Conlleval {
    correct: bool,
    last_sentence: u32,
    same_before: bool,
}

/// Chunk counts of one mode (see the module docs).
pub fn count(
    hyp: &[i32],
    reference: &[i32],
    lengths: &[i64],
    mode: Mode,
    rules: &Rules,
) -> Result<Counts, String> {
    check(hyp, reference, lengths, rules)?;
    let pairs = pair_table(rules);
    let h = Side {
        codes: hyp,
        rules,
        pairs: &pairs,
    };
    let r = Side {
        codes: reference,
        rules,
        pairs: &pairs,
    };
    let (mut tp, mut pred, mut truth): (Vec<Event>, Vec<Event>, Vec<Event>) = Default::default();
    let mut correct = Vec::with_capacity(lengths.len());
    let mut lenient = [
        Lenient {
            begin: 1,
            sentence: 0,
        },
        Lenient {
            begin: 1,
            sentence: 0,
        },
    ];
    let mut strict = [
        Strict {
            started: false,
            open: None,
        },
        Strict {
            started: false,
            open: None,
        },
    ];
    let mut conll = Conlleval {
        correct: false,
        last_sentence: 0,
        same_before: h.kind(0) == r.kind(0),
    };
    if mode == Mode::Strict {
        // position 0 (no bits) opens the first run
        strict[0].step(0, 0, 0, 0);
        strict[1].step(0, 0, 0, 0);
    }
    let token_key = |code: i32| rules.tokens.map_or(code, |t| t[code as usize]);
    let mut p = 1;
    for (s, &len) in lengths.iter().enumerate() {
        let s = s as u32;
        let len = len as usize;
        correct.push(
            (p..p + len)
                .filter(|&q| token_key(hyp[q]) == token_key(reference[q]))
                .count() as i64,
        );
        for q in p..=p + len {
            let (fh, fr) = (h.flags(q), r.flags(q));
            match mode {
                Mode::Lenient => {
                    let (eh, er) = (fh & END != 0, fr & END != 0);
                    if eh {
                        pred.push((lenient[0].sentence, h.kind(q - 1)));
                    }
                    if er {
                        truth.push((lenient[1].sentence, r.kind(q - 1)));
                    }
                    if eh
                        && er
                        && lenient[0].begin == lenient[1].begin
                        && h.kind(q - 1) == r.kind(q - 1)
                    {
                        tp.push((lenient[0].sentence, h.kind(q - 1)));
                    }
                    if fh & START != 0 {
                        lenient[0] = Lenient {
                            begin: q,
                            sentence: s,
                        };
                    }
                    if fr & START != 0 {
                        lenient[1] = Lenient {
                            begin: q,
                            sentence: s,
                        };
                    }
                }
                Mode::Strict => {
                    let ch = strict[0].step(fh, q, h.kind(q), s);
                    let cr = strict[1].step(fr, q, r.kind(q), s);
                    if let Some((_, sentence, kind)) = ch {
                        pred.push((sentence, kind));
                    }
                    if let Some((_, sentence, kind)) = cr {
                        truth.push((sentence, kind));
                    }
                    if let (Some((bh, sentence, kh)), Some((br, _, kr))) = (ch, cr) {
                        if bh == br && kh == kr {
                            tp.push((sentence, kh));
                        }
                    }
                }
                Mode::Conlleval => {
                    let (sh, eh) = (fh & START != 0, fh & END != 0);
                    let (sr, er) = (fr & START != 0, fr & END != 0);
                    let same = h.kind(q) == r.kind(q);
                    let both_end = er && eh && conll.same_before;
                    let set = sr && sh && same;
                    if both_end && conll.correct {
                        tp.push((conll.last_sentence, r.kind(q - 1)));
                    }
                    if set || both_end || er != eh || !same {
                        conll.correct = set;
                        conll.last_sentence = s;
                    }
                    conll.same_before = same;
                    if sh {
                        pred.push((s, h.kind(q)));
                    }
                    if sr {
                        truth.push((s, r.kind(q)));
                    }
                }
            }
        }
        p += len + 1;
    }
    if mode == Mode::Conlleval && conll.correct {
        // still inside a correct chunk after the last position
        tp.push((conll.last_sentence, r.kind(hyp.len() - 1)));
    }
    Ok(tables(
        lengths.len(),
        rules.rank,
        [tp, pred, truth],
        correct,
    ))
}

/// Dense per-sentence tables of the events, over the types that occur, in rank order.
fn tables(n: usize, rank: &[i64], events: [Vec<Event>; 3], correct: Vec<i64>) -> Counts {
    let mut present = vec![false; rank.len()];
    for &(_, kind) in events.iter().flatten() {
        present[kind as usize] = true;
    }
    let mut types: Vec<usize> = (0..rank.len()).filter(|&t| present[t]).collect();
    types.sort_by_key(|&t| rank[t]);
    let mut column = vec![0usize; rank.len()];
    for (i, &t) in types.iter().enumerate() {
        column[t] = i;
    }
    let k = types.len();
    let [tp, pred, truth] = events.map(|list| {
        let mut out = vec![0i64; n * k];
        for (s, kind) in list {
            out[s as usize * k + column[kind as usize]] += 1;
        }
        out
    });
    Counts {
        types,
        tp,
        pred,
        truth,
        correct,
    }
}

#[cfg(test)]
mod tests;
