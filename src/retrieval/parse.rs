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

use rustc_hash::FxHashMap;

/// An error at a 1-based line of the file (0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
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

fn is_ascii_python_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

/// The fields of one line as byte offsets `(start, end)` into `line`, at most `limit + 1` of them
/// (enough to tell a wrong count).
fn fields(line: &str, limit: usize, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let bytes = line.as_bytes();
    if bytes.is_ascii() {
        let mut i = 0;
        while i < bytes.len() && out.len() <= limit {
            while i < bytes.len() && is_ascii_python_space(bytes[i]) {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !is_ascii_python_space(bytes[i]) {
                i += 1;
            }
            if i > start {
                out.push((start, i));
            }
        }
        return;
    }
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

/// Python's `float()` of a field, for the forms both accept (`None` otherwise).
fn parse_float(field: &str) -> Option<f64> {
    if field.contains('_') {
        return None;
    }
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

/// Where each document of `entries` first appears, to find a duplicate: `None` if none, else the
/// positions (first, second) of the first duplicate in file order.
fn first_duplicate<T>(text: &str, entries: &Entries<T>) -> Option<(usize, usize)> {
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    seen.reserve(entries.docs.len());
    for (i, span) in entries.docs.iter().enumerate() {
        let doc = &text[span.start..span.start + span.len as usize];
        if let Some(&first) = seen.get(doc) {
            return Some((first, i));
        }
        seen.insert(doc, i);
    }
    None
}

fn span(start: usize, end: usize) -> Result<Span, ParseError> {
    let len = u32::try_from(end - start)
        .map_err(|_| ParseError::at(0, "an id longer than 4 GiB".to_string()))?;
    Ok(Span { start, len })
}

/// The 1-based lines of each query's entries, found again by a second pass (only for an error).
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

fn check_duplicates<T>(
    text: &str,
    builder: &Builder<T>,
    width: usize,
    what: &str,
) -> Result<(), ParseError> {
    for (slot, entries) in builder.entries.iter().enumerate() {
        if let Some((_, second)) = first_duplicate(text, entries) {
            let span = entries.docs[second];
            let doc = &text[span.start..span.start + span.len as usize];
            let query = &builder.queries[slot];
            let found = entry_lines(text, width, query, doc);
            let (first, again) = (found[0], found[1]);
            return Err(ParseError::at(
                again,
                format!(
                    "document {} {what} twice for query {} (first on line {first})",
                    py_repr(doc),
                    py_repr(query)
                ),
            ));
        }
    }
    Ok(())
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

fn finish<T>(text: String, builder: Builder<T>, tag: Option<String>) -> Parsed<T> {
    Parsed {
        text,
        queries: builder.queries,
        entries: builder.entries,
        tag,
    }
}

fn decode(data: Vec<u8>) -> Result<String, ParseError> {
    String::from_utf8(data).map_err(|err| {
        let at = err.utf8_error().valid_up_to();
        let bytes = err.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        ParseError::at(line, "invalid UTF-8".to_string())
    })
}

/// Reads a qrels file's bytes.
pub fn parse_qrels(data: Vec<u8>) -> Result<Qrels, ParseError> {
    let text = decode(data)?;
    let mut builder: Builder<i64> = Builder::new();
    let mut found = Vec::with_capacity(8);
    for (number, start, line) in lines(&text) {
        fields(line, 4, &mut found);
        if found.is_empty() || line[found[0].0..].starts_with('#') {
            continue;
        }
        if found.len() != 4 {
            let mut all = Vec::new();
            fields(line, usize::MAX - 1, &mut all);
            return Err(ParseError::at(
                number,
                format!(
                    "expected 4 fields 'query iteration document relevance'; got {}",
                    all.len()
                ),
            ));
        }
        let level = &line[found[3].0..found[3].1];
        let rel = parse_int(level).ok_or_else(|| {
            ParseError::at(
                number,
                format!("relevance {} is not an integer", py_repr(level)),
            )
        })?;
        let slot = builder.slot(&line[found[0].0..found[0].1], number);
        let doc = span(start + found[2].0, start + found[2].1)?;
        builder.entries[slot].docs.push(doc);
        builder.entries[slot].values.push(rel);
    }
    check_duplicates(&text, &builder, 4, "judged")?;
    Ok(finish(text, builder, None))
}

/// Reads a run file's bytes.
pub fn parse_run(data: Vec<u8>) -> Result<Run, ParseError> {
    let text = decode(data)?;
    let mut builder: Builder<f64> = Builder::new();
    let mut tag: Option<String> = None;
    let mut found = Vec::with_capacity(8);
    for (number, start, line) in lines(&text) {
        fields(line, 6, &mut found);
        if found.is_empty() || line[found[0].0..].starts_with('#') {
            continue;
        }
        if found.len() != 6 {
            let mut all = Vec::new();
            fields(line, usize::MAX - 1, &mut all);
            return Err(ParseError::at(
                number,
                format!(
                    "expected 6 fields 'query Q0 document rank score tag'; got {}",
                    all.len()
                ),
            ));
        }
        let text_score = &line[found[4].0..found[4].1];
        let score = parse_float(text_score).ok_or_else(|| {
            ParseError::at(
                number,
                format!("score {} is not a number", py_repr(text_score)),
            )
        })?;
        if score.is_nan() {
            return Err(ParseError::at(number, "score is NaN".to_string()));
        }
        let slot = builder.slot(&line[found[0].0..found[0].1], number);
        let doc = span(start + found[2].0, start + found[2].1)?;
        builder.entries[slot].docs.push(doc);
        builder.entries[slot].values.push(score);
        if tag.is_none() {
            tag = Some(line[found[5].0..found[5].1].to_string());
        }
    }
    check_duplicates(&text, &builder, 6, "ranked")?;
    Ok(finish(text, builder, tag))
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
    fn forms_python_reads_but_the_reader_leaves_to_python() {
        assert_eq!(parse_int("1_0"), None);
        assert_eq!(parse_float("1_0.5"), None);
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(py_repr("it's"), "\"it's\"");
    }
}
