//! METEOR 1.5's beam search (`Aligner.resolve`): left to right over the
//! reference, each partial alignment either takes one of the matches starting at
//! the current position whose hypothesis words it has not used, or skips the
//! position; the best `beam` partial alignments survive each step.
//!
//! Behaviour kept from the Java original, on purpose:
//! * the search weighs exact matches 1.0 and all others 0.5, truncating the
//!   running weighted totals to integers after every match (so a one-word stem
//!   or synonym match adds nothing to them);
//! * when a path branches, the distance of each match it could take is added to
//!   the path itself, so later branches and the "skip" branch inherit it;
//! * paths are ranked by a stable sort, so ties keep their creation order.
//!
//! The Java original copies every partial alignment and walks every match for
//! every path, O(beam × (n + matches)) a step. Here the paths of a beam share
//! the set of hypothesis words they all use (`common`, which only grows), and
//! each path keeps only the few words it uses beyond it (`extra`). A step lists
//! its matches not over a common word once, with running distance sums; a path
//! then only looks at the matches its extra words block, at the one it may
//! continue its chunk with, and at the head of each group of matches, since a
//! candidate that cannot enter the beam ends its group (later members rank
//! lower).

use super::align::Match;
use super::matches::Candidates;
use super::positions::{Bits, PositionSet};

/// The ranking state of a partial alignment.
#[derive(Clone, Copy, Debug)]
pub(super) struct State {
    pub(super) matches1: i32,
    pub(super) matches2: i32,
    pub(super) chunks: i32,
    pub(super) idx: u32,
    pub(super) last_end: i64,
    pub(super) distance: i64,
}

impl State {
    pub(super) const START: State = State {
        matches1: 0,
        matches2: 0,
        chunks: 0,
        idx: 0,
        last_end: -1,
        distance: 0,
    };

    /// Java's `int += double`: the sum is truncated back to an int.
    fn add_weighted(total: i32, words: u32, weight: f64) -> i32 {
        (f64::from(total) + f64::from(words) * weight) as i32
    }

    pub(super) fn take(&mut self, m: &Match, weight: f64) {
        self.matches1 = State::add_weighted(self.matches1, m.mlen, weight);
        self.matches2 = State::add_weighted(self.matches2, m.len, weight);
        if self.last_end != -1 && i64::from(m.mstart) != self.last_end {
            self.chunks += 1;
        }
        self.idx = m.start + m.len;
        self.last_end = i64::from(m.mstart + m.mlen);
    }

    /// Ends the current chunk and moves past reference position `idx`.
    pub(super) fn skip(&mut self) {
        if self.last_end != -1 {
            self.chunks += 1;
            self.last_end = -1;
        }
        self.idx += 1;
    }
}

/// A candidate's rank, lower is better: METEOR's `PARTIAL_COMPARE_TOTAL` (more
/// weighted matches, then fewer chunks, then less distance), then creation
/// order (the stable sort's tie-breaker) as parent rank and match index.
type Rank = (u64, i64, u64);

/// The creation-order index of a path's "skip" candidate: after its matches.
const SKIP: u32 = u32::MAX;

fn rank(state: &State, parent: usize, index: u32) -> Rank {
    let matches = i64::from(state.matches1) + i64::from(state.matches2);
    let high = ((u64::from(u32::MAX) - matches as u64) << 32) | u64::from(state.chunks as u32);
    (
        high,
        state.distance,
        ((parent as u64) << 32) | u64::from(index),
    )
}

/// A partial alignment.
struct Path<S> {
    state: State,
    /// Hypothesis positions it uses beyond the common ones.
    extra: S,
    /// Its chosen (non-fixed) matches, as the head of a chain shared by all paths.
    chain: Option<u32>,
}

/// A candidate for the next beam: a path continued, or extended by a match.
#[derive(Clone, Copy)]
struct Candidate {
    state: State,
    parent: u32,
    taken: Option<Match>,
}

/// The next beam: the best `width` candidates offered, found by selecting the
/// best `width` whenever twice as many are held; their worst then bars later,
/// worse candidates at once.
struct Beam {
    width: usize,
    candidates: Vec<Candidate>,
    ranks: Vec<(Rank, u32)>,
    bar: Option<Rank>,
}

impl Beam {
    /// Offers a candidate; false if it cannot enter the beam.
    fn offer(&mut self, rank: Rank, candidate: Candidate) -> bool {
        if self.bar.is_some_and(|bar| rank >= bar) {
            return false;
        }
        self.ranks.push((rank, self.candidates.len() as u32));
        self.candidates.push(candidate);
        if self.ranks.len() >= 2 * self.width {
            self.keep_best();
        }
        true
    }

    fn keep_best(&mut self) {
        if self.ranks.len() > self.width {
            self.ranks.select_nth_unstable(self.width - 1);
            self.ranks.truncate(self.width);
            self.bar = self.ranks.iter().map(|r| r.0).max();
        }
    }

    /// The best `width` candidates offered, best first (as `(rank, index)`).
    fn finish(&mut self) -> &[(Rank, u32)] {
        self.keep_best();
        self.ranks.sort_unstable();
        &self.ranks
    }

    fn clear(&mut self) {
        self.candidates.clear();
        self.ranks.clear();
        self.bar = None;
    }
}

/// One step's matches that no common word blocks, in list order.
#[derive(Clone, Copy)]
struct Open {
    m: Match,
    group: u32,
    dist: i64,
    /// The summed distances of the open matches before this one.
    before: i64,
}

/// What one step lists once for all of its paths.
#[derive(Default)]
struct Step {
    open: Vec<Open>,
    total: i64,
    /// Per group, its open matches kept (indices into `open`, ascending).
    by_group: Vec<Vec<u32>>,
    /// Per group, how many of its kept matches are neither touched nor starters.
    plain: Vec<u32>,
    groups_here: Vec<u32>,
    /// Open matches over some path's extra word, or starting where some path's chunk ends.
    touched: Vec<u32>,
    starters: Vec<u32>,
    /// For each open match, 1 + the rank of the path last found unable to take it.
    blocked: Vec<u32>,
}

/// Per-path scratch: the open matches its extra words block and their distances.
#[derive(Default)]
struct Blocked {
    /// Scratch: per group, how many matches continuing the chunk were offered.
    continuing: Vec<(u32, usize)>,
    open: Vec<u32>,
    /// `sums[k]` = summed distances of `open[..k]`.
    sums: Vec<i64>,
}

impl Blocked {
    /// The summed distances of the blocked matches before open match `t`.
    fn before(&self, t: u32) -> i64 {
        self.sums[self.open.partition_point(|&v| v < t)]
    }
}

/// The fixed inputs of a search.
pub struct Search<'a> {
    pub candidates: &'a Candidates<'a>,
    /// Per reference position, the fixed match starting there.
    pub fixed: &'a [Option<Match>],
    /// Reference positions covered by fixed matches.
    pub fixed_ref: &'a [bool],
    /// Hypothesis positions covered by fixed matches.
    pub fixed_hyp: &'a [bool],
    /// Per module, the weight of its matches.
    pub weights: &'a [f64],
    pub beam: usize,
}

fn distance_of(m: &Match) -> i64 {
    (i64::from(m.start) - i64::from(m.mstart)).abs()
}

impl Search<'_> {
    /// The chosen matches of the best alignment, per reference position (fixed ones included).
    pub fn run(&self) -> Vec<Option<Match>> {
        if u128::fits(self.fixed_hyp.len()) {
            self.run_with::<u128>()
        } else {
            self.run_with::<Vec<u32>>()
        }
    }

    /// [`Search::run`] keeping each path's extra positions as an `S`.
    fn run_with<S: PositionSet>(&self) -> Vec<Option<Match>> {
        let m = self.fixed.len();
        let n = self.fixed_hyp.len();
        let mut common = Bits::new(n);
        for (i, _) in self.fixed_hyp.iter().enumerate().filter(|(_, &f)| f) {
            common.set(i as u32);
        }
        let start = State::START;
        let mut paths = vec![Path {
            state: start,
            extra: S::default(),
            chain: None,
        }];
        let mut next_paths: Vec<Path<S>> = Vec::new();
        let mut chain: Vec<(Match, Option<u32>)> = Vec::new();
        let mut beam = Beam {
            width: self.beam,
            candidates: Vec::new(),
            ranks: Vec::new(),
            bar: None,
        };
        let mut step = Step {
            by_group: vec![Vec::new(); self.candidates.n_groups()],
            plain: vec![0; self.candidates.n_groups()],
            ..Step::default()
        };
        let mut blocked = Blocked::default();
        // the extra positions of a step's paths, and where their chunks end
        let mut extra_marks = S::new_marks(n);
        let mut end_marks = S::new_marks(n);
        let mut ranked: Vec<(Rank, u32)> = Vec::new();
        let mut shared = S::default();
        let mut order: Vec<(Rank, u32)> = Vec::new();
        for current in 0..=m {
            beam.clear();
            let last = current == m;
            let fixed_here = !last && self.fixed_ref[current];
            let active = |p: &Path<S>| !last && !fixed_here && p.state.idx as usize == current;
            let any_active = paths.iter().any(active);
            if any_active {
                S::reset(&mut extra_marks);
                S::reset(&mut end_marks);
                for p in paths.iter().filter(|p| active(p)) {
                    p.extra.mark_all(&mut extra_marks);
                    if let Ok(end) = u32::try_from(p.state.last_end) {
                        S::mark(&mut end_marks, end);
                    }
                }
                self.list_open::<S>(current, &common, &extra_marks, &end_marks, &mut step);
            }
            // A step where no path can take a match gives each path one successor
            // (itself moved on): the beam keeps them all, in rank order.
            if !last
                && (!any_active || step.open.is_empty())
                && self.step_in_place(current, fixed_here, &mut paths, &mut next_paths, &mut order)
            {
                continue;
            }
            for (r, path) in paths.iter().enumerate() {
                let mut state = path.state;
                if last {
                    if state.last_end != -1 {
                        state.chunks += 1;
                    }
                } else if (current as u32) < state.idx {
                    // inside a match this path already took
                } else if fixed_here {
                    let Some(fm) = self.fixed[state.idx as usize] else {
                        // METEOR drops such a path (it cannot occur)
                        continue;
                    };
                    state.take(&fm, self.weights[fm.module as usize]);
                    state.distance += distance_of(&fm);
                } else {
                    self.branch(path, r, &mut step, &mut blocked, &mut beam);
                    continue;
                }
                let candidate = Candidate {
                    state,
                    parent: r as u32,
                    taken: None,
                };
                beam.offer(rank(&state, r, 0), candidate);
            }
            if beam.candidates.is_empty() {
                // METEOR warns and carries its best path on unchanged
                let state = paths[0].state;
                let carry = Candidate {
                    state,
                    parent: 0,
                    taken: None,
                };
                beam.offer(rank(&state, 0, 0), carry);
            }
            ranked.clear();
            ranked.extend_from_slice(beam.finish());
            if last {
                break;
            }
            next_paths.resize_with(ranked.len(), || Path {
                state: start,
                extra: S::default(),
                chain: None,
            });
            for (path, &(_, c)) in next_paths.iter_mut().zip(&ranked) {
                let c = beam.candidates[c as usize];
                let parent = &paths[c.parent as usize];
                path.state = c.state;
                path.extra.assign(&parent.extra);
                path.chain = parent.chain;
                if let Some(mt) = c.taken {
                    for q in mt.mstart..mt.mstart + mt.mlen {
                        path.extra.insert(q);
                    }
                    chain.push((mt, path.chain));
                    path.chain = Some((chain.len() - 1) as u32);
                }
            }
            std::mem::swap(&mut paths, &mut next_paths);
            // words every path uses become common
            shared.assign(&paths[0].extra);
            for p in &paths[1..] {
                if shared.is_empty() {
                    break;
                }
                shared.intersect(&p.extra);
            }
            if !shared.is_empty() {
                shared.for_each(|x| common.set(x));
                for p in &mut paths {
                    p.extra.subtract(&shared);
                }
            }
        }
        let best = beam.candidates[ranked[0].1 as usize];
        let mut chosen = self.fixed.to_vec();
        let mut link = paths[best.parent as usize].chain;
        while let Some(i) = link {
            let (mt, prev) = chain[i as usize];
            chosen[mt.start as usize] = Some(mt);
            link = prev;
        }
        chosen
    }

    /// A step at reference position `current` where no path branches: a path
    /// inside a match it took stays as it is, one at a fixed match takes it, one
    /// at an open position (with no match it could take) skips it. Each path has
    /// exactly one candidate, so the beam keeps every one, ranked as the general
    /// step ranks them (the parent's rank breaks ties). False, with nothing
    /// changed, if some path would be dropped (left to the general step).
    fn step_in_place<S: PositionSet>(
        &self,
        current: usize,
        fixed_here: bool,
        paths: &mut Vec<Path<S>>,
        next_paths: &mut Vec<Path<S>>,
        order: &mut Vec<(Rank, u32)>,
    ) -> bool {
        let at = |p: &Path<S>| p.state.idx as usize == current;
        if fixed_here && paths.iter().any(|p| at(p) && self.fixed[current].is_none()) {
            return false;
        }
        order.clear();
        for (r, path) in paths.iter_mut().enumerate() {
            let state = &mut path.state;
            if (current as u32) < state.idx {
                // inside a match this path already took
            } else if fixed_here {
                let fm = self.fixed[current].expect("checked above");
                state.take(&fm, self.weights[fm.module as usize]);
                state.distance += distance_of(&fm);
            } else {
                state.skip();
            }
            order.push((rank(state, r, 0), r as u32));
        }
        if order.windows(2).all(|w| w[0].0 < w[1].0) {
            return true;
        }
        order.sort_unstable();
        next_paths.clear();
        next_paths.extend(order.iter().map(|&(_, r)| {
            let p = &mut paths[r as usize];
            Path {
                state: p.state,
                extra: std::mem::take(&mut p.extra),
                chain: p.chain,
            }
        }));
        std::mem::swap(paths, next_paths);
        true
    }

    /// Lists the matches at reference position `current` that no common word blocks.
    fn list_open<S: PositionSet>(
        &self,
        current: usize,
        common: &Bits,
        extra_marks: &S::Marks,
        end_marks: &S::Marks,
        step: &mut Step,
    ) {
        for &g in &step.groups_here {
            step.by_group[g as usize].clear();
            step.plain[g as usize] = 0;
        }
        step.groups_here.clear();
        step.open.clear();
        step.touched.clear();
        step.starters.clear();
        // A path takes at most `beam` of a group's matches that it neither finds
        // blocked by its extra words (`touched`) nor continues its chunk with
        // (`starters`); so beyond the first `beam` others, a group keeps only those.
        let mut before = 0i64;
        self.candidates.for_each_at(current, |m, group| {
            // a match over a fixed word can never be taken, and adds no distance
            let over_fixed_ref = || (m.start..m.start + m.len).any(|p| self.fixed_ref[p as usize]);
            if common.any(m.mstart, m.mlen) || (m.len > 1 && over_fixed_ref()) {
                return;
            }
            let dist = distance_of(&m);
            let touched = S::any_marked(extra_marks, m.mstart, m.mlen);
            let starts = S::is_marked(end_marks, m.mstart);
            let plain = &mut step.plain[group as usize];
            if touched || starts || (*plain as usize) < self.beam {
                let t = step.open.len() as u32;
                step.open.push(Open {
                    m,
                    group,
                    dist,
                    before,
                });
                let members = &mut step.by_group[group as usize];
                if members.is_empty() {
                    step.groups_here.push(group);
                }
                members.push(t);
                if touched {
                    step.touched.push(t);
                }
                if starts {
                    step.starters.push(t);
                }
                if !(touched || starts) {
                    *plain += 1;
                }
            }
            before += dist;
        });
        step.total = before;
        step.blocked.clear();
        step.blocked.resize(step.open.len(), 0);
    }

    /// Offers the candidates of a path at a position where it may take a match.
    fn branch<S: PositionSet>(
        &self,
        path: &Path<S>,
        r: usize,
        step: &mut Step,
        blocked: &mut Blocked,
        beam: &mut Beam,
    ) {
        let state = path.state;
        let mark = r as u32 + 1;
        let mut continuing = std::mem::take(&mut blocked.continuing);
        continuing.clear();
        blocked.open.clear();
        blocked.sums.clear();
        blocked.sums.push(0);
        for &t in &step.touched {
            let m = step.open[t as usize].m;
            if path.extra.overlaps(m.mstart, m.mlen) {
                step.blocked[t as usize] = mark;
                blocked.open.push(t);
                let sum = blocked.sums.last().copied().unwrap_or(0);
                blocked.sums.push(sum + step.open[t as usize].dist);
            }
        }
        let step = &*step;
        let candidate = |t: u32| {
            let open = step.open[t as usize];
            let mut taken = state;
            taken.distance += open.before - blocked.before(t);
            taken.take(&open.m, self.weights[open.m.module as usize]);
            (
                rank(&taken, r, t),
                Candidate {
                    state: taken,
                    parent: r as u32,
                    taken: Some(open.m),
                },
            )
        };
        let usable = |t: u32| step.blocked[t as usize] != mark;
        let continues = |t: u32| i64::from(step.open[t as usize].m.mstart) == state.last_end;
        // Within a group (same module and lengths) and a kind (continuing the
        // chunk or not), candidates rank in list order: equal matches and chunks,
        // growing distance. METEOR keeps at most `beam` of each.
        for &t in step.starters.iter().filter(|&&t| usable(t) && continues(t)) {
            let group = step.open[t as usize].group;
            let seen = match continuing.iter_mut().find(|(g, _)| *g == group) {
                Some((_, seen)) => seen,
                None => {
                    continuing.push((group, 0));
                    &mut continuing.last_mut().expect("just pushed").1
                }
            };
            if *seen < self.beam {
                *seen += 1;
                let (rank, c) = candidate(t);
                beam.offer(rank, c);
            }
        }
        for &g in &step.groups_here {
            let mut seen = 0;
            for &t in step.by_group[g as usize].iter() {
                if !usable(t) || continues(t) {
                    continue;
                }
                let (rank, c) = candidate(t);
                seen += 1;
                if !beam.offer(rank, c) || seen == self.beam {
                    break;
                }
            }
        }
        let mut skipped = state;
        skipped.distance += step.total - blocked.sums.last().copied().unwrap_or(0);
        skipped.skip();
        let c = Candidate {
            state: skipped,
            parent: r as u32,
            taken: None,
        };
        beam.offer(rank(&skipped, r, SKIP), c);
        blocked.continuing = continuing;
    }
}
