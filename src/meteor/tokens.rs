//! Splitting a batch of texts into tokens and interning them as integer ids.

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::paraphrase::is_java_delimiter;
use crate::text::is_py_space;

/// How texts are split into tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Splitter {
    /// Python's `str.split()` (NLTK's METEOR on whitespace-split input).
    Python,
    /// Java's `StringTokenizer` (METEOR 1.5): space, tab, CR, LF, FF.
    Java,
}

/// Interned tokens of a batch: flat type ids, token count per text, and the types.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Interned {
    pub ids: Vec<u32>,
    pub lens: Vec<i64>,
    pub types: Vec<String>,
}

/// Splits every text and interns its tokens in first-seen order. With
/// `lower_ascii`, ASCII tokens are interned lowercased (other tokens are left
/// to the caller, whose lowercasing rules may differ from Rust's).
pub fn split_intern<S: AsRef<str>>(texts: &[S], splitter: Splitter, lower_ascii: bool) -> Interned {
    let mut index: FxHashMap<Cow<str>, u32> = FxHashMap::default();
    let mut out = Interned::default();
    out.lens.reserve(texts.len());
    for text in texts {
        let before = out.ids.len();
        let pieces = text.as_ref().split(|c| match splitter {
            Splitter::Python => is_py_space(c),
            Splitter::Java => is_java_delimiter(c),
        });
        for piece in pieces.filter(|p| !p.is_empty()) {
            let key: Cow<str> =
                if lower_ascii && piece.bytes().any(|b| b.is_ascii_uppercase()) && piece.is_ascii()
                {
                    Cow::Owned(piece.to_ascii_lowercase())
                } else {
                    Cow::Borrowed(piece)
                };
            let id = match index.get(key.as_ref()) {
                Some(&id) => id,
                None => {
                    let id = out.types.len() as u32;
                    out.types.push(key.to_string());
                    index.insert(key, id);
                    id
                }
            };
            out.ids.push(id);
        }
        out.lens.push((out.ids.len() - before) as i64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_and_java_splitting() {
        let texts = ["a b\u{a0}c", "", "b  a\x1c"];
        let py = split_intern(&texts, Splitter::Python, false);
        assert_eq!(py.types, ["a", "b", "c"]);
        assert_eq!(py.ids, [0, 1, 2, 1, 0]);
        assert_eq!(py.lens, [3, 0, 2]);
        let java = split_intern(&texts, Splitter::Java, false);
        assert_eq!(java.types, ["a", "b\u{a0}c", "b", "a\x1c"]);
        assert_eq!(java.lens, [2, 0, 2]);
        let lowered = split_intern(&["The THE the Ünï"], Splitter::Python, true);
        assert_eq!(lowered.types, ["the", "Ünï"]);
        assert_eq!(lowered.ids, [0, 0, 0, 1]);
    }
}
