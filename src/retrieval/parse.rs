//! TREC qrels and run files, read as `nlpeval.ir.trecfiles` reads them.
//!
//! * qrels: `query iteration document relevance` (4 fields, an integer relevance);
//! * run: `query Q0 document rank score tag` (6 fields; the rank is ignored, as by trec_eval).
//!
//! Lines end at `\n`; fields are separated by any run of the characters Python's
//! `str.split()` treats as whitespace (so `\r` of CRLF files, tabs and spaces alike).
//! Blank lines and lines whose first field starts with `#` are skipped. A document
//! listed twice for a query, a NaN score, a wrong field count or an unparsable number
//! is an error naming the 1-based line.
//!
//! A large regular file is read in blocks of whole lines on the thread pool, each into a buffer its
//! worker reuses, and parsed as it is read: the file is never held whole in memory. Only the
//! document ids are kept, copied into one arena per block (spans index them), so reading allocates
//! per query and per block, not per line; a small file, a pipe or bytes in memory are one block.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::source::Source;

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

/// A document id: a byte range of one of the id arenas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub len: u32,
    /// which arena of [`Parsed::arenas`]
    pub arena: u32,
}

/// One query's entries in file order: document spans and their values.
#[derive(Debug, Clone, Default)]
pub struct Entries<T> {
    pub docs: Vec<Span>,
    pub values: Vec<T>,
    /// the 1-based line of the query's first entry
    pub first_line: usize,
}

/// A parsed file: its document ids, its queries in order of first appearance and their entries.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// the document ids, back to back (one arena per block of the file)
    pub arenas: Vec<String>,
    pub queries: Vec<String>,
    pub entries: Vec<Entries<T>>,
    /// a run's tag (its first line's sixth field)
    pub tag: Option<String>,
}

impl<T> Parsed<T> {
    /// The id of a document span.
    pub fn doc(&self, span: Span) -> &str {
        &self.arenas[span.arena as usize][span.start..span.start + span.len as usize]
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

/// The bytes of `word` (8 bytes of the file, the first the lowest) that may end a field, an ASCII
/// byte up to `' '` or a non-ASCII byte, as their high bits: exact up to the first such byte (the
/// subtraction's borrow can mark bytes after it).
const fn stops(word: u64) -> u64 {
    const BELOW_SPACE: u64 = 0x2121_2121_2121_2121;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    ((word.wrapping_sub(BELOW_SPACE) & !word) | word) & HIGH_BITS
}

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
            // field bytes 8 at a time, up to the first that may end the field
            while let Some(chunk) = bytes.get(i..i + 8) {
                let found = stops(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
                if found != 0 {
                    i += found.trailing_zeros() as usize / 8;
                    break;
                }
                i += 8;
            }
            match bytes.get(i).map(|&b| CLASS[b as usize]) {
                Some(FIELD) => i += 1, // a control character
                Some(HIGH) => {
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
    plain_decimal(field.as_bytes()).or_else(|| field.parse::<f64>().ok())
}

/// `10^k`, exact in `f64`, for `k` up to 22.
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The value of `[+-]digits[.digits]` (how run files print scores, e.g. `%.6f`) when its digits, as
/// an integer, are below 2^53 and it has at most 22 decimals: that integer divided by a power of ten,
/// both exact, so the one correctly rounded division is the correctly rounded value (Clinger's fast
/// path), as `float()` gives. `None` for any other form or size, which the full parser reads.
fn plain_decimal(field: &[u8]) -> Option<f64> {
    let (negative, digits) = match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    };
    let (mut integer, mut count, mut decimals, mut point) = (0u64, 0usize, 0usize, false);
    for &byte in digits {
        match byte {
            b'0'..=b'9' if count < 19 => {
                integer = integer * 10 + u64::from(byte - b'0');
                count += 1;
                decimals += usize::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    if count == 0 || integer >= 1 << 53 || decimals >= POWERS_OF_TEN.len() {
        return None;
    }
    let value = integer as f64 / POWERS_OF_TEN[decimals];
    Some(if negative { -value } else { value })
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
fn has_duplicate<T>(parsed: &Parsed<T>, entries: &Entries<T>) -> Option<Span> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(entries.docs.len());
    entries
        .docs
        .iter()
        .find(|span| !seen.insert(parsed.doc(**span)))
        .copied()
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

/// The first document listed twice for a query (in file order) as the reader's error, its lines
/// found in the file read again.
fn check_duplicates<T: Send + Sync>(
    parsed: &Parsed<T>,
    source: &Source,
    layout: &Layout<T>,
) -> Result<(), ParseError> {
    let first = crate::common::parallel::install(|| {
        parsed
            .entries
            .par_iter()
            .enumerate()
            .filter_map(|(slot, e)| {
                has_duplicate(parsed, e).map(|span| ((span.arena, span.start), slot, span))
            })
            .min_by_key(|found| found.0)
    });
    let Some((_, slot, span)) = first else {
        return Ok(());
    };
    let (doc, query) = (parsed.doc(span), &parsed.queries[slot]);
    let message = format!(
        "document {} {} twice for query {}",
        py_repr(doc),
        layout.what,
        py_repr(query)
    );
    let all = source
        .all()
        .map_err(|err| ParseError::at(0, format!("cannot read the file: {err}")))?;
    let found = entry_lines(&String::from_utf8_lossy(&all), layout.width, query, doc);
    Err(match found[..] {
        [first, second, ..] => ParseError::at(second, format!("{message} (first on line {first})")),
        _ => ParseError::at(0, message), // the file changed while it was read
    })
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

/// The lines of one block, parsed: queries in order of first appearance with their entries (first
/// lines counted from the block's first line), its line count, the tag of its first line, and the
/// arena of its document ids.
struct Chunk<T> {
    builder: Builder<T>,
    lines: usize,
    tag: Option<String>,
    arena: String,
}

/// Why a block was not read: invalid UTF-8 at a byte of the file (the file's first such error
/// wins over any other, as when the whole file was decoded first), or another error.
enum BlockError {
    Utf8(usize),
    Line(ParseError),
}

/// Parses `text` (whole lines, numbered from 1), its ids copied into an arena numbered `arena`.
fn parse_lines<T>(text: &str, layout: &Layout<T>, arena: u32) -> Result<Chunk<T>, ParseError> {
    let mut builder: Builder<T> = Builder::new();
    let mut ids = String::with_capacity(text.len() / 4);
    let mut tag: Option<String> = None;
    let mut found = Vec::with_capacity(8);
    let bytes = text.as_bytes();
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
        let line = &text[offset..stop];
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
        let doc = &line[found[2].0..found[2].1];
        let len = u32::try_from(doc.len())
            .map_err(|_| ParseError::at(number, "an id longer than 4 GiB".to_string()))?;
        builder.entries[slot].docs.push(Span {
            start: ids.len(),
            len,
            arena,
        });
        ids.push_str(doc);
        builder.entries[slot].values.push(value);
        if let (None, Some(field)) = (&tag, layout.tag) {
            tag = Some(line[found[field].0..found[field].1].to_string());
        }
    }
    Ok(Chunk {
        builder,
        lines: count,
        tag,
        arena: ids,
    })
}

/// Parses the lines a block owns, those that start in its range of the file. `bytes` begin at
/// `from`, the byte before the range (the range's start for the first block), and run to the end of
/// the block's last line; `owned` is the range's end relative to `from`.
fn parse_block<T>(
    bytes: &[u8],
    from: usize,
    first: bool,
    owned: usize,
    layout: &Layout<T>,
    arena: u32,
) -> Result<Chunk<T>, BlockError> {
    let start = if first {
        0
    } else {
        match memchr::memchr(b'\n', bytes) {
            Some(at) if at + 1 < owned => at + 1,
            _ => bytes.len(), // no line starts in the range
        }
    };
    let text = std::str::from_utf8(&bytes[start..])
        .map_err(|err| BlockError::Utf8(from + start + err.valid_up_to()))?;
    parse_lines(text, layout, arena).map_err(BlockError::Line)
}

/// Files of at least this many bytes are read and parsed in blocks on the thread pool.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// The largest block (a worker's read buffer).
const BLOCK_BYTES: usize = 4 << 20;

/// Block ranges of a `len`-byte file: one below [`PARALLEL_MIN_BYTES`], else blocks of at most
/// [`BLOCK_BYTES`], at least 4 per thread.
fn blocks(len: usize, threads: usize) -> Vec<(usize, usize)> {
    let parts = if len < PARALLEL_MIN_BYTES {
        1
    } else {
        len.div_ceil(BLOCK_BYTES).max(4 * threads)
    };
    let at = |part: usize| (len as u128 * part as u128 / parts as u128) as usize;
    (0..parts).map(|part| (at(part), at(part + 1))).collect()
}

/// Reads and parses `source` in the blocks `ranges` (consecutive, from 0 to its length).
fn parse_blocks<T: Send + Sync>(
    source: &Source,
    ranges: &[(usize, usize)],
    layout: &Layout<T>,
) -> Result<Parsed<T>, ParseError> {
    let read = |buf: &mut Vec<u8>, (index, &(start, end)): (usize, &(usize, usize))| {
        let from = start.saturating_sub(1);
        let bytes = source
            .lines(from, end, layout.max_line, buf)
            .map_err(|err| {
                BlockError::Line(ParseError::at(0, format!("cannot read the file: {err}")))
            })?;
        let arena = u32::try_from(index).expect("fewer blocks than 2^32");
        parse_block(bytes, from, start == 0, end - from, layout, arena)
    };
    let chunks: Vec<Result<Chunk<T>, BlockError>> = if ranges.len() > 1 {
        crate::common::parallel::install(|| {
            ranges
                .par_iter()
                .enumerate()
                .map_init(Vec::new, read)
                .collect()
        })
    } else {
        let mut buf = Vec::new();
        ranges
            .iter()
            .enumerate()
            .map(|range| read(&mut buf, range))
            .collect()
    };
    if let Some(at) = chunks.iter().find_map(|chunk| match chunk {
        Err(BlockError::Utf8(at)) => Some(*at),
        _ => None,
    }) {
        let all = source
            .all()
            .map_err(|err| ParseError::at(0, format!("cannot read the file: {err}")))?;
        let line = memchr::memchr_iter(b'\n', &all[..at.min(all.len())]).count() + 1;
        return Err(ParseError::at(line, "invalid UTF-8".to_string()));
    }
    // merge in file order: a query's entries keep their order, queries their first appearance
    let mut merged: Builder<T> = Builder::new();
    let mut arenas = Vec::with_capacity(chunks.len());
    let mut tag = None;
    let mut lines_before = 0;
    for chunk in chunks {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(BlockError::Line(err)) => {
                let line = if err.line > 0 {
                    err.line + lines_before
                } else {
                    0
                };
                return Err(ParseError::at(line, err.message));
            }
            Err(BlockError::Utf8(_)) => unreachable!("reported above"),
        };
        tag = tag.or(chunk.tag);
        arenas.push(chunk.arena);
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
    let parsed = Parsed {
        arenas,
        queries: merged.queries,
        entries: merged.entries,
        tag,
    };
    check_duplicates(&parsed, source, layout)?;
    Ok(parsed)
}

fn parse<T: Send + Sync>(source: &Source, layout: &Layout<T>) -> Result<Parsed<T>, ParseError> {
    let ranges = blocks(
        source.size(),
        crate::common::parallel::current_num_threads(),
    );
    parse_blocks(source, &ranges, layout)
}

/// The file at `path` parsed (by blocks when it is large); an unreadable file is an error at line 0.
fn parse_file<T: Send + Sync>(path: &str, layout: &Layout<T>) -> Result<Parsed<T>, ParseError> {
    let source = Source::open(path, PARALLEL_MIN_BYTES)
        .map_err(|err| ParseError::at(0, format!("cannot read {path}: {err}")))?;
    parse(&source, layout)
}

fn qrels_layout(max_line_bytes: Option<usize>) -> Layout<i64> {
    Layout {
        width: 4,
        value: 3,
        tag: None,
        what: "judged",
        fields: "query iteration document relevance",
        read: read_level,
        max_line: max_line_bytes.unwrap_or(usize::MAX),
    }
}

fn run_layout(max_line_bytes: Option<usize>) -> Layout<f64> {
    Layout {
        width: 6,
        value: 4,
        tag: Some(5),
        what: "ranked",
        fields: "query Q0 document rank score tag",
        read: read_score,
        max_line: max_line_bytes.unwrap_or(usize::MAX),
    }
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
    parse(&Source::Memory(data), &qrels_layout(max_line_bytes))
}

/// Reads the qrels file at `path`; a line over `max_line_bytes` (without its newline) is an error.
pub fn read_qrels(path: &str, max_line_bytes: Option<usize>) -> Result<Qrels, ParseError> {
    parse_file(path, &qrels_layout(max_line_bytes))
}

/// Reads a run file's bytes.
pub fn parse_run(data: Vec<u8>) -> Result<Run, ParseError> {
    parse_run_within(data, None)
}

/// Reads a run file's bytes; a line over `max_line_bytes` (without its newline) is an error.
pub fn parse_run_within(data: Vec<u8>, max_line_bytes: Option<usize>) -> Result<Run, ParseError> {
    parse(&Source::Memory(data), &run_layout(max_line_bytes))
}

/// Reads the run file at `path`; a line over `max_line_bytes` (without its newline) is an error.
pub fn read_run(path: &str, max_line_bytes: Option<usize>) -> Result<Run, ParseError> {
    parse_file(path, &run_layout(max_line_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::source::temp_file;

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

    /// Every entry as `(query, doc, value, query's first line)`.
    fn flat<T: Copy>(parsed: &Parsed<T>) -> Vec<(String, String, T, usize)> {
        let mut out = Vec::new();
        for (q, e) in parsed.queries.iter().zip(&parsed.entries) {
            for (span, &value) in e.docs.iter().zip(&e.values) {
                out.push((
                    q.clone(),
                    parsed.doc(*span).to_string(),
                    value,
                    e.first_line,
                ));
            }
        }
        out
    }

    /// `len` bytes in `parts` consecutive ranges.
    fn even(len: usize, parts: usize) -> Vec<(usize, usize)> {
        (0..parts)
            .map(|p| (len * p / parts, len * (p + 1) / parts))
            .collect()
    }

    #[test]
    fn blocks_of_any_size_parse_as_one() {
        let mut text = String::from("# header\n\n");
        let mut rng = fastrand::Rng::with_seed(3);
        for i in 0..3_000 {
            let q = rng.u32(0..50);
            let gap = [" ", "\t", "  ", "\u{a0}", " \u{1c}"][rng.usize(0..5)];
            let end = ["\n", "\r\n", "\n\n", "\n# note\n"][rng.usize(0..4)];
            let doc = if i % 11 == 0 {
                format!("d\u{e9}{i}")
            } else {
                format!("d{i}")
            };
            text.push_str(&format!(
                "q{q}{gap}Q0 {doc} 1 {} t{}{end}",
                rng.f64(),
                i % 3
            ));
        }
        text.push_str("q1 Q0 last 1 0.5 t"); // no final newline
        let layout = run_layout(None);
        let memory = Source::Memory(text.clone().into_bytes());
        let one = parse_blocks(&memory, &[(0, text.len())], &layout).unwrap();
        assert_eq!(
            one.entries.iter().map(|e| e.docs.len()).sum::<usize>(),
            3_001
        );
        assert_eq!(one.tag.as_deref(), Some("t0"));
        let path = temp_file("blocks", text.as_bytes());
        let file = Source::open(&path, 0).unwrap();
        assert!(matches!(file, Source::File { .. }));
        // blocks smaller than a line own no line or one; blocks end inside lines and characters
        for parts in [2, 7, 1_000, text.len() / 3, text.len()] {
            let ranges = even(text.len(), parts);
            for source in [&memory, &file] {
                let got = parse_blocks(source, &ranges, &layout).unwrap();
                assert_eq!(got.queries, one.queries, "{parts}");
                assert_eq!(flat(&got), flat(&one), "{parts}");
                assert_eq!(got.tag, one.tag);
            }
        }
        let ranges = blocks(100 * BLOCK_BYTES + 1, 2);
        assert_eq!((ranges.len(), ranges[0].0), (101, 0));
        assert!(ranges
            .windows(2)
            .all(|w| w[0].1 == w[1].0 && w[0].1 - w[0].0 <= BLOCK_BYTES));
        assert_eq!(ranges.last().unwrap().1, 100 * BLOCK_BYTES + 1);
        assert_eq!(blocks(PARALLEL_MIN_BYTES, 2).len(), 8);
        assert_eq!(blocks(10, 2), vec![(0, 10)]);
    }

    #[test]
    fn errors_in_late_blocks_name_their_line_in_the_file() {
        let mut text = String::from("# header\n");
        for i in 0..60_000 {
            text.push_str(&format!("q{} Q0 d{i} 1 0.{i} t\r\n", i % 50));
        }
        assert!(text.len() >= PARALLEL_MIN_BYTES);
        let whole = parse_run(text.clone().into_bytes()).unwrap();
        assert_eq!(whole.entries[0].first_line, 2);
        assert_eq!(whole.entries[49].first_line, 51);
        let bad = format!("{text}q1 Q0 x 1 nan t\n");
        let err = parse_run(bad.into_bytes()).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (60_002, "score is NaN"));
        let again = "q6 Q0 d6 1 0.6 t";
        let dup = format!("{text}{again}\n");
        let err = parse_run(dup.clone().into_bytes()).unwrap_err();
        assert_eq!(err.line, 60_002);
        assert!(
            err.message.ends_with("(first on line 8)"),
            "{}",
            err.message
        );
        // from a file read by blocks: the duplicate's lines are found in the file read again
        let err = read_run(&temp_file("dup", dup.as_bytes()), None).unwrap_err();
        assert_eq!(err.line, 60_002);
        assert!(
            err.message.ends_with("(first on line 8)"),
            "{}",
            err.message
        );
        // invalid UTF-8 anywhere wins over an earlier error of another kind
        let mut mixed = format!("q1 Q0 a 1 x t\n{text}").into_bytes();
        mixed.extend_from_slice(b"q1 Q0 \xff 1 0.5 t\n");
        let err = read_run(&temp_file("mixed", &mixed), None).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (60_003, "invalid UTF-8"));
        let err = parse_run(mixed).unwrap_err();
        assert_eq!((err.line, err.message.as_str()), (60_003, "invalid UTF-8"));
        let err = read_run("/nonexistent/run", None).unwrap_err();
        assert_eq!(err.line, 0);
        assert!(err.message.starts_with("cannot read /nonexistent/run: "));
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
    fn plain_decimals_read_exactly_as_the_full_parser() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut read = 0;
        for _ in 0..300_000 {
            let sign = ["", "-", "+"][rng.usize(0..3)];
            let whole: String = (0..rng.usize(0..12)).map(|_| rng.digit(10)).collect();
            let part: String = (0..rng.usize(0..20)).map(|_| rng.digit(10)).collect();
            let field = match rng.usize(0..4) {
                0 => format!("{sign}{whole}"),
                1 => format!("{sign}{whole}.{part}"),
                2 => format!("{sign}{}", rng.f64() * 10f64.powi(rng.i32(-8..12))),
                _ => format!("{sign}{:.*}", rng.usize(0..9), rng.f64() * 1e4),
            };
            let full = field.parse::<f64>().ok();
            let fast = plain_decimal(field.as_bytes());
            if let Some(value) = fast {
                read += 1;
                assert_eq!(Some(value.to_bits()), full.map(f64::to_bits), "{field}");
            }
            assert_eq!(
                parse_float(&field).map(f64::to_bits),
                full.map(f64::to_bits)
            );
        }
        assert!(read > 150_000, "{read}");
        assert_eq!(
            plain_decimal(b"-0").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(plain_decimal(b"9007199254740991.5"), None); // over 2^53 as an integer
        assert_eq!(plain_decimal(b"9007199254740991"), Some(9007199254740991.0));
        for other in ["", "-", ".", "+.", "1..2", "1e5", "inf", "1_0", "0x1", " 1"] {
            assert_eq!(plain_decimal(other.as_bytes()), None, "{other}");
        }
        assert_eq!(plain_decimal(b"5."), Some(5.0));
        assert_eq!(plain_decimal(b"+.25"), Some(0.25));
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
