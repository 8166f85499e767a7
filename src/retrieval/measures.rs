//! trec_eval's measures from the placed rows (`nlpeval.ir.compute.Evaluation` computes the same
//! values with NumPy): each query's row of relevant retrieved documents `(rank, level)` ascending by
//! rank, and its ideal levels descending. Terms are formed and added as trec_eval forms and adds them
//! (`rel_so_far / (rank + 1)`, `gain / log2(rank + 2)`, sums in rank order), so every value equals the
//! NumPy one and trec_eval's (`log2` from the C library, as trec_eval's).

use rayon::prelude::*;

/// A measure's kind, as `nlpeval.ir.measures.Measure.kind` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    P,
    Recall,
    Success,
    Rprec,
    RecipRank,
    Map,
    Ndcg,
    NdcgExp,
}

impl Kind {
    /// The kind of a `Measure.kind` string (`None` for an unknown one).
    pub fn parse(kind: &str) -> Option<Kind> {
        Some(match kind {
            "P" => Kind::P,
            "recall" => Kind::Recall,
            "success" => Kind::Success,
            "Rprec" => Kind::Rprec,
            "recip_rank" => Kind::RecipRank,
            "map" => Kind::Map,
            "ndcg" => Kind::Ndcg,
            "ndcg_exp" => Kind::NdcgExp,
            _ => return None,
        })
    }
}

/// One measure: its kind and cutoff (`None`: the whole ranking; P, recall and success need one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub kind: Kind,
    pub k: Option<i64>,
}

/// One query's placed row: ranks and levels of its relevant retrieved documents (ascending ranks,
/// padding past the hits is allowed: levels < 1 are ignored) and its ideal levels (descending).
pub struct Row<'a> {
    pub ranks: &'a [i64],
    pub rels: &'a [i64],
    pub ideal: &'a [i64],
}

fn ratio(numerator: f64, denominator: i64) -> f64 {
    if denominator != 0 {
        numerator / denominator as f64
    } else {
        0.0
    }
}

fn gain(level: i64, exponential: bool) -> f64 {
    if level <= 0 {
        0.0
    } else if exponential {
        // NumPy's ldexp(1.0, level) - 1.0: 2**level exactly, then minus one
        let power = if level > 1100 {
            f64::INFINITY
        } else {
            2f64.powi(level as i32)
        };
        power - 1.0
    } else {
        level as f64
    }
}

impl Row<'_> {
    fn relevant_in_top(&self, level: i64, k: i64) -> i64 {
        self.ranks
            .iter()
            .zip(self.rels)
            .filter(|&(&rank, &rel)| rel >= level && rank < k)
            .count() as i64
    }

    fn value(&self, spec: Spec, level: i64, num_rel: i64) -> f64 {
        let cut = spec.k.unwrap_or(i64::MAX);
        match spec.kind {
            Kind::P => self.relevant_in_top(level, cut) as f64 / cut as f64,
            Kind::Recall => ratio(self.relevant_in_top(level, cut) as f64, num_rel),
            Kind::Success => f64::from(u8::from(self.relevant_in_top(level, cut) > 0)),
            Kind::Rprec => ratio(self.relevant_in_top(level, num_rel) as f64, num_rel),
            Kind::RecipRank => self
                .ranks
                .iter()
                .zip(self.rels)
                .find(|&(_, &rel)| rel >= level)
                .map_or(0.0, |(&rank, _)| {
                    if rank < cut {
                        1.0 / (rank as f64 + 1.0)
                    } else {
                        0.0
                    }
                }),
            Kind::Map => {
                let mut so_far = 0i64;
                let mut sum = 0.0;
                for (&rank, &rel) in self.ranks.iter().zip(self.rels) {
                    if rel >= level {
                        so_far += 1;
                        if rank < cut {
                            sum += so_far as f64 / (rank as f64 + 1.0);
                        }
                    }
                }
                ratio(sum, num_rel)
            }
            Kind::Ndcg | Kind::NdcgExp => {
                let exponential = spec.kind == Kind::NdcgExp;
                let mut dcg = 0.0;
                for (&rank, &rel) in self.ranks.iter().zip(self.rels) {
                    let g = gain(rel, exponential);
                    if g > 0.0 && rank < cut {
                        dcg += g / (rank as f64 + 2.0).log2();
                    }
                }
                let depth = usize::try_from(cut)
                    .unwrap_or(usize::MAX)
                    .min(self.ideal.len());
                let mut ideal = 0.0;
                for (position, &rel) in self.ideal[..depth].iter().enumerate() {
                    let g = gain(rel, exponential);
                    if g > 0.0 {
                        ideal += g / (position as f64 + 2.0).log2();
                    }
                }
                if ideal != 0.0 {
                    dcg / ideal
                } else {
                    0.0
                }
            }
        }
    }
}

/// Every measure of every query: `out[q * specs.len() + m]`, `n` queries' `(ranks, rels)` rows of `width`
/// and `levels` rows of `depth` (row-major, as [`super::place::Placed`] holds them), in parallel
/// over queries from [`crate::common::parallel::PARALLEL_MIN_SEGMENTS`] of them.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    ranks: &[i64],
    rels: &[i64],
    n: usize,
    width: usize,
    levels: &[i64],
    depth: usize,
    specs: &[Spec],
    level: i64,
) -> Vec<f64> {
    let mut out = vec![0.0; n * specs.len()];
    if specs.is_empty() || n == 0 {
        return out;
    }
    let fill = |(q, row): (usize, &mut [f64])| {
        let placed = Row {
            ranks: &ranks[q * width..(q + 1) * width],
            rels: &rels[q * width..(q + 1) * width],
            ideal: if depth == 0 {
                &[]
            } else {
                &levels[q * depth..(q + 1) * depth]
            },
        };
        let num_rel = placed.ideal.iter().filter(|&&l| l >= level).count() as i64;
        for (slot, &spec) in row.iter_mut().zip(specs) {
            *slot = placed.value(spec, level, num_rel);
        }
    };
    if n >= crate::common::parallel::PARALLEL_MIN_SEGMENTS {
        crate::common::parallel::install(|| {
            out.par_chunks_mut(specs.len())
                .enumerate()
                .with_min_len(64)
                .for_each(fill)
        });
    } else {
        out.chunks_mut(specs.len()).enumerate().for_each(fill);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: Kind, k: Option<i64>) -> Spec {
        Spec { kind, k }
    }

    #[test]
    fn the_python_docstring_example() {
        // evaluate(place({"q": {"a": 1, "b": 2}}, {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}), map, P@2)
        let values = evaluate(
            &[1, 2],
            &[1, 2],
            1,
            2,
            &[2, 1],
            2,
            &[spec(Kind::Map, None), spec(Kind::P, Some(2))],
            1,
        );
        assert_eq!(values, vec![(1.0 / 2.0 + 2.0 / 3.0) / 2.0, 0.5]);
    }

    #[test]
    fn cutoffs_levels_and_empty_rows() {
        // hits at ranks 0 and 3 (levels 1 and 3), one more relevant document never retrieved
        let ranks = [0, 3, i64::MAX / 4];
        let rels = [1, 3, 0];
        let ideal = [3, 2, 1];
        let specs = [
            spec(Kind::RecipRank, None),
            spec(Kind::RecipRank, Some(1)),
            spec(Kind::Recall, Some(3)),
            spec(Kind::Success, Some(3)),
            spec(Kind::Rprec, None),
            spec(Kind::Map, Some(2)),
            spec(Kind::Ndcg, Some(1)),
            spec(Kind::NdcgExp, None),
        ];
        let v = evaluate(&ranks, &rels, 1, 3, &ideal, 3, &specs, 1);
        let ideal_exp = 7.0 / 2f64.log2() + 3.0 / 3f64.log2() + 1.0 / 4f64.log2();
        let expected = [
            1.0,
            1.0,
            1.0 / 3.0,
            1.0,
            1.0 / 3.0,
            1.0 / 3.0,
            (1.0 / 2f64.log2()) / (3.0 / 2f64.log2()),
            (1.0 / 2f64.log2() + 7.0 / 5f64.log2()) / ideal_exp,
        ];
        assert_eq!(v, expected);
        // relevance level 2: only the level-3 hit counts
        let v = evaluate(&ranks, &rels, 1, 3, &ideal, 3, &specs[..2], 2);
        assert_eq!(v, vec![0.25, 0.0]);
        // a query without judged hits or relevant documents scores 0 everywhere
        let v = evaluate(&[i64::MAX / 4], &[0], 1, 1, &[0], 1, &specs, 1);
        assert_eq!(v, vec![0.0; specs.len()]);
    }
}
