//! Where an input's bytes come from: a file or standard input, gzip
//! undone, every byte read counted.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ReadError;

/// Bytes read from an input at once: large, so that a streamed file or a
/// fast pipe still arrives in big batches.
pub(crate) const READ_BUFFER: usize = 1 << 20;

/// gzip's first two bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// One input.
#[derive(Debug)]
pub(crate) enum Source {
    Stdin,
    File(PathBuf),
    /// Standard input saved to an unnamed temporary file (read twice).
    Spooled(File),
}

impl Source {
    /// `-` is standard input.
    pub(crate) fn new(path: &Path) -> Source {
        if path.as_os_str() == "-" {
            Source::Stdin
        } else {
            Source::File(path.to_path_buf())
        }
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Source::Stdin | Source::Spooled(_) => "<stdin>".to_string(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// The path the format is told by (none for standard input).
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Source::File(path) => Some(path),
            Source::Stdin | Source::Spooled(_) => None,
        }
    }

    /// The input's size, when it is a file.
    pub(crate) fn len(&self) -> Option<u64> {
        match self {
            Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Source::Stdin | Source::Spooled(_) => None,
        }
    }

    /// Saves standard input to a temporary file, so it can be read again.
    pub(crate) fn spool(&mut self) -> Result<(), ReadError> {
        if matches!(self, Source::Stdin) {
            let mut file = tempfile::tempfile().map_err(ReadError::Spool)?;
            io::copy(&mut io::stdin().lock(), &mut file).map_err(ReadError::Spool)?;
            *self = Source::Spooled(file);
        }
        Ok(())
    }

    fn open(&self) -> Result<Box<dyn Read + '_>, ReadError> {
        Ok(match self {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::File(path) => Box::new(File::open(path).map_err(|source| ReadError::Open {
                path: path.clone(),
                source,
            })?),
            Source::Spooled(file) => {
                let mut file = file.try_clone().map_err(ReadError::Spool)?;
                file.rewind().map_err(ReadError::Spool)?;
                Box::new(file)
            }
        })
    }

    /// The input's bytes, gzip undone when they start with its magic
    /// (several members, as `.warc.gz` has one per record, read as one
    /// stream); what is read from the source is added to `counted`. A
    /// plain input is read straight into the buffer, so what it holds is
    /// what has arrived (eager readers look at it).
    pub(crate) fn reader<'a>(
        &'a self,
        counted: &'a AtomicU64,
    ) -> Result<BufReader<Box<dyn Read + 'a>>, ReadError> {
        let failed = |source| ReadError::Read {
            name: self.name(),
            line: 0,
            source,
        };
        let mut raw = Counted {
            inner: self.open()?,
            bytes: counted,
        };
        let mut head = Vec::with_capacity(GZIP_MAGIC.len());
        (&mut raw)
            .take(GZIP_MAGIC.len() as u64)
            .read_to_end(&mut head)
            .map_err(failed)?;
        let gzip = head == GZIP_MAGIC;
        let whole = io::Cursor::new(head).chain(raw);
        let inner: Box<dyn Read + 'a> = if gzip {
            let buffered = BufReader::with_capacity(READ_BUFFER, whole);
            Box::new(libflate::gzip::MultiDecoder::new(buffered).map_err(failed)?)
        } else {
            Box::new(whole)
        };
        Ok(BufReader::with_capacity(READ_BUFFER, inner))
    }

    /// A whole file's bytes, gzip undone.
    pub(crate) fn read_whole(&self, counted: &AtomicU64) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        self.reader(counted)?
            .read_to_end(&mut bytes)
            .map_err(|source| ReadError::Read {
                name: self.name(),
                line: 0,
                source,
            })?;
        Ok(bytes)
    }
}

/// A reader that counts the bytes it reads (for progress).
struct Counted<'a, R> {
    inner: R,
    bytes: &'a AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.bytes.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}
