//! Read-only memory maps of cache files (the parsed WordNet index, the
//! paraphrase table), opened natively: a fresh process maps them without
//! importing NumPy (`np.memmap`).

use std::fs::File;
use std::io;

use super::paraphrase::Storage;

/// The bytes of the file at `path` as table storage, mapped in place (read-only).
/// An empty file gives empty owned storage.
pub fn map_file(path: &str) -> io::Result<Storage> {
    let file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(Storage::Owned(Vec::new()));
    }
    // SAFETY: the cache files are written atomically (a new file renamed into
    // place) and never modified afterwards, so the mapped bytes do not change
    // while the mapping lives.
    let mapping = unsafe { memmap2::Mmap::map(&file)? };
    Ok(Storage::Borrowed {
        ptr: mapping.as_ptr(),
        len: mapping.len(),
        _owner: Box::new(mapping),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_a_file_and_an_empty_one() {
        let dir = std::env::temp_dir().join(format!("nlpeval-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (full, empty) = (dir.join("full.bin"), dir.join("empty.bin"));
        std::fs::write(&full, b"abcdefgh").unwrap();
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(
            map_file(full.to_str().unwrap()).unwrap().bytes(),
            b"abcdefgh"
        );
        assert!(map_file(empty.to_str().unwrap())
            .unwrap()
            .bytes()
            .is_empty());
        assert!(map_file(dir.join("missing").to_str().unwrap()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
