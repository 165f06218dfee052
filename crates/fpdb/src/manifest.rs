//! The manifest: what a database is, checked on every open.
//!
//! Its byte format (and the workspace's only use of bincode) lives in
//! [`fpdb_codec::manifest`], where it is fuzzed without RocksDB; this
//! module names it for the database and turns its errors into
//! [`Error::Corrupt`] and [`Error::Version`].

use fpdb_codec::manifest::ManifestError;

use crate::error::Error;

pub(crate) use fpdb_codec::manifest::Manifest;
pub use fpdb_codec::manifest::FORMAT_VERSION;

impl From<ManifestError> for Error {
    fn from(error: ManifestError) -> Self {
        match error {
            ManifestError::Version { expected, got } => Error::Version { expected, got },
            other => Error::corrupt("manifest", other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_is_corruption_of_the_manifest_and_versions_are_named() {
        let error = Error::from(Manifest::from_bytes(b"not a manifest").unwrap_err());
        assert!(matches!(error, Error::Corrupt { ref what, .. } if what == "manifest"));
        let error = Error::from(ManifestError::Version {
            expected: FORMAT_VERSION,
            got: 9,
        });
        assert!(matches!(error, Error::Version { got: 9, .. }));
    }
}
