//! Retrieval evaluation: TREC qrels and run files read natively and the judged documents placed
//! in each ranking with trec_eval's tie-breaking, giving the arrays `nlpeval.ir` computes every
//! measure from (`nlpeval.ir.ranking.Placed`), and the measures from them.

pub mod measures;
pub mod parse;
pub mod place;
pub mod py;
pub mod source;
