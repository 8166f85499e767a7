//! Text handling for ROUGE: the tokenizers and NLTK's Porter stemmer.
//!
//! * `rouge-score`: exactly Google's rouge-score 0.1.2 (`tokenize.tokenize`):
//!   Python's `str.lower()`, every character outside `[a-z0-9]` becomes a
//!   separator. Only two non-ASCII characters lowercase to something containing
//!   ASCII letters in Python: U+0130 (`İ` -> `i` + U+0307) and U+212A (Kelvin
//!   sign -> `k`); they are handled explicitly.
//! * `unicode`: the same tokens on ASCII text, but letters, marks and digits of
//!   every script are kept; characters of scripts written without spaces (Han,
//!   Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) are one token each, with
//!   their combining marks.
//!
//! The stemmer is NLTK's `PorterStemmer()` in its default `NLTK_EXTENSIONS`
//! mode (what rouge-score uses), applied, as rouge-score does, only to tokens
//! longer than three characters.

use regex::Regex;
use std::sync::OnceLock;

/// The ROUGE tokenizers implemented natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RougeTokenizer {
    /// rouge-score 0.1.2: lowercase ASCII letters and digits only.
    RougeScore,
    /// Unicode-aware: letters, marks and digits of every script.
    Unicode,
}

impl RougeTokenizer {
    /// Looks a tokenizer up by name (`rouge-score` or `unicode`).
    pub fn from_name(name: &str) -> Option<RougeTokenizer> {
        match name {
            "rouge-score" => Some(RougeTokenizer::RougeScore),
            "unicode" => Some(RougeTokenizer::Unicode),
            _ => None,
        }
    }

    /// Tokens of `text`, stemmed when `stem` is set.
    pub fn tokenize(self, text: &str, stem: bool) -> Vec<String> {
        let mut tokens = match self {
            RougeTokenizer::RougeScore => tokenize_rouge_score(text),
            RougeTokenizer::Unicode => tokenize_unicode(text),
        };
        if stem {
            for token in tokens.iter_mut() {
                // rouge-score stems tokens of more than 3 characters; the
                // Unicode tokenizer stems only ASCII tokens (Porter is English).
                if token.len() > 3 && token.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    *token = porter_stem(token);
                }
            }
        }
        tokens
    }
}

impl RougeTokenizer {
    /// `text` rewritten so that its tokens are separated by spaces and contain none
    /// (lowercased, separators replaced); [`Self::tokenize`] without stemming is
    /// `prepare(text).split(' ')` minus the empty pieces.
    pub fn prepare(self, text: &str) -> String {
        if text.is_ascii() {
            let mut bytes = text.as_bytes().to_vec();
            for b in bytes.iter_mut() {
                *b = if b.is_ascii_alphanumeric() {
                    b.to_ascii_lowercase()
                } else {
                    b' '
                };
            }
            return String::from_utf8(bytes).expect("ASCII stays ASCII");
        }
        match self {
            RougeTokenizer::RougeScore => tokenize_rouge_score(text).join(" "),
            RougeTokenizer::Unicode => tokenize_unicode(text).join(" "),
        }
    }
}

/// Stems `word` as [`RougeTokenizer::tokenize`] does (ASCII tokens of more than 3 characters).
pub fn stem_token(word: &str) -> String {
    if word.len() > 3 && word.bytes().all(|b| b.is_ascii_alphanumeric()) {
        porter_stem(word)
    } else {
        word.to_owned()
    }
}

/// rouge-score's tokenizer (without stemming).
pub fn tokenize_rouge_score(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, tokens: &mut Vec<String>| {
        if !current.is_empty() {
            tokens.push(std::mem::take(current));
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        } else if c == '\u{212a}' {
            current.push('k');
        } else if c == '\u{130}' {
            // lowercases to "i" + U+0307 (a separator)
            current.push('i');
            flush(&mut current, &mut tokens);
        } else {
            flush(&mut current, &mut tokens);
        }
    }
    flush(&mut current, &mut tokens);
    tokens
}

const UNSPACED: &str = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}";

fn unicode_token_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let pattern = format!(r"[{UNSPACED}]\p{{M}}*|[[\p{{L}}\p{{M}}\p{{N}}]--[{UNSPACED}]]+");
        Regex::new(&pattern).expect("unicode token pattern compiles")
    })
}

/// The Unicode-aware tokenizer (without stemming).
pub fn tokenize_unicode(text: &str) -> Vec<String> {
    let lowered = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        text.to_lowercase()
    };
    if lowered.is_ascii() {
        // fast path with the same result as the regex on ASCII
        return tokenize_rouge_score(&lowered);
    }
    unicode_token_regex()
        .find_iter(&lowered)
        .map(|m| m.as_str().to_owned())
        .collect()
}

// ---------------------------------------------------------------------------
// NLTK's PorterStemmer (mode NLTK_EXTENSIONS), on lowercase ASCII words.

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// NLTK's `_is_consonant`.
fn is_consonant(word: &[u8], mut i: usize) -> bool {
    if is_vowel(word[i]) {
        return false;
    }
    if word[i] == b'y' {
        let mut negate = false;
        while i > 0 && word[i] == b'y' {
            negate = !negate;
            i -= 1;
        }
        return is_vowel(word[i]) == negate;
    }
    true
}

/// Consonant flags of every position (NLTK's `_consonant_flags`).
fn consonant_flags(word: &[u8]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(word.len());
    for (i, &b) in word.iter().enumerate() {
        let flag = if is_vowel(b) {
            false
        } else if b == b'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(flag);
    }
    flags
}

fn measure(stem: &[u8]) -> usize {
    let flags = consonant_flags(stem);
    flags.windows(2).filter(|w| !w[0] && w[1]).count()
}

fn contains_vowel(stem: &[u8]) -> bool {
    consonant_flags(stem).iter().any(|&c| !c)
}

fn ends_double_consonant(word: &[u8]) -> bool {
    let n = word.len();
    n >= 2 && word[n - 1] == word[n - 2] && is_consonant(word, n - 1)
}

fn ends_cvc(word: &[u8]) -> bool {
    let n = word.len();
    (n >= 3
        && is_consonant(word, n - 3)
        && !is_consonant(word, n - 2)
        && is_consonant(word, n - 1)
        && !matches!(word[n - 1], b'w' | b'x' | b'y'))
        || (n == 2 && !is_consonant(word, 0) && is_consonant(word, 1))
}

fn cat(stem: &[u8], suffix: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(stem.len() + suffix.len());
    out.extend_from_slice(stem);
    out.extend_from_slice(suffix);
    out
}

type Condition<'a> = &'a dyn Fn(&[u8]) -> bool;

/// A suffix rule: suffix (`*d` = double consonant), replacement, condition.
type Rule<'a> = (&'a [u8], &'a [u8], Option<Condition<'a>>);

/// NLTK's `_apply_rule_list`: the first rule whose suffix matches decides.
fn apply_rules(word: &[u8], rules: &[Rule<'_>]) -> Vec<u8> {
    for (suffix, replacement, condition) in rules {
        if *suffix == b"*d" && ends_double_consonant(word) {
            let stem = &word[..word.len() - 2];
            return match condition {
                Some(cond) if !cond(stem) => word.to_vec(),
                _ => cat(stem, replacement),
            };
        }
        if word.ends_with(suffix) {
            let stem = &word[..word.len() - suffix.len()];
            return match condition {
                Some(cond) if !cond(stem) => word.to_vec(),
                _ => cat(stem, replacement),
            };
        }
    }
    word.to_vec()
}

fn positive_measure(stem: &[u8]) -> bool {
    measure(stem) > 0
}

fn measure_gt_1(stem: &[u8]) -> bool {
    measure(stem) > 1
}

fn step1a(word: &[u8]) -> Vec<u8> {
    if word.ends_with(b"ies") && word.len() == 4 {
        return cat(&word[..1], b"ie");
    }
    apply_rules(
        word,
        &[
            (b"sses", b"ss", None),
            (b"ies", b"i", None),
            (b"ss", b"ss", None),
            (b"s", b"", None),
        ],
    )
}

fn step1b(word: &[u8]) -> Vec<u8> {
    if word.ends_with(b"ied") {
        let stem = &word[..word.len() - 3];
        return if word.len() == 4 {
            cat(stem, b"ie")
        } else {
            cat(stem, b"i")
        };
    }
    if word.ends_with(b"eed") {
        let stem = &word[..word.len() - 3];
        return if measure(stem) > 0 {
            cat(stem, b"ee")
        } else {
            word.to_vec()
        };
    }
    let mut intermediate: Option<&[u8]> = None;
    for suffix in [&b"ed"[..], &b"ing"[..]] {
        if word.ends_with(suffix) {
            let stem = &word[..word.len() - suffix.len()];
            if contains_vowel(stem) {
                intermediate = Some(stem);
                break;
            }
        }
    }
    let Some(stem) = intermediate else {
        return word.to_vec();
    };
    let last = [stem[stem.len() - 1]];
    let not_lsz = |_: &[u8]| !matches!(last[0], b'l' | b's' | b'z');
    let add_e = |s: &[u8]| measure(s) == 1 && ends_cvc(s);
    apply_rules(
        stem,
        &[
            (b"at", b"ate", None),
            (b"bl", b"ble", None),
            (b"iz", b"ize", None),
            (b"*d", &last, Some(&not_lsz)),
            (b"", b"e", Some(&add_e)),
        ],
    )
}

fn step1c(word: &[u8]) -> Vec<u8> {
    let cond = |stem: &[u8]| stem.len() > 1 && is_consonant(stem, stem.len() - 1);
    apply_rules(word, &[(b"y", b"i", Some(&cond))])
}

fn step2(word: &[u8]) -> Vec<u8> {
    if word.ends_with(b"alli") && positive_measure(&word[..word.len() - 4]) {
        return step2(&cat(&word[..word.len() - 4], b"al"));
    }
    let m: Condition = &positive_measure;
    let logi = |_: &[u8]| positive_measure(&word[..word.len() - 3]);
    apply_rules(
        word,
        &[
            (b"ational", b"ate", Some(m)),
            (b"tional", b"tion", Some(m)),
            (b"enci", b"ence", Some(m)),
            (b"anci", b"ance", Some(m)),
            (b"izer", b"ize", Some(m)),
            (b"bli", b"ble", Some(m)),
            (b"alli", b"al", Some(m)),
            (b"entli", b"ent", Some(m)),
            (b"eli", b"e", Some(m)),
            (b"ousli", b"ous", Some(m)),
            (b"ization", b"ize", Some(m)),
            (b"ation", b"ate", Some(m)),
            (b"ator", b"ate", Some(m)),
            (b"alism", b"al", Some(m)),
            (b"iveness", b"ive", Some(m)),
            (b"fulness", b"ful", Some(m)),
            (b"ousness", b"ous", Some(m)),
            (b"aliti", b"al", Some(m)),
            (b"iviti", b"ive", Some(m)),
            (b"biliti", b"ble", Some(m)),
            (b"fulli", b"ful", Some(m)),
            (b"logi", b"log", Some(&logi)),
        ],
    )
}

fn step3(word: &[u8]) -> Vec<u8> {
    let m: Condition = &positive_measure;
    apply_rules(
        word,
        &[
            (b"icate", b"ic", Some(m)),
            (b"ative", b"", Some(m)),
            (b"alize", b"al", Some(m)),
            (b"iciti", b"ic", Some(m)),
            (b"ical", b"ic", Some(m)),
            (b"ful", b"", Some(m)),
            (b"ness", b"", Some(m)),
        ],
    )
}

fn step4(word: &[u8]) -> Vec<u8> {
    let m: Condition = &measure_gt_1;
    let ion = |stem: &[u8]| measure(stem) > 1 && matches!(stem.last(), Some(b's' | b't'));
    apply_rules(
        word,
        &[
            (b"al", b"", Some(m)),
            (b"ance", b"", Some(m)),
            (b"ence", b"", Some(m)),
            (b"er", b"", Some(m)),
            (b"ic", b"", Some(m)),
            (b"able", b"", Some(m)),
            (b"ible", b"", Some(m)),
            (b"ant", b"", Some(m)),
            (b"ement", b"", Some(m)),
            (b"ment", b"", Some(m)),
            (b"ent", b"", Some(m)),
            (b"ion", b"", Some(&ion)),
            (b"ou", b"", Some(m)),
            (b"ism", b"", Some(m)),
            (b"ate", b"", Some(m)),
            (b"iti", b"", Some(m)),
            (b"ous", b"", Some(m)),
            (b"ive", b"", Some(m)),
            (b"ize", b"", Some(m)),
        ],
    )
}

fn step5a(word: &[u8]) -> Vec<u8> {
    if let Some(stem) = word.strip_suffix(b"e") {
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            return stem.to_vec();
        }
    }
    word.to_vec()
}

fn step5b(word: &[u8]) -> Vec<u8> {
    let cond = |_: &[u8]| measure(&word[..word.len() - 1]) > 1;
    apply_rules(word, &[(b"ll", b"l", Some(&cond))])
}

fn irregular(word: &str) -> Option<&'static str> {
    Some(match word {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

/// NLTK's `PorterStemmer().stem(word)` for a lowercase ASCII word.
pub fn porter_stem(word: &str) -> String {
    if let Some(stem) = irregular(word) {
        return stem.to_owned();
    }
    if word.len() <= 2 || !word.is_ascii() {
        return word.to_owned();
    }
    let mut w = step1a(word.as_bytes());
    w = step1b(&w);
    w = step1c(&w);
    w = step2(&w);
    w = step3(&w);
    w = step4(&w);
    w = step5a(&w);
    w = step5b(&w);
    String::from_utf8(w).expect("ASCII in, ASCII out")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_score_tokenizer_keeps_ascii_alphanumerics_only() {
        assert_eq!(
            tokenize_rouge_score("The cat's 3.14 naïve-ĲSSEL!"),
            vec!["the", "cat", "s", "3", "14", "na", "ve", "ssel"]
        );
        assert_eq!(
            tokenize_rouge_score("İstanbul \u{212a}elvin"),
            vec!["i", "stanbul", "kelvin"]
        );
        assert!(tokenize_rouge_score("日本語 ภาษาไทย").is_empty());
    }

    #[test]
    fn unicode_tokenizer_keeps_every_script() {
        assert_eq!(tokenize_unicode("The CAT, sat."), vec!["the", "cat", "sat"]);
        assert_eq!(tokenize_unicode("Café naïve"), vec!["café", "naïve"]);
        assert_eq!(tokenize_unicode("我们好 ok"), vec!["我", "们", "好", "ok"]);
        assert_eq!(tokenize_unicode("नमस्ते दुनिया"), vec!["नमस्ते", "दुनिया"]);
        assert_eq!(tokenize_unicode("ภาษา"), vec!["ภ", "า", "ษ", "า"]);
        assert_eq!(tokenize_unicode("ΣΟΦΟΣ"), vec!["σοφος"]);
    }

    #[test]
    fn porter_matches_known_nltk_stems() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("sitting", "sit"),
            ("dying", "die"),
            ("running", "run"),
            ("controlling", "control"),
            ("analogically", "analog"),
            ("spied", "spi"),
            ("died", "die"),
        ];
        for (word, stem) in cases {
            assert_eq!(porter_stem(word), stem, "{word}");
        }
    }

    #[test]
    fn prepare_separates_tokens_with_spaces() {
        for tok in [RougeTokenizer::RougeScore, RougeTokenizer::Unicode] {
            for text in ["The CAT, sat.", "İstanbul café 我们 x_y", ""] {
                let prepared = tok.prepare(text);
                let pieces: Vec<&str> = prepared.split(' ').filter(|t| !t.is_empty()).collect();
                assert_eq!(pieces, tok.tokenize(text, false), "{text}");
            }
        }
    }

    #[test]
    fn stemming_applies_to_long_ascii_tokens_only() {
        let tok = RougeTokenizer::Unicode;
        assert_eq!(
            tok.tokenize("cats sat running cafés", true),
            vec!["cat", "sat", "run", "cafés"]
        );
    }
}
