//! Sets of hypothesis positions for the beam search: a bit mask when the
//! hypothesis is short (under 128 words, nearly every sentence), a sorted list of
//! the few positions when it is long, and a dense bit set for the positions all
//! paths share.

/// A dense set of positions `0..n`.
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    #[inline]
    pub fn get(&self, i: u32) -> bool {
        (self.0[i as usize / 64] >> (i % 64)) & 1 == 1
    }

    pub fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn any(&self, from: u32, len: u32) -> bool {
        (from..from + len).any(|i| self.get(i))
    }
}

/// A small set of positions kept by every path, plus `Marks`: the union of
/// several sets, rebuilt at each step.
pub trait PositionSet: Default {
    type Marks;

    /// Whether this representation holds positions `0..=n`.
    fn fits(n: usize) -> bool;
    fn new_marks(n: usize) -> Self::Marks;
    /// Empties `marks`.
    fn reset(marks: &mut Self::Marks);
    fn mark(marks: &mut Self::Marks, pos: u32);
    fn mark_all(&self, marks: &mut Self::Marks);
    fn is_marked(marks: &Self::Marks, pos: u32) -> bool;

    fn assign(&mut self, other: &Self);
    fn insert(&mut self, pos: u32);
    fn contains(&self, pos: u32) -> bool;
    fn is_empty(&self) -> bool;
    /// Keeps the positions `other` also has.
    fn intersect(&mut self, other: &Self);
    /// Drops the positions `other` has.
    fn subtract(&mut self, other: &Self);
    fn for_each(&self, f: impl FnMut(u32));

    #[inline]
    fn any_marked(marks: &Self::Marks, from: u32, len: u32) -> bool {
        (from..from + len).any(|p| Self::is_marked(marks, p))
    }

    #[inline]
    fn overlaps(&self, from: u32, len: u32) -> bool {
        (from..from + len).any(|p| self.contains(p))
    }
}

impl PositionSet for u128 {
    type Marks = u128;

    fn fits(n: usize) -> bool {
        n < 128
    }

    fn new_marks(_n: usize) -> u128 {
        0
    }

    fn reset(marks: &mut u128) {
        *marks = 0;
    }

    fn mark(marks: &mut u128, pos: u32) {
        *marks |= 1 << pos;
    }

    fn mark_all(&self, marks: &mut u128) {
        *marks |= *self;
    }

    #[inline]
    fn is_marked(marks: &u128, pos: u32) -> bool {
        (*marks >> pos) & 1 == 1
    }

    fn assign(&mut self, other: &u128) {
        *self = *other;
    }

    fn insert(&mut self, pos: u32) {
        *self |= 1 << pos;
    }

    #[inline]
    fn contains(&self, pos: u32) -> bool {
        (*self >> pos) & 1 == 1
    }

    fn is_empty(&self) -> bool {
        *self == 0
    }

    fn intersect(&mut self, other: &u128) {
        *self &= *other;
    }

    fn subtract(&mut self, other: &u128) {
        *self &= !*other;
    }

    fn for_each(&self, mut f: impl FnMut(u32)) {
        let mut bits = *self;
        while bits != 0 {
            f(bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
}

/// Marks over a long hypothesis: position `p` is marked when it holds the current stamp.
pub struct Stamps {
    stamps: Vec<u32>,
    current: u32,
}

/// Ascending positions.
impl PositionSet for Vec<u32> {
    type Marks = Stamps;

    fn fits(_n: usize) -> bool {
        true
    }

    fn new_marks(n: usize) -> Stamps {
        Stamps {
            stamps: vec![0; n + 1],
            current: 1,
        }
    }

    fn reset(marks: &mut Stamps) {
        marks.current += 1;
    }

    fn mark(marks: &mut Stamps, pos: u32) {
        marks.stamps[pos as usize] = marks.current;
    }

    fn mark_all(&self, marks: &mut Stamps) {
        for &p in self {
            marks.stamps[p as usize] = marks.current;
        }
    }

    #[inline]
    fn is_marked(marks: &Stamps, pos: u32) -> bool {
        marks.stamps[pos as usize] == marks.current
    }

    fn assign(&mut self, other: &Vec<u32>) {
        self.clear();
        self.extend_from_slice(other);
    }

    fn insert(&mut self, pos: u32) {
        let at = self.partition_point(|&x| x < pos);
        self.insert(at, pos);
    }

    #[inline]
    fn contains(&self, pos: u32) -> bool {
        self.binary_search(&pos).is_ok()
    }

    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    fn intersect(&mut self, other: &Vec<u32>) {
        self.retain(|p| other.binary_search(p).is_ok());
    }

    fn subtract(&mut self, other: &Vec<u32>) {
        self.retain(|p| other.binary_search(p).is_err());
    }

    fn for_each(&self, f: impl FnMut(u32)) {
        self.iter().copied().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise<S: PositionSet>() {
        let mut a = S::default();
        let mut b = S::default();
        for p in [3, 70, 100] {
            a.insert(p);
        }
        for p in [70, 5, 100] {
            b.insert(p);
        }
        assert!(a.contains(70) && !a.contains(5) && a.overlaps(2, 2) && !a.overlaps(4, 3));
        let mut marks = S::new_marks(127);
        a.mark_all(&mut marks);
        S::mark(&mut marks, 127);
        assert!(S::is_marked(&marks, 3) && S::is_marked(&marks, 127) && !S::is_marked(&marks, 5));
        assert!(S::any_marked(&marks, 98, 3) && !S::any_marked(&marks, 4, 3));
        S::reset(&mut marks);
        assert!(!S::is_marked(&marks, 3));
        let mut shared = S::default();
        shared.assign(&a);
        shared.intersect(&b);
        let mut seen = Vec::new();
        shared.for_each(|p| seen.push(p));
        assert_eq!(seen, vec![70, 100]);
        a.subtract(&shared);
        assert!(a.contains(3) && !a.contains(70) && !a.is_empty());
    }

    #[test]
    fn both_representations_agree() {
        exercise::<u128>();
        exercise::<Vec<u32>>();
    }

    #[test]
    fn bits() {
        let mut bits = Bits::new(200);
        bits.set(130);
        assert!(bits.get(130) && !bits.get(129) && bits.any(128, 5) && !bits.any(0, 128));
    }
}
