//! The Snowball English ("Porter2") stemmer in the revision METEOR 1.5 ships
//! (`org.tartarus.snowball.ext.englishStemmer`, the algorithm of Snowball 2.2).
//!
//! It works on UTF-16 code units, as the Java original does, so that words
//! with characters outside the Basic Multilingual Plane stem identically.
//! Later Snowball releases changed the English rules (e.g. `-ogist`), which is
//! why METEOR's stemmer is reimplemented here rather than taken from a package.

/// Vowels of the `v` grouping: a e i o u y.
fn is_v(c: u16) -> bool {
    matches!(c, 0x61 | 0x65 | 0x69 | 0x6f | 0x75 | 0x79)
}

/// The `v_WXY` grouping: vowels plus w, x and Y.
fn is_v_wxy(c: u16) -> bool {
    is_v(c) || matches!(c, 0x77 | 0x78 | 0x59)
}

/// Letters that may precede a deleted `li`: c d e g h k m n r t.
fn is_valid_li(c: u16) -> bool {
    matches!(
        c,
        0x63 | 0x64 | 0x65 | 0x67 | 0x68 | 0x6b | 0x6d | 0x6e | 0x72 | 0x74
    )
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// `w` equals the ASCII string `s`.
fn is(w: &[u16], s: &str) -> bool {
    w.len() == s.len() && w.iter().zip(s.bytes()).all(|(&a, b)| a == u16::from(b))
}

/// `w` ends with the ASCII string `suffix`.
fn ends_with(w: &[u16], suffix: &str) -> bool {
    w.len() >= suffix.len() && is(&w[w.len() - suffix.len()..], suffix)
}

/// The longest entry of `table` that ends `w`, with its result code.
fn longest_suffix<'a>(w: &[u16], table: &[(&'a str, i32)]) -> Option<(&'a str, i32)> {
    table
        .iter()
        .filter(|(s, _)| ends_with(w, s))
        .max_by_key(|(s, _)| s.len())
        .copied()
}

fn replace_end(w: &mut Vec<u16>, suffix_len: usize, by: &str) {
    w.truncate(w.len() - suffix_len);
    w.extend(by.encode_utf16());
}

/// Whole-word exceptions checked before anything else.
fn exception1(w: &[u16]) -> Option<Vec<u16>> {
    const TABLE: [(&str, &str); 18] = [
        ("skis", "ski"),
        ("skies", "sky"),
        ("dying", "die"),
        ("lying", "lie"),
        ("tying", "tie"),
        ("idly", "idl"),
        ("gently", "gentl"),
        ("ugly", "ugli"),
        ("early", "earli"),
        ("only", "onli"),
        ("singly", "singl"),
        ("sky", "sky"),
        ("news", "news"),
        ("howe", "howe"),
        ("atlas", "atlas"),
        ("cosmos", "cosmos"),
        ("bias", "bias"),
        ("andes", "andes"),
    ];
    TABLE
        .iter()
        .find(|(from, _)| is(w, from))
        .map(|(_, to)| units(to))
}

/// Regions R1 and R2 (start positions; `len` when empty).
fn mark_regions(w: &[u16]) -> (usize, usize) {
    let n = w.len();
    // gopast v, gopast non-v: the position after the first non-vowel that follows a vowel
    let after_vowel_consonant = |from: usize| -> Option<usize> {
        let mut c = from;
        while c < n && !is_v(w[c]) {
            c += 1;
        }
        if c >= n {
            return None;
        }
        c += 1;
        while c < n && is_v(w[c]) {
            c += 1;
        }
        if c >= n {
            return None;
        }
        Some(c + 1)
    };
    let p1 = ["gener", "commun", "arsen"]
        .iter()
        .find(|p| w.len() >= p.len() && is(&w[..p.len()], p))
        .map(|p| p.len())
        .or_else(|| after_vowel_consonant(0));
    match p1 {
        None => (n, n),
        Some(p1) => (p1, after_vowel_consonant(p1).unwrap_or(n)),
    }
}

/// A short syllable ends `w[..end]`.
fn short_v(w: &[u16], end: usize) -> bool {
    if end >= 3 && !is_v_wxy(w[end - 1]) && is_v(w[end - 2]) && !is_v(w[end - 3]) {
        return true;
    }
    end == 2 && !is_v(w[1]) && is_v(w[0])
}

fn step_1a(w: &mut Vec<u16>) {
    if let Some((s, _)) = longest_suffix(w, &[("'", 1), ("'s'", 1), ("'s", 1)]) {
        let len = s.len();
        w.truncate(w.len() - len);
    }
    let table = [
        ("ied", 2),
        ("s", 3),
        ("ies", 2),
        ("sses", 1),
        ("ss", -1),
        ("us", -1),
    ];
    let Some((s, code)) = longest_suffix(w, &table) else {
        return;
    };
    let start = w.len() - s.len();
    match code {
        1 => replace_end(w, s.len(), "ss"),
        2 => {
            let by = if start >= 2 { "i" } else { "ie" };
            replace_end(w, s.len(), by);
        }
        // delete the s if a vowel occurs before the letter preceding it
        3 if start >= 1 && w[..start - 1].iter().any(|&c| is_v(c)) => w.truncate(start),
        _ => {}
    }
}

fn exception2(w: &[u16]) -> bool {
    [
        "succeed", "proceed", "exceed", "canning", "inning", "earring", "herring", "outing",
    ]
    .iter()
    .any(|e| is(w, e))
}

fn step_1b(w: &mut Vec<u16>, p1: usize) {
    let table = [
        ("ed", 2),
        ("eed", 1),
        ("ing", 2),
        ("edly", 2),
        ("eedly", 1),
        ("ingly", 2),
    ];
    let Some((s, code)) = longest_suffix(w, &table) else {
        return;
    };
    let start = w.len() - s.len();
    if code == 1 {
        if p1 <= start {
            replace_end(w, s.len(), "ee");
        }
        return;
    }
    if !w[..start].iter().any(|&c| is_v(c)) {
        return;
    }
    w.truncate(start);
    let doubles = ["bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"];
    if ["at", "bl", "iz"].iter().any(|s| ends_with(w, s)) {
        w.push(u16::from(b'e'));
    } else if doubles.iter().any(|s| ends_with(w, s)) {
        w.pop();
    } else if w.len() == p1 && short_v(w, w.len()) {
        w.push(u16::from(b'e'));
    }
}

fn step_1c(w: &mut [u16]) {
    let n = w.len();
    if n >= 3 && (w[n - 1] == u16::from(b'y') || w[n - 1] == u16::from(b'Y')) && !is_v(w[n - 2]) {
        w[n - 1] = u16::from(b'i');
    }
}

fn step_2(w: &mut Vec<u16>, p1: usize) {
    let table = [
        ("anci", 3),
        ("enci", 2),
        ("ogi", 13),
        ("li", 15),
        ("bli", 12),
        ("abli", 4),
        ("alli", 8),
        ("fulli", 9),
        ("lessli", 14),
        ("ousli", 10),
        ("entli", 5),
        ("aliti", 8),
        ("biliti", 12),
        ("iviti", 11),
        ("tional", 1),
        ("ational", 7),
        ("alism", 8),
        ("ation", 7),
        ("ization", 6),
        ("izer", 6),
        ("ator", 7),
        ("iveness", 11),
        ("fulness", 9),
        ("ousness", 10),
    ];
    let Some((s, code)) = longest_suffix(w, &table) else {
        return;
    };
    let start = w.len() - s.len();
    if start < p1 {
        return;
    }
    let by = match code {
        1 => "tion",
        2 => "ence",
        3 => "ance",
        4 => "able",
        5 => "ent",
        6 => "ize",
        7 => "ate",
        8 => "al",
        9 => "ful",
        10 => "ous",
        11 => "ive",
        12 => "ble",
        13 => {
            if start == 0 || w[start - 1] != u16::from(b'l') {
                return;
            }
            "og"
        }
        14 => "less",
        _ => {
            if start == 0 || !is_valid_li(w[start - 1]) {
                return;
            }
            ""
        }
    };
    replace_end(w, s.len(), by);
}

fn step_3(w: &mut Vec<u16>, p1: usize, p2: usize) {
    let table = [
        ("icate", 4),
        ("ative", 6),
        ("alize", 3),
        ("iciti", 4),
        ("ical", 4),
        ("tional", 1),
        ("ational", 2),
        ("ful", 5),
        ("ness", 5),
    ];
    let Some((s, code)) = longest_suffix(w, &table) else {
        return;
    };
    let start = w.len() - s.len();
    if start < p1 {
        return;
    }
    let by = match code {
        1 => "tion",
        2 => "ate",
        3 => "al",
        4 => "ic",
        5 => "",
        _ => {
            if start < p2 {
                return;
            }
            ""
        }
    };
    replace_end(w, s.len(), by);
}

fn step_4(w: &mut Vec<u16>, p2: usize) {
    let table = [
        ("ic", 1),
        ("ance", 1),
        ("ence", 1),
        ("able", 1),
        ("ible", 1),
        ("ate", 1),
        ("ive", 1),
        ("ize", 1),
        ("iti", 1),
        ("al", 1),
        ("ism", 1),
        ("ion", 2),
        ("er", 1),
        ("ous", 1),
        ("ant", 1),
        ("ent", 1),
        ("ment", 1),
        ("ement", 1),
    ];
    let Some((s, code)) = longest_suffix(w, &table) else {
        return;
    };
    let start = w.len() - s.len();
    if start < p2 {
        return;
    }
    if code == 2 && (start == 0 || !matches!(w[start - 1], 0x73 | 0x74)) {
        return;
    }
    w.truncate(start);
}

fn step_5(w: &mut Vec<u16>, p1: usize, p2: usize) {
    let Some(&last) = w.last() else {
        return;
    };
    let start = w.len() - 1;
    if last == u16::from(b'e') {
        if start >= p2 || (start >= p1 && !short_v(w, start)) {
            w.truncate(start);
        }
    } else if last == u16::from(b'l')
        && start >= p2
        && start >= 1
        && w[start - 1] == u16::from(b'l')
    {
        w.truncate(start);
    }
}

/// Stems one word given as UTF-16 code units.
pub fn stem_units(word: &[u16]) -> Vec<u16> {
    if let Some(out) = exception1(word) {
        return out;
    }
    if word.len() < 3 {
        return word.to_vec();
    }
    let mut w = word.to_vec();
    // prelude: drop a leading apostrophe, mark consonant-y as Y
    if w.first() == Some(&u16::from(b'\'')) {
        w.remove(0);
    }
    let mut y_found = false;
    if w.first() == Some(&u16::from(b'y')) {
        w[0] = u16::from(b'Y');
        y_found = true;
    }
    for i in 0..w.len().saturating_sub(1) {
        if is_v(w[i]) && w[i + 1] == u16::from(b'y') {
            w[i + 1] = u16::from(b'Y');
            y_found = true;
        }
    }
    let (p1, p2) = mark_regions(&w);
    step_1a(&mut w);
    if !exception2(&w) {
        step_1b(&mut w, p1);
        step_1c(&mut w);
        step_2(&mut w, p1);
        step_3(&mut w, p1, p2);
        step_4(&mut w, p2);
        step_5(&mut w, p1, p2);
    }
    if y_found {
        for c in w.iter_mut() {
            if *c == u16::from(b'Y') {
                *c = u16::from(b'y');
            }
        }
    }
    w
}

/// Stems one word (the result may contain unpaired surrogates only if the input did).
pub fn stem(word: &str) -> String {
    String::from_utf16_lossy(&stem_units(&units(word)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porter2_examples() {
        let cases = [
            ("consign", "consign"),
            ("consigned", "consign"),
            ("consigning", "consign"),
            ("consignment", "consign"),
            ("knightly", "knight"),
            ("generously", "generous"),
            ("generations", "generat"),
            ("communication", "communic"),
            ("skies", "sky"),
            ("dying", "die"),
            ("succeeding", "succeed"),
            ("ties", "tie"),
            ("cries", "cri"),
            ("gas", "gas"),
            ("gaps", "gap"),
            ("hopping", "hop"),
            ("hoping", "hope"),
            ("adding", "ad"),
            ("biologist", "biologist"),
            ("'tis", "tis"),
            ("sayings", "say"),
            ("yelling", "yell"),
            ("at", "at"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn regions() {
        assert_eq!(mark_regions(&units("beautiful")), (5, 7));
        assert_eq!(mark_regions(&units("beauty")), (5, 6));
        assert_eq!(mark_regions(&units("generous")), (5, 8));
    }

    #[test]
    fn astral_characters_count_as_two_units() {
        // a surrogate pair is two non-vowels for the Java stemmer
        assert_eq!(stem("😀ies"), "😀i");
    }
}
