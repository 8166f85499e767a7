//! CIDEr-D (pycocoevalcap 1.2's `CiderScorer`) and the original CIDEr over token sequences.
//!
//! Pass 1 counts, for every n-gram, the images whose reference set holds it; pass 2 turns
//! each caption into tf-idf vectors per order and scores each hypothesis against each of its
//! references. Floating-point operations follow pycocoevalcap's order: a caption's n-grams in
//! first-occurrence order per order (its `defaultdict` order), norms as sums of squares in that
//! order, the clipped products summed in the hypothesis' order, the references of an image added
//! one after another. The logarithms and the length penalties come from the caller (NumPy's
//! `np.log` and Python's float power there), so no libm difference can enter.

use rustc_hash::FxHashMap;

/// The captions of a call: `hyps[i]` is image `i`'s hypothesis, its references are the next
/// `counts[i]` sequences of `refs`.
pub struct Corpus<'a> {
    pub hyps: &'a [Vec<&'a str>],
    pub refs: &'a [Vec<&'a str>],
    pub counts: &'a [usize],
}

/// The weights a call scores with.
pub struct Weights<'a> {
    /// `log_df[d]` = `np.log(max(1.0, d))` for `d` in `0..=images`
    pub log_df: &'a [f64],
    /// `np.log(images)`
    pub ref_len: f64,
    /// CIDEr-D's Gaussian penalty by |hypothesis bigrams - reference bigrams|, or `None` for the
    /// original CIDEr (no clipping, no penalty)
    pub penalty: Option<&'a [f64]>,
    pub max_order: usize,
}

/// The n-grams of every caption: per caption and order, `(gram, count)` in first-occurrence order.
struct Grams {
    entries: Vec<(u32, u32)>,
    /// `starts[seq * max_order + k]`: where order `k + 1` of caption `seq` starts (one more
    /// at the end)
    starts: Vec<usize>,
    bigrams: Vec<usize>,
    n_grams: usize,
}

/// `(shorter gram, next word) -> gram id`: open addressing with linear probing, key and id in
/// one slot (the keys are never 0: the shorter gram's id + 1 is in the high half).
struct GramTable {
    slots: Vec<(u64, u32)>,
    len: usize,
}

impl GramTable {
    fn new(n: usize) -> GramTable {
        GramTable {
            slots: vec![(0, 0); (n.max(8) * 2).next_power_of_two()],
            len: 0,
        }
    }

    fn slot_of(&self, key: u64) -> usize {
        (mix(key) as usize) & (self.slots.len() - 1)
    }

    /// Asks the processor to load the slot `key`'s search starts at (a run of look-ups then
    /// waits for memory once, not once each).
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const (u64, u32) = &self.slots[self.slot_of(key)];
            // SAFETY: a prefetch reads nothing; the address is inside `slots`
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The id of `key`, a new one (`*next`, then incremented) the first time.
    fn id(&mut self, key: u64, next: &mut u32) -> u32 {
        let mask = self.slots.len() - 1;
        let mut slot = self.slot_of(key);
        loop {
            let (here, id) = self.slots[slot];
            if here == key {
                return id;
            }
            if here == 0 {
                self.slots[slot] = (key, *next);
                *next += 1;
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
                return *next - 1;
            }
            slot = (slot + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); size]);
        let mask = self.slots.len() - 1;
        for (key, id) in old.into_iter().filter(|&(key, _)| key != 0) {
            let mut slot = self.slot_of(key);
            while self.slots[slot].0 != 0 {
                slot = (slot + 1) & mask;
            }
            self.slots[slot] = (key, id);
        }
    }
}

/// splitmix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// How far ahead of a look-up its slot is prefetched.
const AHEAD: usize = 16;

fn count_grams(seqs: &[&[&str]], max_order: usize) -> Grams {
    // word ids, then the ids of longer grams order by order over the whole corpus (each order's
    // look-ups are independent of one another, so they are prefetched ahead)
    let mut words: FxHashMap<&str, u32> = FxHashMap::default();
    let mut next_id: u32 = 0;
    let mut offsets = Vec::with_capacity(seqs.len() + 1);
    offsets.push(0usize);
    let mut wids: Vec<u32> = Vec::new();
    for tokens in seqs {
        for &token in tokens.iter() {
            let id = *words.entry(token).or_insert_with(|| {
                next_id += 1;
                next_id - 1
            });
            wids.push(id);
        }
        offsets.push(wids.len());
    }
    let mut by_order: Vec<Vec<u32>> = vec![wids.clone()];
    let mut keys: Vec<u64> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for order in 2..=max_order {
        let prev = by_order.last().expect("order 1");
        keys.clear();
        at.clear();
        for seq in 0..seqs.len() {
            let (start, end) = (offsets[seq], offsets[seq + 1]);
            for i in start..(end + 1).saturating_sub(order).max(start) {
                keys.push(((u64::from(prev[i]) + 1) << 32) | u64::from(wids[i + order - 1]));
                at.push(i);
            }
        }
        let mut table = GramTable::new(keys.len() / 4);
        let mut ids = vec![0u32; wids.len()];
        for j in 0..keys.len() {
            if let Some(&ahead) = keys.get(j + AHEAD) {
                table.prefetch(ahead);
            }
            ids[at[j]] = table.id(keys[j], &mut next_id);
        }
        by_order.push(ids);
    }
    // each caption's grams per order in first-occurrence order
    let n_grams = next_id as usize;
    let mut seen_seq = vec![0u32; n_grams];
    let mut seen_at = vec![0u32; n_grams];
    let mut entries: Vec<(u32, u32)> = Vec::with_capacity(wids.len() * max_order);
    let mut starts = Vec::with_capacity(seqs.len() * max_order + 1);
    let mut bigrams = Vec::with_capacity(seqs.len());
    for seq in 0..seqs.len() {
        let stamp = seq as u32 + 1;
        let (start, end) = (offsets[seq], offsets[seq + 1]);
        // pycocoevalcap counts the bigrams (none without order 2)
        bigrams.push(if max_order >= 2 {
            (end - start).saturating_sub(1)
        } else {
            0
        });
        for (k, ids) in by_order.iter().enumerate() {
            starts.push(entries.len());
            for &id in &ids[start..(end + 1).saturating_sub(k + 1).max(start)] {
                let g = id as usize;
                if seen_seq[g] == stamp {
                    entries[seen_at[g] as usize].1 += 1;
                } else {
                    seen_seq[g] = stamp;
                    seen_at[g] = entries.len() as u32;
                    entries.push((id, 1));
                }
            }
        }
    }
    starts.push(entries.len());
    Grams {
        entries,
        starts,
        bigrams,
        n_grams,
    }
}

/// Per image and order, the sum over its references of the (clipped) cosine similarity times
/// the length penalty: `(images, max_order)` row-major, pycocoevalcap's `score` before
/// `np.mean`. `Err` if a length difference has no penalty or the counts do not add up.
pub fn image_sums(corpus: &Corpus<'_>, weights: &Weights<'_>) -> Result<Vec<f64>, String> {
    let images = corpus.hyps.len();
    let orders = weights.max_order;
    if corpus.counts.len() != images || corpus.counts.iter().sum::<usize>() != corpus.refs.len() {
        return Err(
            "one reference count per hypothesis, adding up to the references given, is required"
                .into(),
        );
    }
    if orders == 0 || orders > 8 {
        return Err("max_order must be between 1 and 8".into());
    }
    if weights.log_df.len() <= images {
        return Err(format!("log_df needs {} values", images + 1));
    }
    let n_refs = corpus.refs.len();
    let seqs: Vec<&[&str]> = corpus
        .refs
        .iter()
        .chain(corpus.hyps.iter())
        .map(Vec::as_slice)
        .collect();
    let grams = count_grams(&seqs, orders);
    let span = |seq: usize, order: usize| {
        let at = seq * orders + order;
        &grams.entries[grams.starts[at]..grams.starts[at + 1]]
    };
    // pass 1: document frequencies over the images' reference sets
    let mut df = vec![0u32; grams.n_grams];
    let mut stamp = vec![0u32; grams.n_grams];
    let mut first_ref = 0;
    for (image, &count) in corpus.counts.iter().enumerate() {
        for seq in first_ref..first_ref + count {
            for order in 0..orders {
                for &(g, _) in span(seq, order) {
                    if stamp[g as usize] != image as u32 + 1 {
                        stamp[g as usize] = image as u32 + 1;
                        df[g as usize] += 1;
                    }
                }
            }
        }
        first_ref += count;
    }
    // pass 2: tf-idf weights, norms, cosines
    let weight = |g: u32, count: u32| {
        f64::from(count) * (weights.ref_len - weights.log_df[df[g as usize] as usize])
    };
    // a caption's norm per order: the square root of its weights' squares summed in its order
    let norms = |seq: usize| -> [f64; 8] {
        let mut out = [0.0f64; 8];
        for (order, norm) in out.iter_mut().enumerate().take(orders) {
            *norm = span(seq, order)
                .iter()
                .fold(0.0, |sum, &(g, c)| {
                    let w = weight(g, c);
                    sum + w * w
                })
                .sqrt();
        }
        out
    };
    let mut ref_weight = vec![0.0f64; grams.n_grams];
    let mut ref_stamp = vec![0u32; grams.n_grams];
    let mut out = vec![0.0f64; images * orders];
    let mut first_ref = 0;
    for (image, &count) in corpus.counts.iter().enumerate() {
        let hyp = n_refs + image;
        let hyp_norm = norms(hyp);
        let row = &mut out[image * orders..(image + 1) * orders];
        for seq in first_ref..first_ref + count {
            let tag = seq as u32 + 1;
            for order in 0..orders {
                for &(g, c) in span(seq, order) {
                    ref_stamp[g as usize] = tag;
                    ref_weight[g as usize] = weight(g, c);
                }
            }
            let ref_norm = norms(seq);
            let penalty = match weights.penalty {
                Some(table) => {
                    let delta = grams.bigrams[hyp].abs_diff(grams.bigrams[seq]);
                    Some(
                        *table
                            .get(delta)
                            .ok_or("the length penalty table is too short")?,
                    )
                }
                None => None,
            };
            for order in 0..orders {
                let mut val = 0.0f64;
                for &(g, c) in span(hyp, order) {
                    if ref_stamp[g as usize] == tag {
                        let (h, r) = (weight(g, c), ref_weight[g as usize]);
                        val += if penalty.is_some() {
                            h.min(r) * r
                        } else {
                            h * r
                        };
                    }
                }
                if hyp_norm[order] != 0.0 && ref_norm[order] != 0.0 {
                    val /= hyp_norm[order] * ref_norm[order];
                }
                if let Some(p) = penalty {
                    val *= p;
                }
                row[order] += val;
            }
        }
        first_ref += count;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(lines: &[&'static str]) -> Vec<Vec<&'static str>> {
        lines
            .iter()
            .map(|l| l.split_whitespace().collect())
            .collect()
    }

    #[test]
    fn counts_in_first_occurrence_order() {
        let seqs: Vec<Vec<&str>> = split(&["a b a b", "b a"]);
        let slices: Vec<&[&str]> = seqs.iter().map(Vec::as_slice).collect();
        let grams = count_grams(&slices, 2);
        // unigrams a(2) b(2), bigrams ab(2) ba(1); then b(1) a(1), ba(1)
        let counts: Vec<u32> = grams.entries.iter().map(|e| e.1).collect();
        assert_eq!(counts, [2, 2, 2, 1, 1, 1, 1]);
        assert_eq!(grams.entries[3].0, grams.entries[6].0); // "b a" is one gram
        assert_eq!(grams.bigrams, [3, 1]);
    }

    #[test]
    fn the_doc_example_of_cider_rows() {
        // cider_rows([["a","dog"],["a","cat"]], [[["a","dog"]],[["the","cat"]]]) = [5.0, 1.25]
        let hyps = split(&["a dog", "a cat"]);
        let refs = split(&["a dog", "the cat"]);
        let log_df: Vec<f64> = (0..=2).map(|d: i32| f64::from(d.max(1)).ln()).collect();
        let penalty: Vec<f64> = (0..10)
            .map(|d: i32| (-(f64::from(d * d)) / 72.0).exp())
            .collect();
        let corpus = Corpus {
            hyps: &hyps,
            refs: &refs,
            counts: &[1, 1],
        };
        let weights = Weights {
            log_df: &log_df,
            ref_len: 2f64.ln(),
            penalty: Some(&penalty),
            max_order: 4,
        };
        let sums = image_sums(&corpus, &weights).expect("valid");
        let rows: Vec<f64> = sums
            .chunks(4)
            .map(|r| r.iter().sum::<f64>() / 4.0 * 10.0)
            .collect();
        assert!(
            (rows[0] - 5.0).abs() < 1e-12 && (rows[1] - 1.25).abs() < 1e-12,
            "{rows:?}"
        );
        assert!(image_sums(
            &Corpus {
                hyps: &hyps,
                refs: &refs,
                counts: &[2, 1]
            },
            &weights
        )
        .is_err());
    }
}
