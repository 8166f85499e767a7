//! Where a TREC file's bytes come from: a regular file, read a block at a time at given offsets
//! (positional reads, so any thread reads any block), or bytes in memory (a small file, a pipe,
//! a test's text).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};

/// Bytes read at a time past a block's end, to finish the block's last line.
const STEP: usize = 64 * 1024;

/// A file's bytes.
pub enum Source {
    /// read whole
    Memory(Vec<u8>),
    /// a regular file of `len` bytes, read by blocks
    #[cfg(unix)]
    File { file: File, len: usize },
}

impl Source {
    /// The file at `path`: a regular file of at least `blocks_from` bytes is read by blocks (on
    /// Unix), anything else (a smaller file, a pipe) is read whole now.
    pub fn open(path: &str, blocks_from: usize) -> io::Result<Source> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        #[cfg(unix)]
        if meta.is_file() && size >= blocks_from && size < usize::MAX {
            return Ok(Source::File { file, len: size });
        }
        let mut data = Vec::new();
        if meta.is_file() {
            data.reserve(size.min(1 << 30));
        }
        file.read_to_end(&mut data)?;
        Ok(Source::Memory(data))
    }

    /// The number of bytes (of a file: when it was opened).
    pub fn size(&self) -> usize {
        match self {
            Source::Memory(data) => data.len(),
            #[cfg(unix)]
            Source::File { len, .. } => *len,
        }
    }

    /// Bytes `from..to` and on to the end of the line that holds byte `to - 1` (its `\n`
    /// included, or the end of the file); from a file, reading past `to` stops once more than
    /// `limit` bytes past it were read (that line is too long anyway). A file's bytes are read
    /// into `buf` (grown, never shrunk: a worker reuses it for its blocks).
    pub fn lines<'s>(
        &'s self,
        from: usize,
        to: usize,
        limit: usize,
        buf: &'s mut Vec<u8>,
    ) -> io::Result<&'s [u8]> {
        match self {
            Source::Memory(data) => {
                let to = to.min(data.len());
                if to <= from {
                    return Ok(&[]);
                }
                let end = match memchr::memchr(b'\n', &data[to - 1..]) {
                    Some(at) => to + at,
                    None => data.len(),
                };
                Ok(&data[from..end])
            }
            #[cfg(unix)]
            Source::File { file, .. } => {
                let want = to.saturating_sub(from);
                let mut filled = fill(file, from, buf, 0, want)?;
                if filled == want && want > 0 && buf[want - 1] != b'\n' {
                    // the block's last line goes on past `to`
                    while filled - want <= limit {
                        let got = fill(file, from + filled, buf, filled, STEP)?;
                        if let Some(at) = memchr::memchr(b'\n', &buf[filled..filled + got]) {
                            filled += at + 1;
                            break;
                        }
                        filled += got;
                        if got < STEP {
                            break; // the end of the file
                        }
                    }
                }
                Ok(&buf[..filled])
            }
        }
    }

    /// Every byte (read again from a file: only to explain an error).
    pub fn all(&self) -> io::Result<Cow<'_, [u8]>> {
        match self {
            Source::Memory(data) => Ok(Cow::Borrowed(data)),
            #[cfg(unix)]
            Source::File { file, len } => {
                let mut buf = Vec::new();
                let got = fill(file, 0, &mut buf, 0, *len)?;
                buf.truncate(got);
                Ok(Cow::Owned(buf))
            }
        }
    }
}

/// Reads up to `want` bytes of `file` at `offset` into `buf[at..]` (grown to hold them); the
/// number read, fewer only at the end of the file.
#[cfg(unix)]
fn fill(
    file: &File,
    offset: usize,
    buf: &mut Vec<u8>,
    at: usize,
    want: usize,
) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    if buf.len() < at + want {
        buf.resize(at + want, 0);
    }
    let mut got = 0;
    while got < want {
        match file.read_at(&mut buf[at + got..at + want], (offset + got) as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(got)
}

/// A file of `bytes` named `name` in a temporary folder of this process (for the tests).
#[cfg(test)]
pub(crate) fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("nlpeval-retrieval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_at_the_end_of_their_last_line_in_memory_and_from_a_file() {
        let text = b"ab\ncd\n\nefgh\nij";
        let path = temp_file("lines", text);
        let file = Source::open(&path, 0).unwrap();
        assert!(matches!(file, Source::File { len: 14, .. }));
        let memory = Source::open(&path, 15).unwrap();
        assert!(matches!(&memory, Source::Memory(data) if data == text));
        for source in [&file, &memory] {
            let mut buf = Vec::new();
            let mut got = |from, to| {
                source
                    .lines(from, to, usize::MAX, &mut buf)
                    .unwrap()
                    .to_vec()
            };
            assert_eq!(got(0, 1), b"ab\n");
            assert_eq!(got(0, 3), b"ab\n");
            assert_eq!(got(2, 4), b"\ncd\n");
            assert_eq!(got(5, 7), b"\n\n");
            assert_eq!(got(8, 9), b"fgh\n");
            assert_eq!(got(12, 13), b"ij");
            assert_eq!(got(14, 14), b"");
            assert_eq!(source.all().unwrap().as_ref(), text);
        }
    }

    #[test]
    fn a_long_last_line_is_read_in_steps_and_bounded() {
        let mut text = vec![b'x'; 3 * STEP + 5];
        text.push(b'\n');
        text.extend_from_slice(b"tail\n");
        let path = temp_file("long", &text);
        let source = Source::open(&path, 0).unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            source.lines(0, 10, usize::MAX, &mut buf).unwrap().len(),
            3 * STEP + 6
        );
        let cut = source.lines(0, 10, 100, &mut buf).unwrap().len();
        assert!((110..=10 + STEP).contains(&cut), "{cut}");
        assert!(Source::open(&format!("{path}-missing"), 0).is_err());
    }
}
