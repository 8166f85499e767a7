//! Python bindings of the captioning kernels (`nlpeval._core`): `PtbLexer` and
//! `cider_image_sums`.

use super::cider::{self, Corpus, Weights};
use super::ptb::{Action, CharTables, Lexer, Needs, RuleSpec};
use crate::common::py::{to_array2, value_error, OrValueError};
use crate::text::py_split;
use crate::text::py_text::texts;
use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One rule of `ptb_rules`: name, pattern (token as group 1, then the trailing context),
/// whether it has a context, action name, the characters or the pattern one of which must
/// occur in the text, and the pattern of its first character.
type RuleTuple = (
    String,
    String,
    bool,
    String,
    Option<String>,
    Option<String>,
    String,
);

/// The PTB lexer of `nlpeval.tokenizers.ptb` over the rules and Python character tables given.
#[pyclass(frozen, module = "nlpeval._core")]
struct PtbLexer {
    lexer: Lexer,
}

#[pymethods]
impl PtbLexer {
    #[new]
    fn new(
        rules: Vec<RuleTuple>,
        flags: &Bound<'_, PyBytes>,
        lower: Vec<(char, String)>,
    ) -> PyResult<Self> {
        let mut specs = Vec::with_capacity(rules.len());
        for (name, pattern, context, action, chars, needs, first) in rules {
            let action = Action::from_name(&action).ok_or_else(|| {
                value_error(format!(
                    "unknown PTB lexer action {action:?} of rule {name}"
                ))
            })?;
            let needs = match (chars, needs) {
                (Some(chars), None) => Needs::AnyOf(chars.chars().collect()),
                (None, Some(pattern)) => Needs::Pattern(pattern),
                (None, None) => Needs::Nothing,
                (Some(_), Some(_)) => {
                    return Err(value_error(format!(
                        "rule {name}: needs characters or a pattern"
                    )))
                }
            };
            specs.push(RuleSpec {
                name,
                pattern,
                context,
                action,
                needs,
                first,
            });
        }
        let tables = CharTables::new(flags.as_bytes().to_vec(), lower).or_value_error()?;
        Ok(PtbLexer {
            lexer: Lexer::new(specs, tables).or_value_error()?,
        })
    }

    /// pycocoevalcap's line of each caption (one batch), `None` where the Python tokenizer
    /// must decide.
    fn coco_lines(
        &self,
        py: Python<'_>,
        captions: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Option<String>>> {
        let captions = texts(captions)?;
        let captions = captions.strs()?;
        Ok(py.detach(|| self.lexer.coco_lines(&captions)))
    }

    /// The PTB tokens of `text` (`"\n"` marks a line break), `None` where the Python tokenizer
    /// must decide.
    #[pyo3(signature = (text, following=None))]
    fn tokens(&self, text: &str, following: Option<&str>) -> Option<Vec<String>> {
        let mut scratch = self.lexer.scratch();
        self.lexer.ptb_tokens(&mut scratch, text, following)
    }
}

/// CIDEr(-D) per image and order, summed over the image's references, `(images, max_order)`
/// float64: `hyps` and `refs` are lines (split like `str.split()`), `counts[i]` references per
/// image, `log_df[d]` = `np.log(max(1, d))`, `ref_len` = `np.log(images)`, `penalty[d]` the
/// length penalty of a bigram-count difference `d` (None: the original CIDEr).
#[pyfunction]
#[pyo3(signature = (hyps, refs, counts, log_df, ref_len, penalty=None, max_order=4))]
#[allow(clippy::too_many_arguments)]
fn cider_image_sums<'py>(
    py: Python<'py>,
    hyps: &Bound<'py, PyAny>,
    refs: &Bound<'py, PyAny>,
    counts: Vec<usize>,
    log_df: PyReadonlyArray1<'py, f64>,
    ref_len: f64,
    penalty: Option<PyReadonlyArray1<'py, f64>>,
    max_order: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (hyps, refs) = (texts(hyps)?, texts(refs)?);
    let (hyps, refs) = (hyps.strs()?, refs.strs()?);
    let log_df = log_df.as_slice()?;
    let penalty = match &penalty {
        Some(table) => Some(table.as_slice()?),
        None => None,
    };
    let images = hyps.len();
    let sums = py
        .detach(|| {
            let hyps: Vec<Vec<&str>> = hyps.iter().map(|line| py_split(line).collect()).collect();
            let refs: Vec<Vec<&str>> = refs.iter().map(|line| py_split(line).collect()).collect();
            let corpus = Corpus {
                hyps: &hyps,
                refs: &refs,
                counts: &counts,
            };
            let weights = Weights {
                log_df,
                ref_len,
                penalty,
                max_order,
            };
            cider::image_sums(&corpus, &weights)
        })
        .or_value_error()?;
    to_array2(py, sums, images, max_order)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PtbLexer>()?;
    m.add_function(wrap_pyfunction!(cider_image_sums, m)?)?;
    Ok(())
}
