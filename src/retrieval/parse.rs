//! TREC qrels and run files, read as `nlpeval.ir.trecfiles` reads them.
//!
//! * qrels: `query iteration document relevance` (4 fields, an integer relevance);
//! * run: `query Q0 document rank score tag` (6 fields; the rank is ignored, as by trec_eval).
//!
//! Lines end at `\n`; fields are separated by any run of the characters Python's
//! `str.split()` treats as whitespace (so `\r` of CRLF files, tabs and spaces alike).
//! Blank lines and lines whose first field starts with `#` are skipped. A document
//! listed twice for a query, a NaN score, a wrong field count or an unparsable number
//! is an error naming the 1-based line. The ids are kept as spans of the file's bytes
//! (validated UTF-8), so reading allocates per query, not per line.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

/// An error at a 1-based line of the file (0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    /// `line: message` (the message alone for the whole file): the caller adds the file's name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}: {}", self.line, self.message)
        } else {
            write!(f, "{}", self.message)
        }
    }
}

impl ParseError {
    fn at(line: usize, message: String) -> Self {
        ParseError { line, message }
    }
}

/// A byte range of the file: a document id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub len: u32,
}

/// One query's entries in file order: document spans and their values.
#[derive(Debug, Clone, Default)]
pub struct Entries<T> {
    pub docs: Vec<Span>,
    pub values: Vec<T>,
    /// the 1-based line of the query's first entry
    pub first_line: usize,
}

/// A parsed file: its text, its queries in order of first appearance and their entries.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    pub text: String,
    pub queries: Vec<String>,
    pub entries: Vec<Entries<T>>,
    /// a run's tag (its first line's sixth field)
    pub tag: Option<String>,
}

impl<T> Parsed<T> {
    /// The id of a document span.
    pub fn doc(&self, span: Span) -> &str {
        &self.text[span.start..span.start + span.len as usize]
    }

    /// Query id -> its position in `queries`.
    pub fn index(&self) -> FxHashMap<&str, usize> {
        self.queries
            .iter()
            .enumerate()
            .map(|(i, q)| (q.as_str(), i))
            .collect()
    }
}

pub type Qrels = Parsed<i64>;
pub type Run = Parsed<f64>;

/// Python's `str.isspace()` for the characters `str.split()` splits on.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

const fn is_ascii_python_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

/// The fields of one line as byte offsets `(start, end)` into `line`, at most `limit + 1` of them
/// (enough to tell a wrong count). One pass over ASCII; a line with other characters is split by
/// characters (Unicode spaces separate fields in Python too).
fn fields(line: &str, limit: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() && out.len() <= limit {
        while i < bytes.len() && is_ascii_python_space(bytes[i]) {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !is_ascii_python_space(bytes[i]) {
            if bytes[i] >= 0x80 {
                return unicode_fields(line, limit, out);
            }
            i += 1;
        }
        if i > start {
            out.push((start, i));
        }
    }
}

const FIELD: u8 = 0;
const SPACE: u8 = 1;
const HIGH: u8 = 2;
const NEWLINE: u8 = 3;

/// Each byte's class for [`scan_line`]: part of a field, an ASCII space of `str.split()`, the
/// start or continuation of a non-ASCII character, or the end of the line.
static CLASS: [u8; 256] = {
    let mut table = [FIELD; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = if b == b'\n' as usize {
            NEWLINE
        } else if b >= 0x80 {
            HIGH
        } else if is_ascii_python_space(b as u8) {
            SPACE
        } else {
            FIELD
        };
        b += 1;
    }
    table
};

/// The fields of the line starting at `from` (offsets from `from`, at most `limit + 1` of them),
/// in one pass to the line's end: returns where the line ends (its `\n` or the end of `bytes`) and
/// whether it has non-ASCII characters (then its fields are to be split by characters instead).
fn scan_line(
    bytes: &[u8],
    from: usize,
    limit: usize,
    out: &mut Vec<(usize, usize)>,
) -> (usize, bool) {
    out.clear();
    let mut high = false;
    let mut i = from;
    loop {
        while i < bytes.len() && CLASS[bytes[i] as usize] == SPACE {
            i += 1;
        }
        if i >= bytes.len() || bytes[i] == b'\n' {
            return (i, high);
        }
        let start = i;
        while i < bytes.len() {
            match CLASS[bytes[i] as usize] {
                FIELD => i += 1,
                HIGH => {
                    high = true;
                    i += 1;
                }
                _ => break,
            }
        }
        if out.len() <= limit {
            out.push((start - from, i - from));
        }
    }
}

fn unicode_fields(line: &str, limit: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start: Option<usize> = None;
    for (i, c) in line.char_indices() {
        if is_python_space(c) {
            if let Some(s) = start.take() {
                out.push((s, i));
                if out.len() > limit {
                    return;
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, line.len()));
    }
}

/// Python's `int()` of an ASCII field: an optional sign and decimal digits (`None` otherwise:
/// the caller falls back to Python for anything else).
fn parse_int(field: &str) -> Option<i64> {
    let digits = field.strip_prefix(['+', '-']).unwrap_or(field);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse::<i64>().ok()
}

/// Python's `float()` of a field, for the forms both accept (`None` otherwise: Rust's parser refuses
/// the `_` digit separators Python reads, so such a field goes to Python without a search for `_`).
fn parse_float(field: &str) -> Option<f64> {
    field.parse::<f64>().ok()
}

/// Splits `text` into lines as Python's `text.split("\n")` without a trailing empty line.
fn lines(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut offset = 0;
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n')
        .enumerate()
        .filter(move |_| !empty)
        .map(move |(i, line)| {
            let start = offset;
            offset += line.len() + 1;
            (i + 1, start, line)
        })
}

struct Builder<T> {
    queries: Vec<String>,
    entries: Vec<Entries<T>>,
    index: FxHashMap<String, usize>,
    last: Option<usize>,
}

impl<T> Builder<T> {
    fn new() -> Self {
        Builder {
            queries: Vec::new(),
            entries: Vec::new(),
            index: FxHashMap::default(),
            last: None,
        }
    }

    /// The slot of `query`, made on its first line.
    fn slot(&mut self, query: &str, line: usize) -> usize {
        if let Some(last) = self.last {
            if self.queries[last] == query {
                return last;
            }
        }
        let slot = match self.index.get(query) {
            Some(&slot) => slot,
            None => {
                let slot = self.queries.len();
                self.queries.push(query.to_string());
                self.index.insert(query.to_string(), slot);
                self.entries.push(Entries {
                    docs: Vec::new(),
                    values: Vec::new(),
                    first_line: line,
                });
                slot
            }
        };
        self.last = Some(slot);
        slot
    }
}

/// Whether a query lists a document twice.
fn has_duplicate<T>(text: &str, entries: &Entries<T>) -> Option<Span> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(entries.docs.len());
    entries
        .docs
        .iter()
        .find(|span| !seen.insert(&text[span.start..span.start + span.len as usize]))
        .copied()
}

fn span(start: usize, end: usize) -> Result<Span, ParseError> {
    let len = u32::try_from(end - start)
        .map_err(|_| ParseError::at(0, "an id longer than 4 GiB".to_string()))?;
    Ok(Span { start, len })
}

/// The 1-based lines of a query's entries of a document, found again by a second pass (only for an error).
fn entry_lines(text: &str, width: usize, query: &str, doc: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut found = Vec::new();
    for (number, _, line) in lines(text) {
        fields(line, width, &mut found);
        if found.len() == width
            && &line[found[0].0..found[0].1] == query
            && &line[found[2].0..found[2].1] == doc
        {
            out.push(number);
        }
    }
    out
}

/// The first document listed twice for a query (in file order) as the reader's error.
fn check_duplicates<T: Send + Sync>(
    text: &str,
    queries: &[String],
    entries: &[Entries<T>],
    width: usize,
    what: &str,
) -> Result<(), ParseError> {
    let first = crate::common::parallel::install(|| {
        entries
            .par_iter()
            .enumerate()
            .filter_map(|(slot, e)| has_duplicate(text, e).map(|span| (span.start, slot, span)))
            .min_by_key(|found| found.0)
    });
    let Some((_, slot, span)) = first else {
        return Ok(());
    };
    let doc = &text[span.start..span.start + span.len as usize];
    let query = &queries[slot];
    let found = entry_lines(text, width, query, doc);
    Err(ParseError::at(
        found[1],
        format!(
            "document {} {what} twice for query {} (first on line {})",
            py_repr(doc),
            py_repr(query),
            found[0]
        ),
    ))
}

/// Python's `repr()` of a str for the messages (quotes; backslash escapes of quotes and controls).
pub fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn decode(data: Vec<u8>) -> Result<String, ParseError> {
    String::from_utf8(data).map_err(|err| {
        let at = err.utf8_error().valid_up_to();
        let bytes = err.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        ParseError::at(line, "invalid UTF-8".to_string())
    })
}

/// What a file's lines hold: the number of fields, which one is the value, how it is read.
struct Layout<T> {
    width: usize,
    value: usize,
    tag: Option<usize>,
    what: &'static str,
    fields: &'static str,
    read: fn(&str, usize) -> Result<T, ParseError>,
    /// the longest line accepted, in bytes without its newline
    max_line: usize,
}

fn read_level(field: &str, line: usize) -> Result<i64, ParseError> {
    parse_int(field).ok_or_else(|| {
        ParseError::at(
            line,
            format!("relevance {} is not an integer", py_repr(field)),
        )
    })
}

fn read_score(field: &str, line: usize) -> Result<f64, ParseError> {
    let score = parse_float(field)
        .ok_or_else(|| ParseError::at(line, format!("score {} is not a number", py_repr(field))))?;
    if score.is_nan() {
        return Err(ParseError::at(line, "score is NaN".to_string()));
    }
    Ok(score)
}

/// One chunk of whole lines, parsed: queries in order of first appearance with their entries
/// (first lines counted from the chunk's start), its line count, and the tag of its first line.
struct Chunk<T> {
    builder: Builder<T>,
    lines: usize,
    tag: Option<String>,
}

/// Parses `text[start..end]` (whole lines); lines are numbered from 1 within the chunk.
fn parse_chunk<T>(
    text: &str,
    start: usize,
    end: usize,
    layout: &Layout<T>,
) -> Result<Chunk<T>, ParseError> {
    let mut builder: Builder<T> = Builder::new();
    let mut tag: Option<String> = None;
    let mut found = Vec::with_capacity(8);
    let chunk = &text[start..end];
    let bytes = chunk.as_bytes();
    let mut at = 0;
    let mut count = 0;
    while at < bytes.len() {
        count += 1;
        let number = count;
        let offset = at;
        let (stop, high) = scan_line(bytes, at, layout.width, &mut found);
        at = stop + 1;
        if stop - offset > layout.max_line {
            return Err(ParseError::at(
                number,
                format!("line longer than {} bytes", layout.max_line),
            ));
        }
        let line = &chunk[offset..stop];
        if high {
            unicode_fields(line, layout.width, &mut found);
        }
        if found.is_empty() || line[found[0].0..].starts_with('#') {
            continue;
        }
        if found.len() != layout.width {
            let mut all = Vec::new();
            fields(line, usize::MAX - 1, &mut all);
            return Err(ParseError::at(
                number,
                format!(
                    "expected {} fields '{}'; got {}",
                    layout.width,
                    layout.fields,
                    all.len()
                ),
            ));
        }
        let value = (layout.read)(&line[found[layout.value].0..found[layout.value].1], number)?;
        let slot = builder.slot(&line[found[0].0..found[0].1], number);
        let doc = span(start + offset + found[2].0, start + offset + found[2].1)?;
        builder.entries[slot].docs.push(doc);
        builder.entries[slot].values.push(value);
        if let (None, Some(field)) = (&tag, layout.tag) {
            tag = Some(line[found[field].0..found[field].1].to_string());
        }
    }
    Ok(Chunk {
        builder,
        lines: count,
        tag,
    })
}

/// Chunk boundaries: about `parts` pieces of `text`, each ending after a newline (or at the end).
fn boundaries(text: &str, parts: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for part in 1..=parts {
        let target = (text.len() * part / parts).max(start);
        let end = if part == parts {
            text.len()
        } else {
            match memchr::memchr(b'\n', &bytes[target..]) {
                Some(at) => target + at + 1,
                None => text.len(),
            }
        };
        if end > start {
            out.push((start, end));
        }
        start = end;
        if start == text.len() {
            break;
        }
    }
    out
}

/// Files of at least this many bytes are parsed in chunks on the thread pool.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

fn parse<T: Send + Sync>(data: Vec<u8>, layout: &Layout<T>) -> Result<Parsed<T>, ParseError> {
    let text = decode(data)?;
    let parts = if text.len() >= PARALLEL_MIN_BYTES {
        4 * crate::common::parallel::current_num_threads()
    } else {
        1
    };
    let pieces = boundaries(&text, parts);
    let chunks: Vec<Result<Chunk<T>, ParseError>> = if pieces.len() > 1 {
        crate::common::parallel::install(|| {
            pieces
                .par_iter()
                .map(|&(start, end)| parse_chunk(&text, start, end, layout))
                .collect()
        })
    } else {
        pieces
            .iter()
            .map(|&(start, end)| parse_chunk(&text, start, end, layout))
            .collect()
    };
    // merge in file order: a query's entries keep their order, queries their first appearance
    let mut merged: Builder<T> = Builder::new();
    let mut tag = None;
    let mut lines_before = 0;
    for chunk in chunks {
        let chunk = chunk.map_err(|err| ParseError::at(err.line + lines_before, err.message))?;
        tag = tag.or(chunk.tag);
        for (query, entries) in chunk.builder.queries.into_iter().zip(chunk.builder.entries) {
            let slot = merged.slot(&query, entries.first_line + lines_before);
            let into = &mut merged.entries[slot];
            if into.docs.is_empty() {
                into.docs = entries.docs;
                into.values = entries.values;
            } else {
                into.docs.extend(entries.docs);
                into.values.extend(entries.values);
            }
        }
        lines_before += chunk.lines;
    }
    check_duplicates(
        &text,
        &merged.queries,
        &merged.entries,
        layout.width,
        layout.what,
    )?;
    Ok(Parsed {
        text,
        queries: merged.queries,
        entries: merged.entries,
        tag,
    })
}

/// Reads a qrels file's bytes.
pub fn parse_qrels(data: Vec<u8>) -> Result<Qrels, ParseError> {
    parse_qrels_within(data, None)
}

/// Reads a qrels file's bytes; a line over `max_line_bytes` (without its newline) is an error.
pub fn parse_qrels_within(
    data: Vec<u8>,
    max_line_bytes: Option<usize>,
) -> Result<Qrels, ParseError> {
    parse(
        data,
        &Layout {
            width: 4,
            value: 3,
            tag: None,
            what: "judged",
            fields: "query iteration document relevance",
            read: read_level,
            max_line: max_line_bytes.unwrap_or(usize::MAX),
        },
    )
}

/// Reads a run file's bytes.
pub fn parse_run(data: Vec<u8>) -> Result<Run, ParseError> {
    parse_run_within(data, None)
}

/// Reads a run file's bytes; a line over `max_line_bytes` (without its newline) is an error.
pub fn parse_run_within(data: Vec<u8>, max_line_bytes: Option<usize>) -> Result<Run, ParseError> {
    parse(
        data,
        &Layout {
            width: 6,
            value: 4,
            tag: Some(5),
            what: "ranked",
            fields: "query Q0 document rank score tag",
            read: read_score,
            max_line: max_line_bytes.unwrap_or(usize::MAX),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs<T: Copy>(parsed: &Parsed<T>, slot: usize) -> Vec<(String, T)> {
        let e = &parsed.entries[slot];
        e.docs
            .iter()
            .zip(&e.values)
            .map(|(s, v)| (parsed.doc(*s).to_string(), *v))
            .collect()
    }

    #[test]
    fn qrels_with_crlf_tabs_comments_and_blank_lines() {
        let text = "# a comment\r\nq1 0 d1 1\r\n\r\nq1\t0\td2\t-1\r\nq2 0  d7 +2\r\n   \n";
        let qrels = parse_qrels(text.as_bytes().to_vec()).unwrap();
        assert_eq!(qrels.queries, vec!["q1", "q2"]);
        assert_eq!(
            docs(&qrels, 0),
            vec![("d1".to_string(), 1), ("d2".to_string(), -1)]
        );
        assert_eq!(docs(&qrels, 1), vec![("d7".to_string(), 2)]);
        assert_eq!(qrels.entries[0].first_line, 2);
        assert_eq!(qrels.entries[1].first_line, 5);
    }

    #[test]
    fn run_scores_in_every_notation() {
        let text = "q1 Q0 a 1 1e3 t\nq1 Q0 b 2 -2.5E-2 u\nq1 Q0 c 3 inf t\nq1 Q0 d 4 -Infinity t\nq2 Q0 a 1 .5 t\n";
        let run = parse_run(text.as_bytes().to_vec()).unwrap();
        assert_eq!(run.tag.as_deref(), Some("t"));
        let got = docs(&run, 0);
        assert_eq!(got[0].1, 1000.0);
        assert_eq!(got[1].1, -0.025);
        assert_eq!(got[2].1, f64::INFINITY);
        assert_eq!(got[3].1, f64::NEG_INFINITY);
        assert_eq!(docs(&run, 1), vec![("a".to_string(), 0.5)]);
    }

    #[test]
    fn unicode_whitespace_splits_as_python() {
        let text = "q1\u{a0}Q0 d\u{e9}1 1 0.5 t\u{3000}\nq1 Q0 d2\u{1c}1 0.25 t\n";
        let run = parse_run(text.as_bytes().to_vec()).unwrap();
        assert_eq!(
            docs(&run, 0),
            vec![("dé1".to_string(), 0.5), ("d2".to_string(), 0.25)]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_run(b"q1 Q0 a 1 0.5 t\nq1 Q0 b 2 nan t\n".to_vec()).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (2, "score is NaN"));
        let err = parse_run(b"q1 Q0 a 1 x t\n".to_vec()).unwrap_err();
        assert_eq!(err.message, "score 'x' is not a number");
        let err = parse_run(b"q1 Q0 a 1 0.5\n".to_vec()).unwrap_err();
        assert_eq!(
            err.message,
            "expected 6 fields 'query Q0 document rank score tag'; got 5"
        );
        let err =
            parse_run(b"q1 Q0 a 1 0.5 t\nq2 Q0 a 1 1 t\nq1 Q0 a 3 0.1 t\n".to_vec()).unwrap_err();
        assert_eq!(err.line, 3);
        assert_eq!(
            err.message,
            "document 'a' ranked twice for query 'q1' (first on line 1)"
        );
        let err = parse_qrels(b"q1 0 d1 1\nq1 0 d1 2\n".to_vec()).unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (
                2,
                "document 'd1' judged twice for query 'q1' (first on line 1)"
            )
        );
        let err = parse_qrels(b"q1 0 d1 1.5\n".to_vec()).unwrap_err();
        assert_eq!(err.message, "relevance '1.5' is not an integer");
        let err = parse_qrels(b"q1 0 d1 1\n\xff\n".to_vec()).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (2, "invalid UTF-8"));
    }

    #[test]
    fn chunked_parse_equals_one_chunk() {
        let mut text = String::from("# header\n");
        let mut rng = fastrand::Rng::with_seed(3);
        for i in 0..60_000 {
            let q = rng.u32(0..50);
            text.push_str(&format!("q{q} Q0 d{i} 1 {} t{}\r\n", rng.f64(), i % 3));
        }
        let layout_run = |data: &str, parts: usize| {
            let pieces = boundaries(data, parts);
            let layout = Layout {
                width: 6,
                value: 4,
                tag: Some(5),
                what: "ranked",
                fields: "query Q0 document rank score tag",
                read: read_score,
                max_line: usize::MAX,
            };
            (
                pieces.len(),
                parse_chunk(data, 0, data.len(), &layout).unwrap().lines,
            )
        };
        assert_eq!(layout_run(&text, 7), (7, 60_001));
        let whole = parse_run(text.clone().into_bytes()).unwrap();
        assert!(text.len() >= PARALLEL_MIN_BYTES);
        assert_eq!(whole.tag.as_deref(), Some("t0"));
        let mut one: Builder<f64> = Builder::new();
        for (number, _, line) in lines(&text).skip(1) {
            let mut found = Vec::new();
            fields(line, 6, &mut found);
            one.slot(&line[found[0].0..found[0].1], number);
        }
        assert_eq!(whole.queries, one.queries);
        for (e, o) in whole.entries.iter().zip(&one.entries) {
            assert_eq!(e.first_line, o.first_line);
        }
        let total: usize = whole.entries.iter().map(|e| e.docs.len()).sum();
        assert_eq!(total, 60_000);
        // an error in a late chunk names its line in the whole file
        let bad = format!("{text}q1 Q0 x 1 nan t\n");
        let err = parse_run(bad.into_bytes()).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (60_002, "score is NaN"));
        let again = lines(&text).nth(6).unwrap().2;
        let dup = format!("{text}{again}\n");
        let err = parse_run(dup.into_bytes()).unwrap_err();
        assert_eq!(err.line, 60_002);
        assert!(
            err.message.ends_with("(first on line 7)"),
            "{}",
            err.message
        );
    }

    #[test]
    fn lines_over_the_limit_are_errors_in_any_chunk() {
        let text = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.25 tag\r\nq1 Q0 c 3 0.1 t";
        // the second line's 19 bytes count its \r, as the lines between newlines did
        assert!(parse_run_within(text.as_bytes().to_vec(), Some(19)).is_ok());
        let err = parse_run_within(text.as_bytes().to_vec(), Some(18)).unwrap_err();
        assert_eq!(
            (err.line, err.message.as_str()),
            (2, "line longer than 18 bytes")
        );
        let err = parse_qrels_within(b"q 0 a 1\n\nq 0 bb 1".to_vec(), Some(7)).unwrap_err();
        assert_eq!(err.line, 3);
        let mut long = String::new();
        for i in 0..60_000 {
            long.push_str(&format!("q{} Q0 d{i} 1 0.5 t\n", i % 7));
        }
        long.push_str("q1 Q0 last 1 0.5 a-long-tag\n");
        assert!(long.len() >= PARALLEL_MIN_BYTES);
        let err = parse_run_within(long.clone().into_bytes(), Some(26)).unwrap_err();
        assert_eq!(err.line, 60_001);
        assert!(parse_run_within(long.into_bytes(), Some(27)).is_ok());
    }

    #[test]
    fn forms_python_reads_but_the_reader_leaves_to_python() {
        assert_eq!(parse_int("1_0"), None);
        for underscored in ["1_0.5", "1_0", "1e1_0", "0.5_", "_1", "in_f"] {
            assert_eq!(parse_float(underscored), None, "{underscored}");
        }
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(py_repr("it's"), "\"it's\"");
    }
}
