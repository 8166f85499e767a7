//! Fallible allocation of buffers whose size comes from the input or the
//! options: too large a request becomes a Python `MemoryError` naming the
//! size, instead of aborting the interpreter.

use std::fmt;

/// A buffer of `count` values of `width` bytes each could not be allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    pub count: u128,
    pub width: usize,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let gib = self.count as f64 * self.width as f64 / f64::from(1u32 << 30);
        write!(f, "cannot allocate {} values ({gib:.1} GiB)", self.count)
    }
}

/// `rows * cols` copies of `value`, or [`TooLarge`] when the product
/// overflows or the allocator refuses it.
pub fn filled<T: Clone>(rows: usize, cols: usize, value: T) -> Result<Vec<T>, TooLarge> {
    let too_large = TooLarge {
        count: rows as u128 * cols as u128,
        width: std::mem::size_of::<T>(),
    };
    let len = rows.checked_mul(cols).ok_or(too_large)?;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| too_large)?;
    out.resize(len, value);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_cannot_be_allocated_instead_of_aborting() {
        assert_eq!(filled(2, 3, 7u8).unwrap(), vec![7; 6]);
        let overflow = filled::<f64>(usize::MAX, 2, 0.0).unwrap_err();
        assert_eq!(overflow.count, usize::MAX as u128 * 2);
        // 400,000 x 400,000 doubles: 1.2 TB, more than any test machine has
        let huge = filled::<f64>(400_000, 400_000, 0.0).unwrap_err();
        assert!(huge
            .to_string()
            .starts_with("cannot allocate 160000000000 values (1192.1 GiB)"));
    }
}
