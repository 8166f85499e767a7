//! Text handling shared by the kernels: Python-compatible whitespace and the
//! sacreBLEU-compatible tokenizers (`13a`, `intl`, `zh`, `char`, `none`).
//!
//! Every rule here mirrors what Python's `str.split()` / `str.strip()` and the
//! `re`/`regex` substitutions of the reference tokenizers do, because BLEU
//! parity depends on producing exactly the same token sequence.

pub mod porter;
pub mod py;
pub mod py_text;

use regex::Regex;
use std::sync::OnceLock;

/// `true` for exactly the characters Python's `str.isspace()` accepts.
///
/// This differs from `char::is_whitespace` (Unicode `White_Space`): Python also
/// counts the information separators U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0b}'
            | '\u{0c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `str.split()` without arguments.
pub fn py_split(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_py_space).filter(|piece| !piece.is_empty())
}

/// Python's `' '.join(text.split())`.
pub fn py_normalize_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in py_split(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(piece);
    }
    out
}

/// Python's `str.rstrip()`.
pub fn py_rstrip(text: &str) -> &str {
    // ASCII ends byte by byte (most lines end in a word or a newline); the
    // first other byte hands what is left to the character-wise trim
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    while let Some(&last) = end.checked_sub(1).and_then(|i| bytes.get(i)) {
        if !last.is_ascii() {
            return text[..end].trim_end_matches(is_py_space);
        }
        if !is_py_space(char::from(last)) {
            break;
        }
        end -= 1;
    }
    &text[..end]
}

/// Python's `str.strip()`.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// The tokenizers implemented natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    /// mteval-v13a, the WMT standard (sacreBLEU's default).
    Mteval13a,
    /// mteval-v14 international tokenization (Unicode punctuation and symbols).
    International,
    /// sacreBLEU's `zh`: Chinese characters split, the rest as `13a`.
    Chinese,
    /// Every non-space character is a token.
    Character,
    /// Whitespace split only.
    WhitespaceOnly,
}

impl Tokenizer {
    /// Looks a tokenizer up by its sacreBLEU name.
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        match name {
            "13a" => Some(Tokenizer::Mteval13a),
            "intl" => Some(Tokenizer::International),
            "zh" => Some(Tokenizer::Chinese),
            "char" => Some(Tokenizer::Character),
            "none" => Some(Tokenizer::WhitespaceOnly),
            _ => None,
        }
    }

    /// Tokenizes one segment the way sacreBLEU's BLEU does, including its
    /// `rstrip()` of the input, and returns the text with single spaces between
    /// tokens (split it with [`py_split`]; the tokens never contain spaces).
    pub fn tokenize(self, segment: &str) -> String {
        py_normalize_spaces(&self.tokenize_unjoined(segment))
    }

    /// Like [`Tokenizer::tokenize`] but without collapsing the whitespace
    /// between tokens: [`py_split`] of the result gives the same tokens, one
    /// copy of the text sooner (what the statistics kernels use).
    pub fn tokenize_unjoined(self, segment: &str) -> String {
        let segment = py_rstrip(segment);
        match self {
            Tokenizer::Mteval13a => {
                let mut out = String::with_capacity(segment.len() + segment.len() / 4);
                tokens_13a_stripped(segment, |token| {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(token);
                });
                out
            }
            Tokenizer::International => tokenize_intl(segment),
            Tokenizer::Chinese => tokenize_zh(segment),
            Tokenizer::Character => {
                let mut out = String::with_capacity(segment.len() * 2);
                for c in segment.chars().filter(|c| !is_py_space(*c)) {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push(c);
                }
                out
            }
            Tokenizer::WhitespaceOnly => segment.to_owned(),
        }
    }
}

struct RegexRule {
    pattern: Regex,
    replacement: &'static str,
}

fn rules(table: &[(&str, &'static str)]) -> Vec<RegexRule> {
    table
        .iter()
        .map(|(pattern, replacement)| RegexRule {
            pattern: Regex::new(pattern).expect("tokenizer pattern compiles"),
            replacement,
        })
        .collect()
}

fn apply_rules(rules: &[RegexRule], text: &str) -> String {
    let mut current = text.to_owned();
    for rule in rules {
        if let std::borrow::Cow::Owned(changed) =
            rule.pattern.replace_all(&current, rule.replacement)
        {
            current = changed;
        }
    }
    current
}

/// 13a's first rule: ASCII punctuation and symbols except `'`, `-`, `.` and `,`
/// (the class `[\{-\~\[-\` -\&\(-\+\:-\@\/]`).
fn is_13a_symbol(b: u8) -> bool {
    matches!(b, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// Which side of a two-character rule `(A)(B)` is the rare ASCII byte searched for.
#[derive(Clone, Copy)]
enum Anchor {
    /// `B` is the anchor (`([^0-9])([\.,])`, `([0-9])(-)`).
    Second,
    /// `A` is the anchor (`([\.,])([^0-9])`).
    First,
}

/// Applies a two-character rewrite rule left to right without overlaps, exactly
/// as `re.sub` does for a pattern `(A)(B)`, writing into `out`.
///
/// A match can only involve an anchor byte, so the scan jumps from anchor to
/// anchor (`positions`, ascending) and copies the text between them in bulk; a
/// match at `i` resumes the scan at `i + 2`, which is what `re.sub` does. Bytes
/// are equivalent to characters here because every class involved is ASCII or
/// the complement of an ASCII class, and UTF-8 continuation bytes are never ASCII.
fn rewrite_pairs(
    input: &[u8],
    out: &mut Vec<u8>,
    positions: impl Iterator<Item = usize>,
    anchor: Anchor,
    other: impl Fn(u8) -> bool,
    emit: impl Fn(&mut Vec<u8>, u8, u8),
) {
    out.clear();
    out.reserve(input.len() + input.len() / 4);
    let mut pos = 0;
    for j in positions {
        let start = match anchor {
            Anchor::Second if j > pos && other(input[j - 1]) => j - 1,
            Anchor::First if j >= pos && j + 1 < input.len() && other(input[j + 1]) => j,
            _ => continue,
        };
        out.extend_from_slice(&input[pos..start]);
        emit(out, input[start], input[start + 1]);
        pos = start + 2;
    }
    out.extend_from_slice(&input[pos..]);
}

/// The mteval-v13a rewrite rules on a line (with `pad`, on `" {line} "` as 13a
/// does). Two buffers are swapped between the rules instead of allocating one
/// per rule.
fn mteval_rules(line: &str, pad: bool) -> String {
    let mut current = Vec::with_capacity(line.len() * 2 + 2);
    if pad {
        current.push(b' ');
    }
    for &b in line.as_bytes() {
        if is_13a_symbol(b) {
            current.extend_from_slice(&[b' ', b, b' ']);
        } else {
            current.push(b);
        }
    }
    if pad {
        current.push(b' ');
    }
    let mut next = Vec::new();
    let is_digit = |b: u8| b.is_ascii_digit();
    if memchr::memchr2(b'.', b',', &current).is_some() {
        // period and comma unless preceded by a digit: `([^0-9])([\.,])` -> `\1 \2 `
        rewrite_pairs(
            &current,
            &mut next,
            memchr::memchr2_iter(b'.', b',', &current),
            Anchor::Second,
            |b| !is_digit(b),
            |o, a, b| o.extend_from_slice(&[a, b' ', b, b' ']),
        );
        std::mem::swap(&mut current, &mut next);
        // period and comma unless followed by a digit: `([\.,])([^0-9])` -> ` \1 \2`
        rewrite_pairs(
            &current,
            &mut next,
            memchr::memchr2_iter(b'.', b',', &current),
            Anchor::First,
            |b| !is_digit(b),
            |o, a, b| o.extend_from_slice(&[b' ', a, b' ', b]),
        );
        std::mem::swap(&mut current, &mut next);
    }
    if memchr::memchr(b'-', &current).is_some() {
        // dash when preceded by a digit: `([0-9])(-)` -> `\1 \2 `
        rewrite_pairs(
            &current,
            &mut next,
            memchr::memchr_iter(b'-', &current),
            Anchor::Second,
            is_digit,
            |o, a, b| o.extend_from_slice(&[a, b' ', b, b' ']),
        );
        std::mem::swap(&mut current, &mut next);
    }
    String::from_utf8(current).expect("byte rewrites keep UTF-8 intact")
}

/// mteval's language-independent part of 13a (`<skipped>`, line breaks and
/// four HTML entities); each rewrite only when it can apply.
fn preprocess_13a(segment: &str) -> std::borrow::Cow<'_, str> {
    let mut line = std::borrow::Cow::Borrowed(segment);
    // most lines have none of the bytes the rules below look for: one scan for all three
    if memchr::memchr3(b'<', b'\n', b'&', segment.as_bytes()).is_none() {
        return line;
    }
    if line.contains("<skipped>") {
        line = line.replace("<skipped>", "").into();
    }
    if line.contains('\n') {
        line = line.replace("-\n", "").replace('\n', " ").into();
    }
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .into();
    }
    line
}

/// The regex-rule implementation of 13a (on `" {line} "`), kept as the
/// reference the single-pass scanner is tested against.
#[cfg(test)]
fn tokenize_13a_rules(segment: &str) -> String {
    mteval_rules(&preprocess_13a(segment), true)
}

/// How the 13a scanner treats an ASCII byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class13a {
    /// Part of a token.
    Word,
    /// Python whitespace: ends a token.
    Space,
    /// 13a's first rule: always a token of its own.
    Symbol,
    /// `.` and `,`: split off unless the digit rules keep them attached.
    Period,
    /// `-`: split off after a digit.
    Dash,
}

const fn class_13a_table() -> [Class13a; 128] {
    let mut table = [Class13a::Word; 128];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        table[b] = if matches!(
            byte,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' '
        ) {
            Class13a::Space
        } else if matches!(
            byte,
            b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/'
        ) {
            Class13a::Symbol
        } else if byte == b'.' || byte == b',' {
            Class13a::Period
        } else if byte == b'-' {
            Class13a::Dash
        } else {
            Class13a::Word
        };
        b += 1;
    }
    table
}

static CLASS_13A: [Class13a; 128] = class_13a_table();

/// The tokens of sacreBLEU's 13a tokenizer on `segment`, as `str.split()` of
/// `Tokenizer13a()(segment.rstrip())` gives them, visited in order without
/// building the rewritten line.
///
/// One pass over the bytes replaces mteval's rewrite rules (applied in turn by
/// `re.sub`, each left to right without overlaps). Inserted spaces only ever
/// split, so a token is a run of the line between boundaries, and the rules
/// reduce to these boundaries (the line is padded with a space at each end):
/// - Python whitespace;
/// - both sides of an ASCII symbol of the first rule;
/// - both sides of `.`/`,` at `j` when the second rule matches it (`j - 1` is
///   not a digit and was not itself matched by that rule, which consumed it) or
///   the third rule does (`j + 1` is not a digit; no earlier match of the third
///   rule can have consumed `j`: its predecessor is then a digit or a space);
/// - both sides of `-` after a digit (no other rule inserts anything between a
///   digit and a dash).
///
/// Bytes stand for characters because every class is ASCII and UTF-8 never
/// uses ASCII bytes inside a multi-byte character; only non-ASCII characters
/// are decoded, to find Unicode whitespace.
#[cfg(test)]
pub fn tokens_13a(segment: &str, visit: impl FnMut(&str)) {
    tokens_13a_stripped(py_rstrip(segment), visit)
}

fn tokens_13a_stripped(segment: &str, visit: impl FnMut(&str)) {
    scan_13a(&preprocess_13a(segment), visit)
}

/// `segment` as 13a's scanner takes it: `rstrip()`-ed, with mteval's
/// language-independent rewrites applied (see [`scan_13a`]).
pub fn prepare_13a(segment: &str) -> std::borrow::Cow<'_, str> {
    preprocess_13a(py_rstrip(segment))
}

/// The 13a tokens of a line from [`prepare_13a`] (see [`tokens_13a`]), as
/// slices of the line.
pub fn scan_13a<'a>(line: &'a str, mut visit: impl FnMut(&'a str)) {
    let bytes = line.as_bytes();
    let n = bytes.len();
    let digit_at = |i: usize| i < n && bytes[i].is_ascii_digit();
    // start of the current token, if one is open
    let mut start = usize::MAX;
    // the previous byte is a `.`/`,` the second rule matched
    let mut matched_before = false;
    let mut i = 0;
    macro_rules! close {
        () => {
            if start != usize::MAX {
                visit(&line[start..i]);
                start = usize::MAX;
            }
        };
    }
    macro_rules! single {
        () => {{
            close!();
            visit(&line[i..i + 1]);
        }};
    }
    while i < n {
        let b = bytes[i];
        if b >= 0x80 {
            let c = line[i..].chars().next().expect("a character starts here");
            if is_py_space(c) {
                close!();
            } else if start == usize::MAX {
                start = i;
            }
            matched_before = false;
            i += c.len_utf8();
            continue;
        }
        match CLASS_13A[b as usize] {
            Class13a::Word => {
                if start == usize::MAX {
                    start = i;
                }
                matched_before = false;
            }
            Class13a::Space => {
                close!();
                matched_before = false;
            }
            Class13a::Symbol => {
                single!();
                matched_before = false;
            }
            Class13a::Period => {
                let after_digit = i > 0 && digit_at(i - 1);
                let second = !after_digit && !matched_before;
                if second || !digit_at(i + 1) {
                    single!();
                } else if start == usize::MAX {
                    start = i;
                }
                matched_before = second;
            }
            Class13a::Dash => {
                if i > 0 && digit_at(i - 1) {
                    single!();
                } else if start == usize::MAX {
                    start = i;
                }
                matched_before = false;
            }
        }
        i += 1;
    }
    if start != usize::MAX {
        visit(&line[start..]);
    }
}

fn tokenize_intl(segment: &str) -> String {
    static RULES: OnceLock<Vec<RegexRule>> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        rules(&[
            (r"(\P{N})(\p{P})", "${1} ${2} "),
            (r"(\p{P})(\P{N})", " ${1} ${2}"),
            (r"(\p{S})", " ${1} "),
        ])
    });
    apply_rules(rules, segment)
}

/// sacreBLEU's `zh` character ranges, compared the way its Python code does.
///
/// Two of its bounds are written as five hex digits after `\u` (which Python
/// reads as a four-digit escape followed by a digit), so a single character `c`
/// falls in `('\u2000' '0') <= c <= ('\u2a6d' '6')` exactly when
/// U+2001 <= c <= U+2A6D, and likewise U+2F81..=U+2FA1. We reproduce that
/// (the listed ranges U+2600..U+27BF lie inside the first and are omitted).
fn is_zh_char(c: char) -> bool {
    matches!(
        c as u32,
        0x3400..=0x4db5
            | 0x4e00..=0x9fa5
            | 0x9fa6..=0x9fbb
            | 0xf900..=0xfa2d
            | 0xfa30..=0xfa6a
            | 0xfa70..=0xfad9
            | 0x2001..=0x2a6d
            | 0x2f81..=0x2fa1
            | 0xff00..=0xffef
            | 0x2e80..=0x2eff
            | 0x3000..=0x303f
            | 0x31c0..=0x31ef
            | 0x2f00..=0x2fdf
            | 0x2ff0..=0x2fff
            | 0x3100..=0x312f
            | 0x31a0..=0x31bf
            | 0xfe10..=0xfe1f
            | 0xfe30..=0xfe4f
            | 0x3200..=0x32ff
            | 0x3300..=0x33ff
    )
}

fn tokenize_zh(segment: &str) -> String {
    let stripped = py_strip(segment);
    let mut spaced = String::with_capacity(stripped.len() * 2);
    for c in stripped.chars() {
        if is_zh_char(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    mteval_rules(&spaced, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn py_rstrip_equals_the_character_wise_trim() {
        let pieces = [
            "a", " ", "\t", "\n", "\u{0b}", "\u{1c}", "\u{85}", "\u{a0}", "\u{2000}", "\u{3000}",
            "\u{200b}", "é", "日", "x ", "",
        ];
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..5000 {
            let text: String = (0..rng.usize(0..8))
                .map(|_| pieces[rng.usize(0..pieces.len())])
                .collect();
            assert_eq!(
                py_rstrip(&text),
                text.trim_end_matches(is_py_space),
                "{text:?}"
            );
        }
    }

    #[test]
    fn python_whitespace_includes_separators_but_not_zero_width_space() {
        assert!(is_py_space('\u{1c}'));
        assert!(is_py_space('\u{3000}'));
        assert!(!is_py_space('\u{200b}'));
        assert_eq!(
            py_split(" a\u{a0}b\u{200b}c\t").collect::<Vec<_>>(),
            vec!["a", "b\u{200b}c"]
        );
    }

    #[test]
    fn mteval_13a_matches_known_outputs() {
        let tok = Tokenizer::Mteval13a;
        assert_eq!(tok.tokenize("Hello, world."), "Hello , world .");
        assert_eq!(
            tok.tokenize("It costs $3.50, ok?"),
            "It costs $ 3.50 , ok ?"
        );
        assert_eq!(tok.tokenize("1990-2000 &amp; more"), "1990 - 2000 & more");
        assert_eq!(tok.tokenize("don't stop"), "don't stop");
        assert_eq!(tok.tokenize("<skipped>"), "");
    }

    fn scanned_13a(line: &str) -> Vec<String> {
        let mut tokens = Vec::new();
        tokens_13a(line, |t| tokens.push(t.to_owned()));
        tokens
    }

    fn rules_13a(line: &str) -> Vec<String> {
        py_split(&tokenize_13a_rules(py_rstrip(line)))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn scanner_13a_matches_the_rewrite_rules_on_digit_cases() {
        for line in [
            "a.,5",
            "1.,a",
            "a..b",
            "5.",
            "x....y",
            "1-2-3",
            "1--2",
            "a,,,,1",
            ".5",
            "1.5.6",
            "a.1",
            "1.a",
            ",",
            "-",
            "1-",
            "-1",
            "9.-1",
            "é.5",
            "5.é",
            "1,000.50-3",
            "a\u{a0}.b",
            "\u{3000},\u{85}1",
            "&amp;.5",
            "<skipped>.5",
            "x-\n5",
            "1\n-2",
            "",
            "   ",
            ".,.,.,",
        ] {
            assert_eq!(scanned_13a(line), rules_13a(line), "{line:?}");
        }
    }

    #[test]
    fn scanner_13a_matches_the_rewrite_rules_on_random_lines() {
        let alphabet: Vec<char> =
            "ab1 9.,-'&;<>\"$(/{~`_\t\n\u{1c}\u{a0}\u{2009}\u{3000}\u{200b}é€😀"
                .chars()
                .collect();
        let mut rng = fastrand::Rng::with_seed(13);
        for _ in 0..20_000 {
            let len = rng.usize(0..24);
            let mut line: String = (0..len)
                .map(|_| alphabet[rng.usize(0..alphabet.len())])
                .collect();
            if rng.u8(0..8) == 0 {
                line.push_str(
                    ["&amp;", "&quot;", "&lt;", "&gt;", "<skipped>", "-\n"][rng.usize(0..6)],
                );
                line.push(alphabet[rng.usize(0..alphabet.len())]);
            }
            assert_eq!(scanned_13a(&line), rules_13a(&line), "{line:?}");
        }
    }

    #[test]
    fn intl_splits_unicode_punctuation_and_symbols() {
        let tok = Tokenizer::International;
        assert_eq!(
            tok.tokenize("«Bonjour», dit-il… 3,5 €"),
            "« Bonjour » , dit - il … 3,5 €"
        );
    }

    #[test]
    fn zh_splits_han_characters_and_keeps_the_quirky_ranges() {
        let tok = Tokenizer::Chinese;
        assert_eq!(tok.tokenize("我爱NLP。"), "我 爱 NLP 。");
        assert!(is_zh_char('\u{2026}'));
        assert!(!is_zh_char('\u{20000}'));
    }

    #[test]
    fn char_and_none_tokenizers() {
        assert_eq!(Tokenizer::Character.tokenize("ab c"), "a b c");
        assert_eq!(Tokenizer::WhitespaceOnly.tokenize("  a \t b "), "a b");
    }
}
