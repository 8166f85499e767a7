//! NLTK's Porter stemmer (`nltk.stem.porter.PorterStemmer`, mode `NLTK_EXTENSIONS`),
//! shared by NLTK's METEOR and rouge-score. Words are sequences of Unicode code points, as in
//! Python; callers pass words already lowercased with Python's `str.lower`.

type Word = Vec<char>;

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Consonant flag of every position (`y` is a consonant at the start or after a vowel).
fn consonant_flags(w: &[char]) -> impl Iterator<Item = bool> + '_ {
    let mut previous = false;
    w.iter().enumerate().map(move |(i, &c)| {
        let flag = if is_vowel(c) {
            false
        } else if c == 'y' {
            i == 0 || !previous
        } else {
            true
        };
        previous = flag;
        flag
    })
}

fn is_consonant(w: &[char], i: usize) -> bool {
    consonant_flags(&w[..=i])
        .last()
        .expect("i is a valid index")
}

/// The number of vowel-consonant sequences.
fn measure(stem: &[char]) -> usize {
    let mut count = 0;
    let mut previous = true;
    for flag in consonant_flags(stem) {
        if flag && !previous {
            count += 1;
        }
        previous = flag;
    }
    count
}

fn contains_vowel(stem: &[char]) -> bool {
    consonant_flags(stem).any(|c| !c)
}

fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

/// `w` ends with the ASCII string `suffix`.
fn ends_with(w: &[char], suffix: &str) -> bool {
    w.len() >= suffix.len()
        && w[w.len() - suffix.len()..]
            .iter()
            .zip(suffix.bytes())
            .all(|(&a, b)| a == char::from(b))
}

fn strip(w: &[char], suffix: &str) -> Word {
    w[..w.len() - suffix.len()].to_vec()
}

fn join(stem: &[char], tail: &str) -> Word {
    let mut out = stem.to_vec();
    out.extend(tail.chars());
    out
}

type Condition = fn(&[char], &[char]) -> bool;

/// NLTK's `_apply_rule_list`: the first rule whose suffix ends the word decides.
/// A condition sees `(stem, word)`.
fn apply_rules(w: &[char], rules: &[(&str, &str, Option<Condition>)]) -> Word {
    for &(suffix, replacement, condition) in rules {
        if ends_with(w, suffix) {
            let stem = strip(w, suffix);
            return match condition {
                Some(cond) if !cond(&stem, w) => w.to_vec(),
                _ => join(&stem, replacement),
            };
        }
    }
    w.to_vec()
}

fn positive_measure(stem: &[char], _word: &[char]) -> bool {
    measure(stem) > 0
}

fn measure_gt_1(stem: &[char], _word: &[char]) -> bool {
    measure(stem) > 1
}

fn step1a(w: &[char]) -> Word {
    if ends_with(w, "ies") && w.len() == 4 {
        return join(&strip(w, "ies"), "ie");
    }
    apply_rules(
        w,
        &[
            ("sses", "ss", None),
            ("ies", "i", None),
            ("ss", "ss", None),
            ("s", "", None),
        ],
    )
}

fn step1b(w: &[char]) -> Word {
    if ends_with(w, "ied") {
        let tail = if w.len() == 4 { "ie" } else { "i" };
        return join(&strip(w, "ied"), tail);
    }
    if ends_with(w, "eed") {
        let stem = strip(w, "eed");
        return if measure(&stem) > 0 {
            join(&stem, "ee")
        } else {
            w.to_vec()
        };
    }
    let mut intermediate = None;
    for suffix in ["ed", "ing"] {
        if ends_with(w, suffix) {
            let stem = strip(w, suffix);
            if contains_vowel(&stem) {
                intermediate = Some(stem);
                break;
            }
        }
    }
    let Some(s) = intermediate else {
        return w.to_vec();
    };
    for (suffix, replacement) in [("at", "ate"), ("bl", "ble"), ("iz", "ize")] {
        if ends_with(&s, suffix) {
            return join(&strip(&s, suffix), replacement);
        }
    }
    let last = *s.last().expect("a stem with a vowel is not empty");
    // the "*d" rule; NLTK also takes a literal "*d" ending for it
    if ends_double_consonant(&s) || ends_with(&s, "*d") {
        return if matches!(last, 'l' | 's' | 'z') {
            s
        } else {
            let mut out = s[..s.len() - 2].to_vec();
            out.push(last);
            out
        };
    }
    if measure(&s) == 1 && ends_cvc(&s) {
        join(&s, "e")
    } else {
        s
    }
}

fn step1c(w: &[char]) -> Word {
    fn cond(stem: &[char], _w: &[char]) -> bool {
        stem.len() > 1 && is_consonant(stem, stem.len() - 1)
    }
    apply_rules(w, &[("y", "i", Some(cond))])
}

fn step2(w: &[char]) -> Word {
    if ends_with(w, "alli") && measure(&strip(w, "alli")) > 0 {
        return step2(&join(&strip(w, "alli"), "al"));
    }
    fn logi(_stem: &[char], word: &[char]) -> bool {
        measure(&word[..word.len() - 3]) > 0
    }
    let p: Option<Condition> = Some(positive_measure);
    apply_rules(
        w,
        &[
            ("ational", "ate", p),
            ("tional", "tion", p),
            ("enci", "ence", p),
            ("anci", "ance", p),
            ("izer", "ize", p),
            ("bli", "ble", p),
            ("alli", "al", p),
            ("entli", "ent", p),
            ("eli", "e", p),
            ("ousli", "ous", p),
            ("ization", "ize", p),
            ("ation", "ate", p),
            ("ator", "ate", p),
            ("alism", "al", p),
            ("iveness", "ive", p),
            ("fulness", "ful", p),
            ("ousness", "ous", p),
            ("aliti", "al", p),
            ("iviti", "ive", p),
            ("biliti", "ble", p),
            ("fulli", "ful", p),
            ("logi", "log", Some(logi)),
        ],
    )
}

fn step3(w: &[char]) -> Word {
    let p: Option<Condition> = Some(positive_measure);
    apply_rules(
        w,
        &[
            ("icate", "ic", p),
            ("ative", "", p),
            ("alize", "al", p),
            ("iciti", "ic", p),
            ("ical", "ic", p),
            ("ful", "", p),
            ("ness", "", p),
        ],
    )
}

fn step4(w: &[char]) -> Word {
    fn ion(stem: &[char], _w: &[char]) -> bool {
        measure(stem) > 1 && matches!(stem.last(), Some('s' | 't'))
    }
    let m: Option<Condition> = Some(measure_gt_1);
    apply_rules(
        w,
        &[
            ("al", "", m),
            ("ance", "", m),
            ("ence", "", m),
            ("er", "", m),
            ("ic", "", m),
            ("able", "", m),
            ("ible", "", m),
            ("ant", "", m),
            ("ement", "", m),
            ("ment", "", m),
            ("ent", "", m),
            ("ion", "", Some(ion)),
            ("ou", "", m),
            ("ism", "", m),
            ("ate", "", m),
            ("iti", "", m),
            ("ous", "", m),
            ("ive", "", m),
            ("ize", "", m),
        ],
    )
}

fn step5a(w: &[char]) -> Word {
    if ends_with(w, "e") {
        let stem = strip(w, "e");
        let m = measure(&stem);
        if m > 1 || (m == 1 && !ends_cvc(&stem)) {
            return stem;
        }
    }
    w.to_vec()
}

fn step5b(w: &[char]) -> Word {
    fn cond(_stem: &[char], word: &[char]) -> bool {
        measure(&word[..word.len() - 1]) > 1
    }
    apply_rules(w, &[("ll", "l", Some(cond))])
}

/// NLTK's irregular forms (`PorterStemmer.pool`).
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

/// `PorterStemmer().stem(word)` for a word that is already lowercase.
pub fn stem(word: &str) -> String {
    if let Some(out) = irregular(word) {
        return out.to_string();
    }
    let w: Word = word.chars().collect();
    if w.len() <= 2 {
        return word.to_string();
    }
    let w = step1a(&w);
    let w = step1b(&w);
    let w = step1c(&w);
    let w = step2(&w);
    let w = step3(&w);
    let w = step4(&w);
    let w = step5a(&w);
    let w = step5b(&w);
    w.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_examples() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("dying", "die"),
            ("ensures", "ensur"),
            ("military", "militari"),
            ("x*ding", "x*ding"),
            ("ax*ding", "axd"),
            ("is", "is"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn y_is_a_consonant_after_a_vowel() {
        let flags = |w: &str| consonant_flags(&w.chars().collect::<Vec<_>>()).collect::<Vec<_>>();
        assert_eq!(flags("toy"), vec![true, false, true]);
        assert!(!flags("syzygy")[1]);
        assert_eq!(measure(&"trouble".chars().collect::<Vec<_>>()), 1);
    }
}
