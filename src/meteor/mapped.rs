//! Read-only memory maps of cache files (the parsed WordNet index, the
//! paraphrase table), opened natively: a fresh process maps them without
//! importing NumPy (`np.memmap`).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use super::paraphrase::Storage;

/// A read-only mapping of a whole file, unmapped when dropped.
struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only and unmapped only on drop.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are a mapping made by `map_file` and not yet unmapped.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

/// The bytes of the file at `path` as table storage, mapped in place (read-only,
/// private). An empty file gives empty owned storage (an empty mapping is an error).
pub fn map_file(path: &str) -> io::Result<Storage> {
    let file = File::open(path)?;
    let len = usize::try_from(file.metadata()?.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "file too large to map"))?;
    if len == 0 {
        return Ok(Storage::Owned(Vec::new()));
    }
    // SAFETY: a fresh read-only private mapping of an open file; checked for failure.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mapping = Mapping { ptr, len };
    Ok(Storage::Borrowed {
        ptr: ptr.cast::<u8>().cast_const(),
        len,
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
