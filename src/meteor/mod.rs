//! METEOR kernels: NLTK's METEOR and METEOR 1.5 (Denkowski & Lavie, 2014).
//!
//! * [`porter`] / [`snowball`]: the stemmers of the two flavors;
//! * [`nltk`]: NLTK's greedy three-stage matching;
//! * [`align`]: METEOR 1.5's aligner: [`matches`] finds candidate matches by
//!   module, [`search`] runs the beam search over them (keeping sets of
//!   [`positions`]);
//! * [`paraphrase`]: METEOR 1.5 paraphrase tables;
//! * [`normalize`]: METEOR 1.5's `-norm` tokenization;
//! * [`java`]: the Java string semantics METEOR 1.5 depends on;
//! * [`tokens`]: splitting and interning a batch of texts;
//! * [`wordnet_index`]: WordNet's lemma index as one flat, mappable table;
//! * [`py`]: the Python bindings.

pub mod align;
pub mod corpus;
pub mod java;
pub mod mapped;
pub mod matches;
pub mod nltk;
pub mod normalize;
pub mod paraphrase;
pub mod positions;
pub mod py;
pub mod search;
#[cfg(test)]
mod search_oracle;
pub mod snowball;
pub mod tokens;
pub mod wordnet_index;
