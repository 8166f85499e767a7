//! Captioning metrics' kernels (issue 26): pycocoevalcap's PTB tokenization and CIDEr(-D).
//!
//! * [`ptb`]: the COCO caption tokenizer (CoreNLP 3.4.1's `PTBTokenizer` as pycocoevalcap runs
//!   it, then lowercasing and pycocoevalcap's punctuation filter). The lexer's rules stay in
//!   Python (`nlpeval.tokenizers.ptb_rules`); the binding hands their patterns to [`ptb::Lexer`],
//!   which runs the same steps as `nlpeval.tokenizers.ptb` and answers `None` for a caption it
//!   does not cover (the Python tokenizer then takes it).
//! * [`cider`]: both corpus passes of CIDEr-D / CIDEr over token sequences (document frequencies
//!   over the reference sets, then each image's tf-idf cosines), in pycocoevalcap's summation
//!   order.
//!
//! Nothing here keeps state between calls: a [`ptb::Lexer`] is immutable and each call makes its
//! own regex caches ([`ptb::Scratch`]), so calls are safe from any thread and in a forked child.

pub mod cider;
pub mod ptb;
pub mod py;
