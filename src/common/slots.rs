//! A reusable open-addressing table of packed n-gram keys (`u64`, 0 = empty slot),
//! shared by the kernels that count one segment's n-grams at a time (BLEU's clipped
//! counts, GLEU's overlaps). Only the slots a segment used are cleared for the next
//! one, so a thread scores many short segments without allocating, and the table is
//! sized for each segment, so that a long segment does not spread every later short
//! one over a large table.

/// One slot: its key (0 while empty) and the counts a kernel keeps for it.
#[derive(Clone, Copy, Default)]
struct Keyed<V> {
    key: u64,
    value: V,
}

/// The table: linear probing over `slots[..=mask]`, Fibonacci hashing of the key.
#[derive(Default)]
pub struct SlotTable<V> {
    slots: Vec<Keyed<V>>,
    used: Vec<usize>,
    mask: usize,
    shift: u32,
}

impl<V: Copy + Default> SlotTable<V> {
    /// Empties the slots the last segment used and sizes the table for about
    /// `expected` keys (at most half full, at least 16 slots).
    pub fn reset(&mut self, expected: usize) {
        let capacity = (expected * 2).next_power_of_two().max(16);
        if self.slots.len() < capacity {
            self.slots = vec![Keyed::default(); capacity];
        } else {
            for &slot in &self.used {
                self.slots[slot] = Keyed::default();
            }
        }
        self.mask = capacity - 1;
        self.shift = 64 - capacity.trailing_zeros();
        self.used.clear();
    }

    /// The index of `key`'s slot, or of the empty slot where it would go.
    #[inline]
    fn probe(&self, key: u64) -> usize {
        let mask = self.mask;
        let mut slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        loop {
            let found = self.slots[slot].key;
            if found == key || found == 0 {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// `key`'s counts, added (default) when it is new.
    #[inline]
    pub fn entry(&mut self, key: u64) -> &mut V {
        let slot = self.probe(key);
        let entry = &mut self.slots[slot];
        if entry.key == 0 {
            entry.key = key;
            self.used.push(slot);
        }
        &mut entry.value
    }

    /// `key`'s counts if it was added since the last reset.
    #[inline]
    pub fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let slot = self.probe(key);
        let entry = &mut self.slots[slot];
        (entry.key != 0).then_some(&mut entry.value)
    }

    /// Every key added since the last reset with its counts, in the order they were added.
    pub fn for_each_used(&mut self, mut visit: impl FnMut(u64, &mut V)) {
        for &slot in &self.used {
            let entry = &mut self.slots[slot];
            visit(entry.key, &mut entry.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(table: &mut SlotTable<i64>) -> Vec<(u64, i64)> {
        let mut out = Vec::new();
        table.for_each_used(|key, &mut n| out.push((key, n)));
        out
    }

    #[test]
    fn keys_are_counted_in_the_order_added_and_found_again() {
        let mut table = SlotTable::<i64>::default();
        table.reset(3);
        for key in [7, 1 << 40, 7, 3, 7] {
            *table.entry(key) += 1;
        }
        assert_eq!(counts(&mut table), vec![(7, 3), (1 << 40, 1), (3, 1)]);
        assert_eq!(table.get_mut(3).copied(), Some(1));
        assert!(table.get_mut(4).is_none());
        assert_eq!(counts(&mut table).len(), 3, "get_mut adds nothing");
    }

    #[test]
    fn a_reset_forgets_the_last_segment_whether_the_table_grows_or_not() {
        let mut table = SlotTable::<i64>::default();
        table.reset(100);
        for key in 1..=150 {
            *table.entry(key) += 1;
        }
        table.reset(2); // smaller: the used slots are cleared in place
        assert!(table.get_mut(5).is_none());
        *table.entry(5) += 1;
        assert_eq!(counts(&mut table), vec![(5, 1)]);
        table.reset(10_000); // larger: a fresh table
        assert!(table.get_mut(5).is_none());
        assert!(counts(&mut table).is_empty());
    }

    #[test]
    fn colliding_keys_probe_on_until_a_free_slot() {
        let mut table = SlotTable::<i64>::default();
        table.reset(8); // 16 slots: fill 16 keys, every probe wraps round
        for key in 1..=16u64 {
            *table.entry(key << 48) = key as i64;
        }
        for key in 1..=16u64 {
            assert_eq!(table.get_mut(key << 48).copied(), Some(key as i64));
        }
    }
}
