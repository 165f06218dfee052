//! RocksDB's errors turned into fpdb's: damage RocksDB detects (its own
//! checksums) becomes [`Error::Corrupt`] naming what was being read;
//! everything else becomes [`Error::Storage`] with RocksDB's message, so
//! no RocksDB type reaches a public signature.

use crate::error::Error;

/// A RocksDB failure while reading or writing `what`.
pub(crate) fn storage_error(error: rocksdb::Error, what: impl FnOnce() -> String) -> Error {
    if error.kind() == rocksdb::ErrorKind::Corruption {
        Error::corrupt(what(), error.to_string())
    } else {
        Error::Storage {
            what: what(),
            message: error.to_string(),
        }
    }
}

/// `.map_err(storage(|| …))` for a RocksDB result.
pub(crate) fn storage(what: impl FnOnce() -> String) -> impl FnOnce(rocksdb::Error) -> Error {
    move |error| storage_error(error, what)
}

/// `.map_err(io(path))` for a file system call on `path`.
pub(crate) fn io(path: &std::path::Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.into(),
        source,
    }
}
