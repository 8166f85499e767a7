//! METEOR 1.5's `-norm` tokenization for English (`edu.cmu.meteor.util.Normalizer`).
//!
//! A Moses-style tokenizer with METEOR's additions (quote and dash normalisation,
//! `U.S.` -> `US`, dashes between words split). The patterns are Java's: `\s` is
//! ASCII whitespace and digits/lowercase letters are ASCII only, so they are
//! spelled out as explicit classes. Lowercasing is left to the caller.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use super::paraphrase::is_java_delimiter;

/// The letters of METEOR's patterns, as a regex class ([`is_alpha`] decides them).
#[cfg(test)]
const ALPHA: &str = r"A-Za-z\x{160}\x{17d}\x{161}\x{17e}\x{178}\x{c0}-\x{d6}\x{d8}-\x{f6}\x{f8}-\x{17e}\x{400}-\x{4ff}\x{500}-\x{527}\x{a640}-\x{a66e}\x{a67e}-\x{a697}\x{1d00}-\x{1d7f}";

/// A nonbreaking prefix: always, or only before a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    Any,
    NumericOnly,
}

struct Patterns {
    multi_dot: Regex,
    multi_dot2: Regex,
    quote2: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let re = |p: String| Regex::new(&p).expect("valid METEOR normalizer pattern");
        Patterns {
            multi_dot: re(r"\.(\.+)".into()),
            multi_dot2: re(r"DOTMULTI\.([^.])".into()),
            quote2: re(r"[\x{201c}\x{201d}]|''".into()),
        }
    })
}

/// A letter of METEOR's patterns (ASCII letters, Latin-1 and Latin Extended-A
/// letters, Cyrillic, phonetic extensions: the class `ALPHA` spells out).
#[inline]
fn is_alpha(c: char) -> bool {
    matches!(c,
        'A'..='Z' | 'a'..='z' | '\u{160}' | '\u{17d}' | '\u{161}' | '\u{17e}' | '\u{178}'
        | '\u{c0}'..='\u{d6}' | '\u{d8}'..='\u{f6}' | '\u{f8}'..='\u{17e}' | '\u{400}'..='\u{4ff}'
        | '\u{500}'..='\u{527}' | '\u{a640}'..='\u{a66e}' | '\u{a67e}'..='\u{a697}'
        | '\u{1d00}'..='\u{1d7f}')
}

/// `[0-9]` or [`is_alpha`].
#[inline]
fn is_alnum(c: char) -> bool {
    c.is_ascii_digit() || is_alpha(c)
}

/// What `sep_other` matches: not alphanumeric, whitespace, `.'`,-` or a single quote mark.
#[inline]
fn is_sep_other(c: char) -> bool {
    !(is_alnum(c)
        || matches!(
            c,
            ' ' | '\t'
                | '\n'
                | '\u{0b}'
                | '\u{0c}'
                | '\r'
                | '.'
                | '\''
                | '`'
                | ','
                | '-'
                | '\u{2018}'
                | '\u{2019}'
        ))
}

/// What `white` matches, one character of a run.
#[inline]
fn is_white(c: char) -> bool {
    matches!(
        c,
        ' ' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{a0}'
    )
}

/// Each character `c` with `hit(c)` replaced by `by(c, out)` (a one-character pattern).
fn map_chars(text: String, hit: impl Fn(char) -> bool, by: impl Fn(char, &mut String)) -> String {
    let mut out: Option<String> = None;
    let mut last = 0;
    for (i, c) in text.char_indices().filter(|&(_, c)| hit(c)) {
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 32));
        o.push_str(&text[last..i]);
        by(c, o);
        last = i + c.len_utf8();
    }
    match out {
        None => text,
        Some(mut o) => {
            o.push_str(&text[last..]);
            o
        }
    }
}

/// `replace_all` of the pattern `(x)<mid>(y)` (one character each, `x` with
/// `left`, `y` with `right`) by `x`, `by`, `y`. The regex finds the leftmost
/// window, then the next from its end: so each occurrence of `mid`, in order,
/// is a match if its neighbours fit and its window starts after the last one.
fn sub3(
    text: String,
    left: impl Fn(char) -> bool,
    mid: char,
    right: impl Fn(char) -> bool,
    by: &str,
) -> String {
    let mut out: Option<String> = None;
    let mut last = 0;
    for (k, _) in text.match_indices(mid) {
        let Some(x) = text[..k].chars().next_back() else {
            continue;
        };
        let start = k - x.len_utf8();
        let after = k + mid.len_utf8();
        let Some(y) = text[after..].chars().next() else {
            continue;
        };
        if start < last || !left(x) || !right(y) {
            continue;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 32));
        o.push_str(&text[last..start]);
        o.push(x);
        o.push_str(by);
        o.push(y);
        last = after + y.len_utf8();
    }
    match out {
        None => text,
        Some(mut o) => {
            o.push_str(&text[last..]);
            o
        }
    }
}

/// `re.replace_all` that keeps `text` when nothing matches (no copy).
fn sub(re: &Regex, text: String, by: &str) -> String {
    match re.replace_all(&text, by) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(out) => out,
    }
}

/// `re.replace_all(text, by)` for a pattern whose groups are what its match
/// keeps around a middle part: `replace(match, out)` writes the replacement of
/// one match, computed from the matched text alone. Matches are found without
/// capture groups (the regex engines' fast path), leftmost-first and
/// non-overlapping, exactly as `replace_all` finds them.
fn sub_with(re: &Regex, text: String, mut replace: impl FnMut(&str, &mut String)) -> String {
    let mut found = re.find_iter(&text).peekable();
    if found.peek().is_none() {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for m in found {
        out.push_str(&text[last..m.start()]);
        replace(m.as_str(), &mut out);
        last = m.end();
    }
    out.push_str(&text[last..]);
    out
}

/// Java's `String.trim`: strips characters up to U+0020 from both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Normalizes one line as METEOR 1.5 does for English (before lowercasing).
/// (The content tests only skip passes that could not change the text.)
pub fn normalize_line(
    line: &str,
    keep_punctuation: bool,
    prefixes: &HashMap<String, Prefix>,
) -> String {
    let p = patterns();
    let mut work = format!(" {line} ");
    // sep_other: ([^...]) -> " $1 " (one character)
    work = map_chars(work, is_sep_other, |c, out| {
        out.push(' ');
        out.push(c);
        out.push(' ');
    });
    if work.contains("..") {
        // \.(\.+) -> " DOTMULTI$1"
        work = sub_with(&p.multi_dot, work, |m, out| {
            out.push_str(" DOTMULTI");
            out.push_str(&m[1..]);
        });
    }
    // (the input itself may contain "DOTMULTI.", as METEOR does not escape it)
    while work.contains("DOTMULTI.") {
        // DOTMULTI\.([^.]) -> "DOTDOTMULTI $1"
        work = sub_with(&p.multi_dot2, work, |m, out| {
            out.push_str("DOTDOTMULTI ");
            out.push_str(&m["DOTMULTI.".len()..]);
        });
        work = work.replace("DOTMULTI.", "DOTDOTMULTI");
    }
    if work.contains(',') {
        // (x),(y) -> "$1 , $2"
        let digit = |c: char| c.is_ascii_digit();
        let other = |c: char| !c.is_ascii_digit();
        work = sub3(work, other, ',', other, " , "); // ([^0-9]),([^0-9])
        work = sub3(work, digit, ',', other, " , "); // ([0-9]),([^0-9])
        work = sub3(work, other, ',', digit, " , "); // ([^0-9]),([0-9])
    }
    // quote: [`\u2018\u2019] -> '
    work = map_chars(
        work,
        |c| matches!(c, '`' | '\u{2018}' | '\u{2019}'),
        |_, out| out.push('\''),
    );
    // quote2: [\u201c\u201d]|'' -> " \" "
    if work.contains(['\u{201c}', '\u{201d}']) || work.contains("''") {
        work = sub(&p.quote2, work, " \" ");
    }
    if work.contains('\u{2013}') {
        work = work.replace('\u{2013}', "-");
    }
    if work.contains("--") {
        work = work.replace("--", "-");
    }
    if work.contains('-') {
        // (x)-(y) -> "$1 $2"
        work = sub3(work, |c| is_alnum(c) || c == '.', '-', is_alnum, " ");
    }
    if work.contains('\'') {
        // (x)'(y) -> "$1 ' $2", then "$1 '$2"
        let not_alpha = |c: char| !is_alpha(c);
        work = sub3(work, not_alpha, '\'', not_alpha, " ' ");
        work = sub3(work, |c| !is_alnum(c), '\'', is_alpha, " ' ");
        work = sub3(work, is_alpha, '\'', not_alpha, " ' ");
        work = sub3(work, is_alpha, '\'', is_alpha, " '");
        work = sub3(work, |c| c.is_ascii_digit(), '\'', |c| c == 's', " '");
    }

    let words: Vec<&str> = work
        .split(is_java_delimiter)
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = String::with_capacity(work.len() + 8);
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1);
        if word.len() > 1 && word.ends_with('.') {
            let pre = &word[..word.len() - 1];
            let kind = prefixes.get(pre).copied();
            let next_lower = next.is_some_and(|w| w.starts_with(|c: char| c.is_ascii_lowercase()));
            let next_digit = next.is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()));
            if pre.contains('.') && pre.contains(is_alpha) {
                out.push_str(&word.replace('.', ""));
            } else if kind == Some(Prefix::Any)
                || next_lower
                || (kind == Some(Prefix::NumericOnly) && next_digit)
            {
                out.push_str(word);
            } else {
                out.push_str(pre);
                out.push_str(" .");
            }
        } else {
            out.push_str(word);
        }
        out.push(' ');
    }
    work = out;
    while work.contains("DOTDOTMULTI") {
        work = work.replace("DOTDOTMULTI", "DOTMULTI.");
    }
    if work.contains("DOTMULTI") {
        work = work.replace("DOTMULTI", ".");
    }
    if !keep_punctuation {
        work = map_chars(work, |c| !is_alnum(c), |_, out| out.push(' '));
    }
    // white: runs of [ \u2000-\u200a\u202f\u205f\u3000\u00a0] -> " "
    let mut out = String::with_capacity(work.len());
    let mut last = 0;
    let mut run_end = usize::MAX;
    for (i, c) in work.char_indices().filter(|&(_, c)| is_white(c)) {
        if i != run_end {
            out.push_str(&work[last..i]);
            out.push(' ');
        }
        run_end = i + c.len_utf8();
        last = run_end;
    }
    out.push_str(&work[last..]);
    java_trim(&out).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefixes() -> HashMap<String, Prefix> {
        [("Mr", Prefix::Any), ("No", Prefix::NumericOnly)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    #[test]
    fn character_classes_equal_the_patterns() {
        let alpha = Regex::new(&format!("^[{ALPHA}]$")).unwrap();
        let sep = Regex::new(&format!(
            r"^[^0-9{ALPHA} \t\n\x0B\x0C\r.'`,\-\x{{2018}}\x{{2019}}]$"
        ))
        .unwrap();
        let white = Regex::new(r"^[ \x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}\x{a0}]$").unwrap();
        for c in (0..0x3_0000u32).filter_map(char::from_u32) {
            let s = c.to_string();
            assert_eq!(is_alpha(c), alpha.is_match(&s), "{c:?}");
            assert_eq!(is_sep_other(c), sep.is_match(&s), "{c:?}");
            assert_eq!(is_white(c), white.is_match(&s), "{c:?}");
        }
    }

    #[test]
    fn english_examples() {
        let cases = [
            (
                "The U.S.-based firm's \u{201c}new\u{201d} plan, e.g. Mr. Smith's -- isn't it?",
                "The US based firm 's \" new \" plan , eg Mr. Smith 's - isn 't it ?",
            ),
            (
                "No. 5 and No. Five. Wow...",
                "No. 5 and No . Five . Wow ...",
            ),
            ("3,000 a,b 1990's", "3,000 a , b 1990 's"),
            ("", ""),
            ("DOTMULTI.x", ".. x"),
            ("DOTMULTI..y and a..b", ". .. y and a .. b"),
        ];
        for (line, expected) in cases {
            assert_eq!(normalize_line(line, true, &prefixes()), expected, "{line}");
        }
        assert_eq!(normalize_line("a, b! c's", false, &prefixes()), "a b c s");
    }
}
