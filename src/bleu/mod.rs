//! BLEU: n-gram statistics of token sequences (`ngram`), of text with the
//! references prepared once (`refs`), and scores from statistics rows (`score`).

pub mod ngram;
pub mod py;
pub mod refs;
pub mod score;
