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
    /// Not reached.
    Unset,
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

/// Fills row `i` (columns `lo..hi`) from the previous row, costs only.
#[inline]
fn forward_row(
    prev: &[i64],
    prev_lo: usize,
    lo: usize,
    hi: usize,
    word: u32,
    reference: &[u32],
    out: &mut Vec<i64>,
) {
    out.clear();
    for j in lo..hi {
        let up = at(prev, prev_lo, j);
        if j == 0 {
            out.push(up + 1);
            continue;
        }
        let diagonal = at(prev, prev_lo, j - 1) + i64::from(word != reference[j - 1]);
        let left = if j > lo { out[j - 1 - lo] } else { INF };
        out.push(INF.min(diagonal).min(up + 1).min(left + 1));
    }
}

/// The full beam-limited forward matrix of one hypothesis, with operations.
struct Forward {
    cost: Vec<i64>,
    op: Vec<Op>,
}

impl Forward {
    fn new(hyp: &[u32], reference: &[u32], band: &Band) -> Forward {
        let mut cost = vec![INF; band.cells()];
        let mut op = vec![Op::Unset; band.cells()];
        for j in 0..=reference.len() {
            cost[j] = j as i64;
            op[j] = Op::RefOnly;
        }
        for i in 1..=hyp.len() {
            let (lo, hi, base) = (band.lo[i], band.hi[i], band.offset[i]);
            let (prev_lo, prev_base) = (band.lo[i - 1], band.offset[i - 1]);
            let (done, row) = cost.split_at_mut(base);
            let prev = &done[prev_base..];
            let word = hyp[i - 1];
            for j in lo..hi {
                let up = at(prev, prev_lo, j);
                let k = j - lo;
                if j == 0 {
                    row[k] = up + 1;
                    op[base + k] = Op::HypOnly;
                    continue;
                }
                // equal costs prefer the diagonal, then the hypothesis-only move
                let same = word == reference[j - 1];
                let mut best = (INF, Op::Unset);
                let diagonal = at(prev, prev_lo, j - 1) + i64::from(!same);
                let diagonal_op = if same { Op::Match } else { Op::Substitute };
                let left = if j > lo { row[k - 1] } else { INF };
                for (value, how) in [
                    (diagonal, diagonal_op),
                    (up + 1, Op::HypOnly),
                    (left + 1, Op::RefOnly),
                ] {
                    if best.0 > value {
                        best = (value, how);
                    }
                }
                row[k] = best.0;
                op[base + k] = best.1;
            }
        }
        Forward { cost, op }
    }

    fn row<'a>(&'a self, band: &Band, i: usize) -> &'a [i64] {
        &self.cost[band.offset[i]..band.offset[i + 1]]
    }

    fn distance(&self) -> i64 {
        *self.cost.last().expect("the last row is never empty")
    }

    /// The operations of the optimal path, from the start of both sequences.
    fn trace(&self, band: &Band, n_hyp: usize, n_ref: usize) -> Vec<Op> {
        let mut ops = Vec::with_capacity(n_hyp + n_ref);
        let (mut i, mut j) = (n_hyp, n_ref);
        while i > 0 || j > 0 {
            let how = if j >= band.lo[i] && j < band.hi[i] {
                self.op[band.offset[i] + j - band.lo[i]]
            } else {
                Op::Unset
            };
            // Every cell of the band is reachable (consecutive rows overlap by
            // construction), so the path never leaves it; `Unset` cannot occur.
            let how = match how {
                Op::Unset if i > 0 => Op::HypOnly,
                Op::Unset => Op::RefOnly,
                other => other,
            };
            ops.push(how);
            match how {
                Op::Match | Op::Substitute => {
                    i -= 1;
                    j -= 1;
                }
                Op::HypOnly => i -= 1,
                Op::RefOnly | Op::Unset => j -= 1,
            }
        }
        ops.reverse();
        ops
    }
}

/// Costs from every band cell to the end of the matrix (unchanged suffixes).
fn backward(hyp: &[u32], reference: &[u32], band: &Band) -> Vec<i64> {
    let n_hyp = hyp.len();
    let mut cost = vec![INF; band.cells()];
    for i in (0..=n_hyp).rev() {
        let (lo, hi, base) = (band.lo[i], band.hi[i], band.offset[i]);
        let (row, later) = cost.split_at_mut(band.offset[i + 1]);
        let row = &mut row[base..];
        for j in (lo..hi).rev() {
            let k = j - lo;
            if i == n_hyp && j == reference.len() {
                row[k] = 0;
                continue;
            }
            let mut best = INF;
            if j + 1 < hi {
                best = best.min(row[k + 1] + 1);
            }
            if i < n_hyp {
                let next = &later[..band.offset[i + 2] - band.offset[i + 1]];
                let next_lo = band.lo[i + 1];
                best = best.min(at(next, next_lo, j) + 1);
                if j < reference.len() {
                    let same = hyp[i] == reference[j];
                    best = best.min(at(next, next_lo, j + 1) + i64::from(!same));
                }
            }
            row[k] = best;
        }
    }
    cost
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
                Op::RefOnly | Op::Unset => {
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
    /// The shifted words (sacreBLEU's `_perform_shift`, Python slice semantics).
    fn apply(self, words: &[u32]) -> Vec<u32> {
        let Shift { start, len, target } = self;
        let n = words.len();
        let clamp = |k: usize| k.min(n);
        let block = &words[start..start + len];
        let mut out = Vec::with_capacity(n);
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

/// Every shift sacreBLEU evaluates for this hypothesis, in its order (repeats included).
fn shift_candidates(hyp: &[u32], reference: &[u32], alignment: &Alignment) -> Vec<Shift> {
    let (n_hyp, n_ref) = (hyp.len(), reference.len());
    let mut out = Vec::new();
    let any = |flags: &[bool]| flags.iter().any(|&f| f);
    for start_h in 0..n_hyp {
        let first_r = start_h.saturating_sub(MAX_SHIFT_DIST);
        let last_r = (start_h + MAX_SHIFT_DIST + 1).min(n_ref);
        for start_r in first_r..last_r {
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
            }
        }
    }
    out
}

/// Scratch state for evaluating many shifts of one hypothesis.
struct ShiftEvaluator<'a> {
    words: &'a [u32],
    reference: &'a [u32],
    band: &'a Band,
    forward: &'a Forward,
    backward: Vec<i64>,
    prev: Vec<i64>,
    cur: Vec<i64>,
}

impl<'a> ShiftEvaluator<'a> {
    fn new(words: &'a [u32], reference: &'a [u32], band: &'a Band, forward: &'a Forward) -> Self {
        ShiftEvaluator {
            words,
            reference,
            band,
            forward,
            backward: backward(words, reference, band),
            prev: Vec::new(),
            cur: Vec::new(),
        }
    }

    /// Beam-limited edit distance of the shifted hypothesis.
    fn distance(&mut self, shift: Shift) -> i64 {
        let band = self.band;
        let (p, q) = shift.window(self.words.len());
        let shifted = shift.apply(self.words);
        self.prev.clear();
        self.prev.extend_from_slice(self.forward.row(band, p));
        for i in p + 1..=q {
            forward_row(
                &self.prev,
                band.lo[i - 1],
                band.lo[i],
                band.hi[i],
                shifted[i - 1],
                self.reference,
                &mut self.cur,
            );
            std::mem::swap(&mut self.prev, &mut self.cur);
        }
        let suffix = &self.backward[band.offset[q]..band.offset[q + 1]];
        self.prev
            .iter()
            .zip(suffix)
            .map(|(a, b)| a + b)
            .min()
            .unwrap_or(INF)
    }
}

/// Number of edits (shifts included) that turn `hyp` into `reference`.
pub fn edits(hyp: &[u32], reference: &[u32]) -> i64 {
    let (n_hyp, n_ref) = (hyp.len(), reference.len());
    if n_ref == 0 {
        return n_hyp as i64;
    }
    let band = Band::new(n_hyp, n_ref);
    let mut words = hyp.to_vec();
    let mut shifts = 0;
    let mut checked = 0;
    loop {
        let forward = Forward::new(&words, reference, &band);
        let distance = forward.distance();
        let alignment = Alignment::from_trace(&forward.trace(&band, n_hyp, n_ref), n_hyp, n_ref);
        let candidates = shift_candidates(&words, reference, &alignment);
        checked += candidates.len();
        // the call that exhausts the budget does not apply its shift
        if checked >= MAX_SHIFT_CANDIDATES || candidates.is_empty() {
            return shifts + distance;
        }
        let mut evaluator = ShiftEvaluator::new(&words, reference, &band, &forward);
        let mut best: Option<(i64, usize, i64, i64, Shift)> = None;
        for shift in candidates {
            let key = (
                distance - evaluator.distance(shift),
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
                words = shift.apply(&words);
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
    let mut best = INF;
    let mut total_len = 0;
    for reference in references {
        let ref_ids: Vec<u32> = py_split(reference.as_ref()).map(&mut intern).collect();
        best = best.min(edits(&hyp_ids, &ref_ids));
        total_len += ref_ids.len() as i64;
    }
    (best, total_len)
}

/// [`segment_stats`] of many segments in parallel, flattened row by row.
pub fn batch_stats<S: AsRef<str> + Sync>(hyps: &[S], refs: &[Vec<S>]) -> Vec<i64> {
    hyps.par_iter()
        .zip(refs.par_iter())
        .flat_map_iter(|(hyp, references)| {
            let (best, total) = segment_stats(hyp.as_ref(), references);
            [best, total]
        })
        .collect()
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
        let mut vocab = FxHashMap::default();
        let h = ids(hyp, &mut vocab);
        let r = ids(reference, &mut vocab);
        edits(&h, &r)
    }

    /// The beam-limited distance recomputed from scratch (no window trick).
    fn full_distance(hyp: &[u32], reference: &[u32]) -> i64 {
        let band = Band::new(hyp.len(), reference.len());
        Forward::new(hyp, reference, &band).distance()
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
        let band = Band::new(3, 3);
        let forward = Forward::new(&h, &h, &band);
        let alignment = Alignment::from_trace(&forward.trace(&band, 3, 3), 3, 3);
        assert!(shift_candidates(&h, &h, &alignment).is_empty());
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
        let ops = forward.trace(&band, 2, 1);
        assert_eq!(ops, vec![Op::HypOnly, Op::Match]); // sacreBLEU: "d "
        let band = Band::new(1, 2);
        let forward = Forward::new(&[5], &[0, 1], &band);
        // traced from the end, where the diagonal wins the tie: the first
        // reference word is the unmatched one (sacreBLEU's trace "is")
        assert_eq!(
            forward.trace(&band, 1, 2),
            vec![Op::RefOnly, Op::Substitute]
        );
    }

    #[test]
    fn band_widens_for_very_unequal_lengths() {
        let band = Band::new(2, 200);
        // ratio 100: beam ceil(50 + 25) = 75 around the diagonal 100
        assert_eq!((band.lo[1], band.hi[1]), (25, 175));
        assert_eq!((band.lo[2], band.hi[2]), (125, 201));
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn windowed_shift_cost_equals_full_recomputation() {
        let mut seed = 7;
        for round in 0..300 {
            let n_hyp = 1 + (lcg(&mut seed) % 90) as usize;
            let n_ref = 1 + (lcg(&mut seed) % 90) as usize;
            let vocab = 2 + (round % 9) as u64;
            let hyp: Vec<u32> = (0..n_hyp)
                .map(|_| (lcg(&mut seed) % vocab) as u32)
                .collect();
            let reference: Vec<u32> = (0..n_ref)
                .map(|_| (lcg(&mut seed) % vocab) as u32)
                .collect();
            let band = Band::new(n_hyp, n_ref);
            let forward = Forward::new(&hyp, &reference, &band);
            let alignment =
                Alignment::from_trace(&forward.trace(&band, n_hyp, n_ref), n_hyp, n_ref);
            let mut evaluator = ShiftEvaluator::new(&hyp, &reference, &band, &forward);
            for shift in shift_candidates(&hyp, &reference, &alignment)
                .into_iter()
                .take(50)
            {
                let shifted = shift.apply(&hyp);
                assert_eq!(shifted.len(), hyp.len());
                assert_eq!(
                    evaluator.distance(shift),
                    full_distance(&shifted, &reference)
                );
            }
        }
    }

    #[test]
    fn alignment_marks_errors_on_both_sides() {
        let band = Band::new(3, 3);
        let forward = Forward::new(&[0, 1, 2], &[0, 3, 2], &band);
        let alignment = Alignment::from_trace(&forward.trace(&band, 3, 3), 3, 3);
        assert_eq!(alignment.hyp_of_ref, vec![0, 1, 2]);
        assert_eq!(alignment.hyp_err, vec![false, true, false]);
        assert_eq!(alignment.ref_err, vec![false, true, false]);
    }

    #[test]
    fn multiple_references_take_the_best_and_sum_lengths() {
        assert_eq!(segment_stats("a b c", &["a b c d", "x y"]), (1, 6));
        assert_eq!(segment_stats("", &["", "a"]), (0, 1));
    }
}
