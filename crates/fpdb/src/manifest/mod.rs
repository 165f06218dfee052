//! The manifest: what a database is, checked on every open.
//!
//! Its bytes are the codec's (`fpdb_codec::manifest`, fuzzed
//! there without RocksDB); this module names them for the database and
//! turns their errors into [`Error::Corrupt`] and [`Error::Version`].

use fpdb_codec::CodecError;

use crate::error::Error;

pub use fpdb_codec::manifest::FORMAT_VERSION;
pub(crate) use fpdb_codec::manifest::{Confirmation, Manifest, Stored};

/// The database error for manifest bytes that do not decode: a version
/// this build does not read, or damage.
pub(crate) fn damage(error: CodecError) -> Error {
    match error {
        CodecError::Version {
            what: "manifest",
            got,
            ..
        } => Error::Version {
            expected: FORMAT_VERSION,
            got: u32::from(got),
        },
        other => Error::corrupt("manifest", other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpdb_codec::format::{encode_frame, Kind};

    #[test]
    fn damage_is_corruption_of_the_manifest_and_versions_are_named() {
        let error = damage(Manifest::from_bytes(b"not a manifest").unwrap_err());
        assert!(matches!(error, Error::Corrupt { ref what, .. } if what == "manifest"));
        let error =
            damage(Manifest::from_bytes(&encode_frame(Kind::Manifest, 9, &[])).unwrap_err());
        assert!(matches!(
            error,
            Error::Version {
                expected: FORMAT_VERSION,
                got: 9
            }
        ));
    }
}
