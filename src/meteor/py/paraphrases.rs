//! The Python class of a METEOR 1.5 paraphrase table (`nlpeval._core.MeteorParaphrases`).

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::common::py::{value_error, OrValueError};
use crate::meteor::paraphrase::{Storage, Table, FORMAT};

/// A METEOR 1.5 paraphrase table: parsed from its text, or used in place from
/// the bytes of its cache file (a memory-mapped NumPy array).
#[pyclass(module = "nlpeval._core", frozen)]
pub struct MeteorParaphrases {
    pub table: Table,
}

#[pymethods]
impl MeteorParaphrases {
    /// Parses the decompressed text of a table.
    #[staticmethod]
    fn from_text(py: Python<'_>, data: &[u8]) -> PyResult<MeteorParaphrases> {
        let text = String::from_utf8_lossy(data);
        let table = py.detach(|| Table::parse(&text)).or_value_error()?;
        Ok(MeteorParaphrases { table })
    }

    /// A table over the bytes of `save`'s output, used where they lie (no copy):
    /// a read-only, C-contiguous `uint8` array such as `np.memmap(path, mode="r")`,
    /// kept alive by the table. Raises `ValueError` when the bytes are not such a
    /// table (another format version, truncated, damaged header).
    #[staticmethod]
    fn from_buffer(array: PyReadonlyArray1<'_, u8>) -> PyResult<MeteorParaphrases> {
        let table = Table::from_storage(borrowed_storage(array)?).or_value_error()?;
        Ok(MeteorParaphrases { table })
    }

    /// A table over the bytes of the file `path` (`save`'s output), memory-mapped
    /// read-only without NumPy. Raises `OSError` when the file does not open and
    /// `ValueError` when its bytes are not such a table.
    #[staticmethod]
    fn open(py: Python<'_>, path: &str) -> PyResult<MeteorParaphrases> {
        let storage = py.detach(|| crate::meteor::mapped::map_file(path))?;
        let table = Table::from_storage(storage).or_value_error()?;
        Ok(MeteorParaphrases { table })
    }

    /// The table's bytes (what `from_buffer` reads), as `bytes`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, self.table.bytes())
    }

    /// Version of the byte layout of `to_bytes` (part of the cache's key).
    #[classattr]
    fn format() -> u64 {
        FORMAT
    }

    /// The table's id of each word (-1 when absent).
    fn lookup(&self, words: Vec<String>) -> Vec<i32> {
        words
            .iter()
            .map(|w| self.table.lookup(w).map_or(-1, |i| i as i32))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.table.len()
    }
}

/// The bytes of a read-only, C-contiguous `uint8` array (e.g. `np.memmap(path,
/// mode="r")`) as table storage, used in place and kept alive by the array.
pub fn borrowed_storage(array: PyReadonlyArray1<'_, u8>) -> PyResult<Storage> {
    if !array.is_c_contiguous() {
        return Err(value_error("the bytes must be contiguous"));
    }
    let slice = array.as_slice()?;
    Ok(Storage::Borrowed {
        ptr: slice.as_ptr(),
        len: slice.len(),
        _owner: Box::new(array.as_any().clone().unbind()),
    })
}
