//! Translation edit rate (Snover et al., 2006) as sacreBLEU 2.x computes it.
//!
//! TER is the number of edits (insertions, deletions, substitutions and block
//! shifts) that turn a hypothesis into a reference. Finding the optimal shifts
//! is NP-hard, so Tercom and sacreBLEU search greedily: repeatedly apply the
//! single shift that reduces the (beam-limited) edit distance most, until none
//! helps or a budget of evaluated shift candidates is spent. This module
//! reproduces that search exactly, including
//!
//! * the beam: row `i` of the edit-distance matrix only fills the columns
//!   within `beam` of the pseudo-diagonal `floor(i * n_ref / n_hyp)` (the last
//!   row is filled completely); the other cells are unreachable;
//! * the preference between equal-cost operations (match/substitution, then
//!   hypothesis deletion, then reference insertion), which fixes the alignment
//!   and therefore which shifts are tried;
//! * the candidate filters and the tie-breaking of equally good shifts
//!   (largest gain, then longest block, then earliest block, then earliest
//!   target);
//! * the budget of [`MAX_SHIFT_CANDIDATES`] evaluated candidates per
//!   hypothesis/reference pair: the search call in which the budget runs out
//!   does not apply its shift.
//!
//! Speed comes from evaluating a candidate shift without recomputing the whole
//! matrix: a shift only changes the words in a window `[p, q)`, so the cost is
//! the minimum over the cells `j` of row `q` of (forward cost of the shifted
//! prefix, computed from the unchanged row `p`) + (backward cost of the
//! unchanged suffix). Both are shortest paths through the same band of cells,
//! so the sum is exactly the value the full beam-limited matrix would give.
//! After a shift is applied only the rows on the far side of its window are
//! recomputed, the operations of the alignment are re-derived from the costs
//! (no operation matrix is stored), and once the candidate budget is reached
//! the remaining candidates are neither listed nor scored (their shift would
//! not be applied).

pub mod edit;
pub mod py;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::text::py_split;

/// Half-width of the band of computed cells around the pseudo-diagonal.
pub const BEAM_WIDTH: usize = 25;
/// Longest block of words a shift may move.
pub const MAX_SHIFT_SIZE: usize = 10;
/// Largest distance between the block's positions in the hypothesis and the reference.
pub const MAX_SHIFT_DIST: usize = 50;
/// Evaluated shift candidates after which the search stops.
pub const MAX_SHIFT_CANDIDATES: usize = 1000;
/// Cost of an unreachable cell (sacreBLEU's `int(1e16)`).
const INF: i64 = 10_000_000_000_000_000;

/// How a cell of the edit-distance matrix was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// Diagonal move, words equal.
    Match,
    /// Diagonal move, words differ.
    Substitute,
    /// Vertical move: a hypothesis word with no reference word.
    HypOnly,
    /// Horizontal move: a reference word with no hypothesis word.
    RefOnly,
}

/// The cells computed for each row of a `(n_hyp + 1) x (n_ref + 1)` matrix.
#[derive(Clone, Debug)]
struct Band {
    /// `lo[i]..hi[i]` are the columns of row `i`.
    lo: Vec<usize>,
    hi: Vec<usize>,
    /// Start of row `i` in a flat array of all band cells.
    offset: Vec<usize>,
}

impl Band {
    fn new(n_hyp: usize, n_ref: usize) -> Band {
        let ratio = if n_hyp > 0 {
            n_ref as f64 / n_hyp as f64
        } else {
            1.0
        };
        // Very unequal lengths widen the beam so that consecutive rows overlap.
        let beam = if (BEAM_WIDTH as f64) < ratio / 2.0 {
            (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as i64
        } else {
            BEAM_WIDTH as i64
        };
        let width = n_ref as i64 + 1;
        let mut lo = Vec::with_capacity(n_hyp + 1);
        let mut hi = Vec::with_capacity(n_hyp + 1);
        let mut offset = Vec::with_capacity(n_hyp + 2);
        // row 0: the reference words inserted one by one
        lo.push(0);
        hi.push(width as usize);
        offset.push(0);
        offset.push(width as usize);
        for i in 1..=n_hyp {
            let diagonal = (i as f64 * ratio).floor() as i64;
            let start = (diagonal - beam).max(0);
            let end = if i == n_hyp {
                width
            } else {
                (diagonal + beam).min(width)
            };
            let end = end.max(start);
            lo.push(start as usize);
            hi.push(end as usize);
            offset.push(offset[i] + (end - start) as usize);
        }
        Band { lo, hi, offset }
    }

    fn cells(&self) -> usize {
        *self.offset.last().unwrap_or(&0)
    }
}

/// The cost of column `j` in a band row stored as `values` starting at column `lo`.
#[inline]
fn at(values: &[i64], lo: usize, j: usize) -> i64 {
    if j >= lo && j - lo < values.len() {
        values[j - lo]
    } else {
        INF
    }
}

/// Fills one row of the forward matrix (columns `lo..lo + out.len()`) from the
/// previous row: the cheapest of a diagonal move (free if the words match), a
/// hypothesis-only move (down) and a reference-only move (right); cells that
/// cannot be reached keep [`INF`].
#[inline]
fn forward_row(
    prev: &[i64],
    prev_lo: usize,
    lo: usize,
    word: u32,
    reference: &[u32],
    out: &mut [i64],
) {
    let hi = lo + out.len();
    let prev_hi = prev_lo + prev.len();
    let mut left = INF;
    let cell = |j: usize, left: i64| -> i64 {
        let up = at(prev, prev_lo, j) + 1;
        if j == 0 {
            return up;
        }
        let diagonal = at(prev, prev_lo, j - 1) + i64::from(word != reference[j - 1]);
        INF.min(diagonal).min(up).min(left + 1)
    };
    // columns whose diagonal neighbour is outside the previous row
    let mut j = lo;
    while j < hi && j <= prev_lo {
        left = cell(j, left);
        out[j - lo] = left;
        j += 1;
    }
    // the bulk: both neighbours in the previous row
    let end = hi.min(prev_hi).max(j);
    if j < end {
        let up = &prev[j - prev_lo..end - prev_lo];
        let diagonal = &prev[j - 1 - prev_lo..end - 1 - prev_lo];
        let words = &reference[j - 1..end - 1];
        for (k, target) in out[j - lo..end - lo].iter_mut().enumerate() {
            let value = (diagonal[k] + i64::from(word != words[k]))
                .min(up[k] + 1)
                .min(left + 1)
                .min(INF);
            *target = value;
            left = value;
        }
    }
    // columns past the end of the previous row
    for j in end..hi {
        left = cell(j, left);
        out[j - lo] = left;
    }
}

/// The beam-limited forward matrix of one hypothesis (costs from the start).
struct Forward {
    cost: Vec<i64>,
}

impl Forward {
    fn new(hyp: &[u32], reference: &[u32], band: &Band) -> Forward {
        let mut forward = Forward {
            cost: vec![INF; band.cells()],
        };
        for j in 0..=reference.len() {
            forward.cost[j] = j as i64;
        }
        forward.refill(hyp, reference, band, 0);
        forward
    }

    /// Recomputes the rows after `from` (rows up to `from` depend only on words before it).
    fn refill(&mut self, hyp: &[u32], reference: &[u32], band: &Band, from: usize) {
        for i in from + 1..=hyp.len() {
            let (done, rest) = self.cost.split_at_mut(band.offset[i]);
            let prev = &done[band.offset[i - 1]..];
            let row = &mut rest[..band.offset[i + 1] - band.offset[i]];
            forward_row(prev, band.lo[i - 1], band.lo[i], hyp[i - 1], reference, row);
        }
    }

    fn row<'a>(&'a self, band: &Band, i: usize) -> &'a [i64] {
        &self.cost[band.offset[i]..band.offset[i + 1]]
    }

    fn get(&self, band: &Band, i: usize, j: usize) -> i64 {
        at(self.row(band, i), band.lo[i], j)
    }

    fn distance(&self) -> i64 {
        *self.cost.last().expect("the last row is never empty")
    }

    /// The operations of the optimal path, from the start of both sequences.
    ///
    /// Each cell took the first of (diagonal, hypothesis-only, reference-only)
    /// that reaches its cost, so walking back from the end re-derives the
    /// operation of every cell on the path from the costs alone.
    fn trace(&self, hyp: &[u32], reference: &[u32], band: &Band) -> Vec<Op> {
        let mut ops = Vec::with_capacity(hyp.len() + reference.len());
        let (mut i, mut j) = (hyp.len(), reference.len());
        while i > 0 || j > 0 {
            let how = if i == 0 {
                Op::RefOnly
            } else if j == 0 {
                Op::HypOnly
            } else {
                let cost = self.get(band, i, j);
                let same = hyp[i - 1] == reference[j - 1];
                if self.get(band, i - 1, j - 1) + i64::from(!same) == cost {
                    if same {
                        Op::Match
                    } else {
                        Op::Substitute
                    }
                } else if self.get(band, i - 1, j) + 1 == cost {
                    Op::HypOnly
                } else {
                    Op::RefOnly
                }
            };
            ops.push(how);
            match how {
                Op::Match | Op::Substitute => {
                    i -= 1;
                    j -= 1;
                }
                Op::HypOnly => i -= 1,
                Op::RefOnly => j -= 1,
            }
        }
        ops.reverse();
        ops
    }
}

/// Costs from every band cell to the end of the matrix, for evaluating shifts
/// whose suffix is unchanged.
struct Backward {
    cost: Vec<i64>,
}

impl Backward {
    fn new(band: &Band) -> Backward {
        Backward {
            cost: vec![INF; band.cells()],
        }
    }

    /// Recomputes the rows before `to` (rows from `to` on depend only on words from it).
    fn refill(&mut self, hyp: &[u32], reference: &[u32], band: &Band, to: usize) {
        let n_hyp = hyp.len();
        for i in (0..to).rev() {
            let (lo, hi) = (band.lo[i], band.hi[i]);
            let (before, later) = self.cost.split_at_mut(band.offset[i + 1]);
            let row = &mut before[band.offset[i]..];
            let next = if i < n_hyp {
                &later[..band.offset[i + 2] - band.offset[i + 1]]
            } else {
                &later[..0]
            };
            let next_lo = if i < n_hyp { band.lo[i + 1] } else { 0 };
            let mut right = INF;
            for j in (lo..hi).rev() {
                let mut best = if i == n_hyp && j == reference.len() {
                    0
                } else {
                    INF.min(right + 1)
                };
                if i < n_hyp {
                    best = best.min(at(next, next_lo, j) + 1);
                    if j < reference.len() {
                        let same = hyp[i] == reference[j];
                        best = best.min(at(next, next_lo, j + 1) + i64::from(!same));
                    }
                }
                row[j - lo] = best;
                right = best;
            }
        }
    }

    fn row<'a>(&'a self, band: &Band, i: usize) -> &'a [i64] {
        &self.cost[band.offset[i]..band.offset[i + 1]]
    }
}

/// Where each reference word is aligned and which words are in error.
struct Alignment {
    /// Hypothesis position aligned to each reference position (`-1`: before the first).
    hyp_of_ref: Vec<i64>,
    hyp_err: Vec<bool>,
    ref_err: Vec<bool>,
}

impl Alignment {
    fn from_trace(ops: &[Op], n_hyp: usize, n_ref: usize) -> Alignment {
        let mut hyp_of_ref = Vec::with_capacity(n_ref);
        let mut hyp_err = Vec::with_capacity(n_hyp);
        let mut ref_err = Vec::with_capacity(n_ref);
        let mut hyp_pos: i64 = -1;
        for &how in ops {
            match how {
                Op::Match | Op::Substitute => {
                    hyp_pos += 1;
                    hyp_of_ref.push(hyp_pos);
                    let wrong = how == Op::Substitute;
                    hyp_err.push(wrong);
                    ref_err.push(wrong);
                }
                Op::HypOnly => {
                    hyp_pos += 1;
                    hyp_err.push(true);
                }
                Op::RefOnly => {
                    hyp_of_ref.push(hyp_pos);
                    ref_err.push(true);
                }
            }
        }
        Alignment {
            hyp_of_ref,
            hyp_err,
            ref_err,
        }
    }
}

/// A block shift: move `len` words starting at `start` so that they begin before `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shift {
    start: usize,
    len: usize,
    target: usize,
}

impl Shift {
    /// Writes the shifted words into `out` (sacreBLEU's `_perform_shift`, Python slice semantics).
    fn apply_into(self, words: &[u32], out: &mut Vec<u32>) {
        let Shift { start, len, target } = self;
        let n = words.len();
        let clamp = |k: usize| k.min(n);
        let block = &words[start..start + len];
        out.clear();
        if target < start {
            out.extend_from_slice(&words[..target]);
            out.extend_from_slice(block);
            out.extend_from_slice(&words[target..start]);
            out.extend_from_slice(&words[start + len..]);
        } else if target > start + len {
            out.extend_from_slice(&words[..start]);
            out.extend_from_slice(&words[start + len..target]);
            out.extend_from_slice(block);
            out.extend_from_slice(&words[target..]);
        } else {
            out.extend_from_slice(&words[..start]);
            out.extend_from_slice(&words[clamp(start + len)..clamp(len + target)]);
            out.extend_from_slice(block);
            out.extend_from_slice(&words[clamp(len + target)..]);
        }
    }

    fn apply(self, words: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(words.len());
        self.apply_into(words, &mut out);
        out
    }

    /// The window `[p, q)` outside which the shifted words equal the original ones.
    fn window(self, n: usize) -> (usize, usize) {
        let Shift { start, len, target } = self;
        if target < start {
            (target, start + len)
        } else if target > start + len {
            (start, target)
        } else {
            (start, (target + len).min(n))
        }
    }
}

/// Reference positions of every word id, ascending.
fn positions(reference: &[u32], vocab_size: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); vocab_size];
    for (j, &word) in reference.iter().enumerate() {
        out[word as usize].push(j);
    }
    out
}

/// The shifts sacreBLEU evaluates for this hypothesis, in its order (repeats
/// included), stopping once there are `limit` of them.
fn shift_candidates(
    hyp: &[u32],
    reference: &[u32],
    where_in_ref: &[Vec<usize>],
    alignment: &Alignment,
    limit: usize,
) -> Vec<Shift> {
    let (n_hyp, n_ref) = (hyp.len(), reference.len());
    let mut out = Vec::new();
    let any = |flags: &[bool]| flags.iter().any(|&f| f);
    for start_h in 0..n_hyp {
        let first_r = start_h.saturating_sub(MAX_SHIFT_DIST);
        let last_r = start_h + MAX_SHIFT_DIST;
        // the blocks start with equal words: only the reference positions of this word
        let places = &where_in_ref[hyp[start_h] as usize];
        let from = places.partition_point(|&r| r < first_r);
        for &start_r in places[from..].iter().take_while(|&&r| r <= last_r) {
            let mut len = 0;
            while len < MAX_SHIFT_SIZE
                && start_h + len < n_hyp
                && start_r + len < n_ref
                && hyp[start_h + len] == reference[start_r + len]
            {
                len += 1;
                // only blocks that are wrong where they are and wrong where they would go
                if !any(&alignment.hyp_err[start_h..start_h + len])
                    || !any(&alignment.ref_err[start_r..start_r + len])
                {
                    continue;
                }
                // not into the block itself
                let aligned = alignment.hyp_of_ref[start_r];
                if aligned >= start_h as i64 && aligned < (start_h + len) as i64 {
                    continue;
                }
                let mut previous = None;
                for offset in -1..len as i64 {
                    let r = start_r as i64 + offset;
                    let target = if r < 0 {
                        0
                    } else {
                        (alignment.hyp_of_ref[r as usize] + 1) as usize
                    };
                    if previous == Some(target) {
                        continue;
                    }
                    previous = Some(target);
                    out.push(Shift {
                        start: start_h,
                        len,
                        target,
                    });
                }
                if out.len() >= limit {
                    return out;
                }
            }
        }
    }
    out
}

/// Scratch space for evaluating many shifts of one hypothesis.
#[derive(Default)]
struct Scratch {
    shifted: Vec<u32>,
    prev: Vec<i64>,
    cur: Vec<i64>,
}

/// Beam-limited edit distance of `words` after `shift`, from the forward rows
/// before the changed window and the backward rows after it.
fn shifted_distance(
    words: &[u32],
    reference: &[u32],
    band: &Band,
    forward: &Forward,
    backward: &Backward,
    shift: Shift,
    scratch: &mut Scratch,
) -> i64 {
    let (p, q) = shift.window(words.len());
    shift.apply_into(words, &mut scratch.shifted);
    scratch.prev.clear();
    scratch.prev.extend_from_slice(forward.row(band, p));
    for i in p + 1..=q {
        scratch.cur.clear();
        scratch.cur.resize(band.hi[i] - band.lo[i], INF);
        forward_row(
            &scratch.prev,
            band.lo[i - 1],
            band.lo[i],
            scratch.shifted[i - 1],
            reference,
            &mut scratch.cur,
        );
        std::mem::swap(&mut scratch.prev, &mut scratch.cur);
    }
    scratch
        .prev
        .iter()
        .zip(backward.row(band, q))
        .map(|(a, b)| a + b)
        .min()
        .unwrap_or(INF)
}

/// Number of edits (shifts included) that turn `hyp` into `reference`.
///
/// Token ids must be below `vocab_size`.
pub fn edits(hyp: &[u32], reference: &[u32], vocab_size: usize) -> i64 {
    let (n_hyp, n_ref) = (hyp.len(), reference.len());
    if n_ref == 0 {
        return n_hyp as i64;
    }
    let band = Band::new(n_hyp, n_ref);
    let where_in_ref = positions(reference, vocab_size);
    let mut words = hyp.to_vec();
    let mut forward = Forward::new(&words, reference, &band);
    // computed when first needed; rows before `stale` are out of date
    let mut backward: Option<Backward> = None;
    let mut stale = n_hyp + 1;
    let mut scratch = Scratch::default();
    let mut shifts = 0;
    let mut checked = 0;
    loop {
        let distance = forward.distance();
        let alignment =
            Alignment::from_trace(&forward.trace(&words, reference, &band), n_hyp, n_ref);
        let candidates = shift_candidates(
            &words,
            reference,
            &where_in_ref,
            &alignment,
            MAX_SHIFT_CANDIDATES - checked,
        );
        checked += candidates.len();
        // The search call that exhausts the budget does not apply its shift, so
        // once the remaining budget is reached the candidates need no scores.
        if checked >= MAX_SHIFT_CANDIDATES || candidates.is_empty() {
            return shifts + distance;
        }
        let backward = backward.get_or_insert_with(|| Backward::new(&band));
        backward.refill(&words, reference, &band, stale);
        let mut best: Option<(i64, usize, i64, i64, Shift)> = None;
        for shift in candidates {
            let cost = shifted_distance(
                &words,
                reference,
                &band,
                &forward,
                backward,
                shift,
                &mut scratch,
            );
            // largest gain, then longest block, then earliest block, then earliest target
            let key = (
                distance - cost,
                shift.len,
                -(shift.start as i64),
                -(shift.target as i64),
                shift,
            );
            if best.is_none_or(|b| (key.0, key.1, key.2, key.3) > (b.0, b.1, b.2, b.3)) {
                best = Some(key);
            }
        }
        match best {
            Some((gain, .., shift)) if gain > 0 => {
                shifts += 1;
                let (p, q) = shift.window(n_hyp);
                words = shift.apply(&words);
                forward.refill(&words, reference, &band, p);
                stale = q;
            }
            _ => return shifts + distance,
        }
    }
}

/// Best (fewest) edits over the references and the sum of reference lengths.
pub fn segment_stats<S: AsRef<str>>(hyp: &str, references: &[S]) -> (i64, i64) {
    let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
    let mut intern = |token| {
        let next = vocab.len() as u32;
        *vocab.entry(token).or_insert(next)
    };
    let hyp_ids: Vec<u32> = py_split(hyp).map(&mut intern).collect();
    let ref_ids: Vec<Vec<u32>> = references
        .iter()
        .map(|r| py_split(r.as_ref()).map(&mut intern).collect())
        .collect();
    let vocab_size = vocab.len();
    let mut best = INF;
    let mut total_len = 0;
    for reference in &ref_ids {
        best = best.min(edits(&hyp_ids, reference, vocab_size));
        total_len += reference.len() as i64;
    }
    (best, total_len)
}

/// [`segment_stats`] of many segments in parallel, flattened row by row.
pub fn batch_stats<S: AsRef<str> + Sync>(hyps: &[S], refs: &[Vec<S>]) -> Vec<i64> {
    if hyps.len() < crate::common::parallel::PARALLEL_MIN_SEGMENTS {
        return hyps
            .iter()
            .zip(refs.iter())
            .flat_map(|(hyp, references)| {
                let (best, total) = segment_stats(hyp.as_ref(), references);
                [best, total]
            })
            .collect();
    }
    crate::common::parallel::install(|| {
        hyps.par_iter()
            .zip(refs.par_iter())
            .flat_map_iter(|(hyp, references)| {
                let (best, total) = segment_stats(hyp.as_ref(), references);
                [best, total]
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str, vocab: &mut FxHashMap<String, u32>) -> Vec<u32> {
        text.split_whitespace()
            .map(|w| {
                let next = vocab.len() as u32;
                *vocab.entry(w.to_string()).or_insert(next)
            })
            .collect()
    }

    fn ter(hyp: &str, reference: &str) -> i64 {
        segment_stats(hyp, &[reference]).0
    }

    /// The beam-limited distance computed from scratch (no window trick).
    fn full_distance(hyp: &[u32], reference: &[u32]) -> i64 {
        let band = Band::new(hyp.len(), reference.len());
        Forward::new(hyp, reference, &band).distance()
    }

    fn alignment(hyp: &[u32], reference: &[u32]) -> (Band, Forward, Alignment) {
        let band = Band::new(hyp.len(), reference.len());
        let forward = Forward::new(hyp, reference, &band);
        let ops = forward.trace(hyp, reference, &band);
        let alignment = Alignment::from_trace(&ops, hyp.len(), reference.len());
        (band, forward, alignment)
    }

    #[test]
    fn plain_edit_operations() {
        assert_eq!(ter("a b c", "a b c"), 0);
        assert_eq!(ter("a b c", "a x c"), 1);
        assert_eq!(ter("a b", "a b c"), 1);
        assert_eq!(ter("a b c d", "a b"), 2);
        assert_eq!(ter("", "a b c"), 3);
        assert_eq!(ter("a b", ""), 2);
        assert_eq!(ter("", ""), 0);
    }

    #[test]
    fn one_block_shift_replaces_many_edits() {
        // moving "c d" to the front costs one shift instead of four substitutions
        assert_eq!(ter("a b c d", "c d a b"), 1);
        // a single word moved across the sentence
        assert_eq!(ter("b c d e a", "a b c d e"), 1);
    }

    #[test]
    fn shifts_then_substitution() {
        // shift "the cat" to the front (1), then substitute sat -> lay (1)
        assert_eq!(ter("sat on the mat the cat", "the cat lay on the mat"), 2);
    }

    #[test]
    fn shift_only_moves_blocks_that_are_wrong() {
        // every word matches in place: no shift candidate at all
        let mut vocab = FxHashMap::default();
        let h = ids("a b c", &mut vocab);
        let (_, _, aligned) = alignment(&h, &h);
        let places = positions(&h, vocab.len());
        assert!(shift_candidates(&h, &h, &places, &aligned, usize::MAX).is_empty());
    }

    #[test]
    fn perform_shift_matches_python_slices() {
        let w = [0, 1, 2, 3, 4, 5];
        let s = |start, len, target| Shift { start, len, target }.apply(&w);
        assert_eq!(s(3, 2, 1), vec![0, 3, 4, 1, 2, 5]);
        assert_eq!(s(1, 2, 5), vec![0, 3, 4, 1, 2, 5]);
        // target inside the block: the block moves right by target - start
        assert_eq!(s(1, 2, 2), vec![0, 3, 1, 2, 4, 5]);
        assert_eq!(s(1, 2, 1), w.to_vec());
        // clamped at the end
        assert_eq!(s(4, 2, 5), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn trace_prefers_diagonal_then_hypothesis_deletion() {
        let band = Band::new(2, 1);
        let forward = Forward::new(&[0, 1], &[1], &band);
        // sacreBLEU's trace: "d "
        assert_eq!(
            forward.trace(&[0, 1], &[1], &band),
            vec![Op::HypOnly, Op::Match]
        );
        let band = Band::new(1, 2);
        let forward = Forward::new(&[5], &[0, 1], &band);
        // traced from the end, where the diagonal wins the tie: the first
        // reference word is the unmatched one (sacreBLEU's trace "is")
        assert_eq!(
            forward.trace(&[5], &[0, 1], &band),
            vec![Op::RefOnly, Op::Substitute]
        );
    }

    #[test]
    fn band_widens_for_very_unequal_lengths() {
        let band = Band::new(2, 200);
        // ratio 100: beam ceil(50 + 25) = 75 around the diagonal 100
        assert_eq!((band.lo[1], band.hi[1]), (25, 175));
        assert_eq!((band.lo[2], band.hi[2]), (125, 201));
        // equal lengths: 25 on either side of the diagonal, the last row complete
        let band = Band::new(100, 100);
        assert_eq!((band.lo[60], band.hi[60]), (35, 85));
        assert_eq!((band.lo[100], band.hi[100]), (75, 101));
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    fn random_words(seed: &mut u64, n: usize, vocab: u64) -> Vec<u32> {
        (0..n).map(|_| (lcg(seed) % vocab) as u32).collect()
    }

    #[test]
    fn windowed_shift_cost_equals_full_recomputation() {
        let mut seed = 7;
        let mut scratch = Scratch::default();
        for round in 0..300 {
            let n_hyp = 1 + (lcg(&mut seed) % 120) as usize;
            let n_ref = 1 + (lcg(&mut seed) % 120) as usize;
            let vocab = 2 + (round % 9) as u64;
            let hyp = random_words(&mut seed, n_hyp, vocab);
            let reference = random_words(&mut seed, n_ref, vocab);
            let (band, forward, aligned) = alignment(&hyp, &reference);
            let mut backward = Backward::new(&band);
            backward.refill(&hyp, &reference, &band, n_hyp + 1);
            let places = positions(&reference, vocab as usize);
            for shift in shift_candidates(&hyp, &reference, &places, &aligned, 60) {
                let shifted = shift.apply(&hyp);
                assert_eq!(shifted.len(), hyp.len());
                let windowed = shifted_distance(
                    &hyp,
                    &reference,
                    &band,
                    &forward,
                    &backward,
                    shift,
                    &mut scratch,
                );
                assert_eq!(windowed, full_distance(&shifted, &reference));
            }
        }
    }

    #[test]
    fn refilled_matrices_equal_fresh_ones() {
        let mut seed = 3;
        for _ in 0..100 {
            let n = 1 + (lcg(&mut seed) % 90) as usize;
            let m = 1 + (lcg(&mut seed) % 90) as usize;
            let hyp = random_words(&mut seed, n, 4);
            let reference = random_words(&mut seed, m, 4);
            let band = Band::new(n, m);
            let shift = Shift {
                start: (lcg(&mut seed) as usize) % n,
                len: 1,
                target: (lcg(&mut seed) as usize) % (n + 1),
            };
            let (p, q) = shift.window(n);
            let shifted = shift.apply(&hyp);
            let mut forward = Forward::new(&hyp, &reference, &band);
            forward.refill(&shifted, &reference, &band, p);
            assert_eq!(forward.cost, Forward::new(&shifted, &reference, &band).cost);
            let mut backward = Backward::new(&band);
            backward.refill(&hyp, &reference, &band, n + 1);
            backward.refill(&shifted, &reference, &band, q);
            let mut fresh = Backward::new(&band);
            fresh.refill(&shifted, &reference, &band, n + 1);
            assert_eq!(backward.cost, fresh.cost);
        }
    }

    #[test]
    fn exhausted_candidate_budget_applies_no_shift() {
        // two-word vocabularies: the first search already has over 1,000 candidates
        let mut seed = 11;
        let hyp = random_words(&mut seed, 60, 2);
        let reference = random_words(&mut seed, 60, 2);
        let (_, forward, aligned) = alignment(&hyp, &reference);
        let places = positions(&reference, 2);
        let all = shift_candidates(&hyp, &reference, &places, &aligned, usize::MAX);
        assert!(all.len() >= MAX_SHIFT_CANDIDATES);
        let limited = shift_candidates(&hyp, &reference, &places, &aligned, MAX_SHIFT_CANDIDATES);
        assert!(limited.len() >= MAX_SHIFT_CANDIDATES);
        assert_eq!(limited[..], all[..limited.len()]);
        assert_eq!(edits(&hyp, &reference, 2), forward.distance());
    }

    #[test]
    fn alignment_marks_errors_on_both_sides() {
        let (_, _, aligned) = alignment(&[0, 1, 2], &[0, 3, 2]);
        assert_eq!(aligned.hyp_of_ref, vec![0, 1, 2]);
        assert_eq!(aligned.hyp_err, vec![false, true, false]);
        assert_eq!(aligned.ref_err, vec![false, true, false]);
        // an unmatched first reference word is aligned before the hypothesis
        let (_, _, aligned) = alignment(&[5], &[0, 1]);
        assert_eq!(aligned.hyp_of_ref, vec![-1, 0]);
        assert_eq!(aligned.ref_err, vec![true, true]);
    }

    #[test]
    fn multiple_references_take_the_best_and_sum_lengths() {
        assert_eq!(segment_stats("a b c", &["a b c d", "x y"]), (1, 6));
        assert_eq!(segment_stats("", &["", "a"]), (0, 1));
    }

    #[test]
    fn tokens_are_split_on_python_whitespace() {
        // U+00A0 and U+3000 separate words; U+200B does not
        assert_eq!(segment_stats("a\u{a0}b\u{3000}c", &["a b c"]), (0, 3));
        assert_eq!(segment_stats("a\u{200b}b", &["a b"]), (2, 2));
    }
}
