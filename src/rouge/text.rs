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

/// NLTK's `PorterStemmer().stem(word)` for a lowercase ASCII word; other words are
/// returned unchanged (the Unicode tokenizer stems only ASCII tokens: Porter is English).
pub fn porter_stem(word: &str) -> String {
    if !word.is_ascii() {
        return word.to_owned();
    }
    crate::text::porter::stem(word)
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
