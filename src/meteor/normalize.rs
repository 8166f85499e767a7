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

const ALPHA: &str = r"A-Za-z\x{160}\x{17d}\x{161}\x{17e}\x{178}\x{c0}-\x{d6}\x{d8}-\x{f6}\x{f8}-\x{17e}\x{400}-\x{4ff}\x{500}-\x{527}\x{a640}-\x{a66e}\x{a67e}-\x{a697}\x{1d00}-\x{1d7f}";

/// A nonbreaking prefix: always, or only before a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    Any,
    NumericOnly,
}

struct Patterns {
    sep_other: Regex,
    multi_dot: Regex,
    multi_dot2: Regex,
    comma: Regex,
    comma2: Regex,
    comma3: Regex,
    quote: Regex,
    quote2: Regex,
    rm_dash: Regex,
    cont: [Regex; 5],
    punct: Regex,
    white: Regex,
    has_alpha: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let re = |p: String| Regex::new(&p).expect("valid METEOR normalizer pattern");
        let alnum = format!("0-9{ALPHA}");
        Patterns {
            sep_other: re(format!(
                r"([^{alnum} \t\n\x0B\x0C\r.'`,\-\x{{2018}}\x{{2019}}])"
            )),
            multi_dot: re(r"\.(\.+)".into()),
            multi_dot2: re(r"DOTMULTI\.([^.])".into()),
            comma: re("([^0-9]),([^0-9])".into()),
            comma2: re("([0-9]),([^0-9])".into()),
            comma3: re("([^0-9]),([0-9])".into()),
            quote: re(r"[`\x{2018}\x{2019}]".into()),
            quote2: re(r"[\x{201c}\x{201d}]|''".into()),
            rm_dash: re(format!(r"([{alnum}.])-([{alnum}])")),
            cont: [
                re(format!("([^{ALPHA}])'([^{ALPHA}])")),
                re(format!("([^{ALPHA}0-9])'([{ALPHA}])")),
                re(format!("([{ALPHA}])'([^{ALPHA}])")),
                re(format!("([{ALPHA}])'([{ALPHA}])")),
                re("([0-9])'(s)".into()),
            ],
            punct: re(format!("[^{alnum}]")),
            white: re(r"[ \x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}\x{a0}]+".into()),
            has_alpha: re(format!("[{ALPHA}]")),
        }
    })
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

/// The first character of `s` and the rest.
fn first_char(s: &str) -> (&str, &str) {
    let n = s.chars().next().map_or(0, char::len_utf8);
    s.split_at(n)
}

/// The last character of `s` and what precedes it.
fn last_char(s: &str) -> (&str, &str) {
    let n = s.chars().next_back().map_or(0, char::len_utf8);
    let (rest, last) = s.split_at(s.len() - n);
    (last, rest)
}

/// A match `(x)<sep>(y)` of one character each side, replaced by `x`, `by`, `y`.
fn around(m: &str, by: &str, out: &mut String) {
    let (x, _) = first_char(m);
    let (y, _) = last_char(m);
    out.push_str(x);
    out.push_str(by);
    out.push_str(y);
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
    // ([^...]) -> " $1 " (one character)
    work = sub_with(&p.sep_other, work, |m, out| {
        out.push(' ');
        out.push_str(m);
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
        for comma in [&p.comma, &p.comma2, &p.comma3] {
            work = sub_with(comma, work, |m, out| around(m, " , ", out));
        }
    }
    work = sub(&p.quote, work, "'");
    work = sub(&p.quote2, work, " \" ");
    if work.contains('\u{2013}') {
        work = work.replace('\u{2013}', "-");
    }
    if work.contains("--") {
        work = work.replace("--", "-");
    }
    if work.contains('-') {
        // (x)-(y) -> "$1 $2"
        work = sub_with(&p.rm_dash, work, |m, out| around(m, " ", out));
    }
    if work.contains('\'') {
        // (x)'(y) -> "$1 ' $2", then "$1 '$2"
        for (k, cont) in p.cont.iter().enumerate() {
            let by = if k < 3 { " ' " } else { " '" };
            work = sub_with(cont, work, |m, out| around(m, by, out));
        }
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
            if pre.contains('.') && p.has_alpha.is_match(pre) {
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
        work = sub(&p.punct, work, " ");
    }
    java_trim(&sub(&p.white, work, " ")).to_string()
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
