//! The Python class of WordNet's lemma index (`nlpeval._core.WordNetIndex`,
//! over [`crate::meteor::wordnet_index::StrTable`]).

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use rayon::prelude::*;

use super::paraphrases::borrowed_storage;
use crate::common::parallel::detached;
use crate::common::py::{value_error, OrValueError};
use crate::meteor::paraphrase::Storage;
use crate::meteor::wordnet_index::{exception_bases, StrTable, FORMAT};

/// WordNet's lemma index: lemma -> packed entries (`"pos offset ...|pos ..."`).
#[pyclass(module = "nlpeval._core", frozen)]
pub struct WordNetIndex {
    table: StrTable,
}

#[pymethods]
impl WordNetIndex {
    /// The index of `lemmas` and their packed `entries`.
    #[staticmethod]
    fn from_pairs(
        py: Python<'_>,
        lemmas: Vec<String>,
        entries: Vec<String>,
    ) -> PyResult<WordNetIndex> {
        if lemmas.len() != entries.len() {
            return Err(value_error("lemmas and entries differ in length"));
        }
        let pairs: Vec<(String, String)> = lemmas.into_iter().zip(entries).collect();
        let table = py.detach(|| StrTable::build(pairs)).or_value_error()?;
        Ok(WordNetIndex { table })
    }

    /// An index over the bytes of `to_bytes` (a read-only, C-contiguous `uint8`
    /// array such as `np.memmap(path, mode="r")`, kept alive by the index), used
    /// in place. Raises `ValueError` when the bytes are not such an index.
    #[staticmethod]
    fn from_buffer(array: PyReadonlyArray1<'_, u8>) -> PyResult<WordNetIndex> {
        let table = StrTable::from_storage(borrowed_storage(array)?).or_value_error()?;
        Ok(WordNetIndex { table })
    }

    /// An index over the bytes of the file `path` (`to_bytes`'s output), memory-mapped
    /// read-only without NumPy. Raises `OSError` when the file does not open and
    /// `ValueError` when its bytes are not such an index.
    #[staticmethod]
    fn open(path: &str) -> PyResult<WordNetIndex> {
        let storage = crate::meteor::mapped::map_file(path)?;
        let table = StrTable::from_storage(storage).or_value_error()?;
        Ok(WordNetIndex { table })
    }

    /// An index over a copy of `data` (the bytes of `to_bytes`; used by pickling).
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<WordNetIndex> {
        let mut words = vec![0u64; data.len().div_ceil(8)];
        for (word, chunk) in words.iter_mut().zip(data.chunks(8)) {
            let mut bytes = [0u8; 8];
            bytes[..chunk.len()].copy_from_slice(chunk);
            *word = u64::from_ne_bytes(bytes);
        }
        if words.len() * 8 != data.len() {
            return Err(value_error("not a WordNet index: length"));
        }
        let table = StrTable::from_storage(Storage::Owned(words)).or_value_error()?;
        Ok(WordNetIndex { table })
    }

    /// Pickles as its bytes.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, pyo3::types::PyBytes>,))> {
        let rebuild = slf.get_type().getattr("from_bytes")?;
        Ok((rebuild, (slf.get().to_bytes(slf.py()),)))
    }

    /// The index's bytes (what `from_buffer` reads).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, self.table.bytes())
    }

    /// Version of the byte layout of `to_bytes` (part of the cache's key).
    #[classattr]
    fn format() -> u64 {
        FORMAT
    }

    /// The packed entries of `lemma`, or `default`.
    #[pyo3(signature = (lemma, default=None))]
    fn get(&self, lemma: &str, default: Option<String>) -> Option<String> {
        self.table.get(lemma).map(str::to_string).or(default)
    }

    fn __contains__(&self, lemma: &str) -> bool {
        self.table.get(lemma).is_some()
    }

    fn __len__(&self) -> usize {
        self.table.len()
    }

    /// The lemmas, in byte order.
    fn keys(&self) -> Vec<String> {
        (0..self.table.len())
            .map(|i| String::from_utf8_lossy(self.table.item(0, i)).into_owned())
            .collect()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
        pyo3::types::PyList::new(py, self.keys())?.try_iter()
    }

    /// `(lemma, entries)` pairs in byte order of the lemmas.
    fn items(&self) -> Vec<(String, String)> {
        (0..self.table.len())
            .map(|i| {
                let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                (s(self.table.item(0, i)), s(self.table.item(1, i)))
            })
            .collect()
    }

    /// METEOR 1.5's `morph` of `word` (see `WordNet.meteor_morph`).
    fn meteor_morph(&self, word: &str) -> String {
        self.table.meteor_morph(word).into_owned()
    }

    /// METEOR 1.5's synset offsets of each word, flat with lengths, with the
    /// base forms of the exception lists read from `exceptions` (the text of the
    /// `*.exc` files, read as `WordNet._bases` reads them in Python: every line,
    /// split on whitespace, adds its other terms to its first term's bases).
    fn meteor_synsets_exc(
        &self,
        py: Python<'_>,
        words: Vec<String>,
        exceptions: Vec<String>,
    ) -> (Vec<i32>, Vec<i64>) {
        detached(py, || {
            let bases = exception_bases(&exceptions);
            let found: Vec<Vec<i32>> = words
                .par_iter()
                .with_min_len(256)
                .map(|w| {
                    self.table
                        .meteor_synsets_ref(w, bases.get(w.as_str()).map(Vec::as_slice))
                })
                .collect();
            let lens = found.iter().map(|f| f.len() as i64).collect();
            (found.concat(), lens)
        })
    }

    /// METEOR 1.5's synset offsets of each word, flat with lengths; `bases[i]`
    /// are word i's base forms in the exception lists, or `None`.
    fn meteor_synsets(
        &self,
        py: Python<'_>,
        words: Vec<String>,
        bases: Vec<Option<Vec<String>>>,
    ) -> PyResult<(Vec<i32>, Vec<i64>)> {
        if words.len() != bases.len() {
            return Err(value_error("words and bases differ in length"));
        }
        Ok(py.detach(|| {
            let mut flat = Vec::new();
            let mut lens = Vec::with_capacity(words.len());
            for (word, bases) in words.iter().zip(&bases) {
                let found = self.table.meteor_synsets(word, bases.as_deref());
                lens.push(found.len() as i64);
                flat.extend(found);
            }
            (flat, lens)
        }))
    }
}
