//! Java string semantics METEOR 1.5 relies on.

/// `java.lang.String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code
/// units, in wrapping 32-bit arithmetic. METEOR compares words (and stems) by
/// this hash, so two different words with the same hash count as equal.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The hash of a word given as UTF-16 code units.
pub fn units_hash(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_java() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("hello"), 99_162_322);
        // a classic collision pair
        assert_eq!(string_hash("Aa"), string_hash("BB"));
        // overflow wraps
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        // astral characters hash as their surrogate pair
        assert_eq!(string_hash("😀"), 0xd83d * 31 + 0xde00);
    }
}
