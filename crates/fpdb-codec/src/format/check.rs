//! The checks every decoder shares, so that the same damage gets the same
//! error whichever structure it is found in.

use super::Kind;
use crate::error::CodecError;

/// `found` if it is one of the `supported` versions of `kind`, else
/// [`CodecError::Version`] naming the newest one.
pub fn version(kind: Kind, found: u8, supported: &[u8]) -> Result<u8, CodecError> {
    if supported.contains(&found) {
        return Ok(found);
    }
    Err(CodecError::Version {
        what: kind.name(),
        expected: supported.iter().copied().max().unwrap_or(0),
        got: found,
    })
}

/// [`CodecError::ChecksumMismatch`] unless the stored checksum is the
/// computed one.
pub fn checksum(kind: Kind, stored: u64, computed: u64) -> Result<(), CodecError> {
    if stored == computed {
        return Ok(());
    }
    Err(CodecError::ChecksumMismatch {
        what: kind.name(),
        expected: stored,
        got: computed,
    })
}

/// [`CodecError::Truncated`] when `found` bytes are fewer than `needed`.
pub fn length(kind: Kind, needed: usize, found: usize) -> Result<(), CodecError> {
    if found >= needed {
        return Ok(());
    }
    Err(CodecError::Truncated {
        what: kind.name(),
        needed,
        found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_its_structure() {
        assert_eq!(version(Kind::Design, 2, &[2]), Ok(2));
        assert!(matches!(
            version(Kind::Design, 9, &[1, 2]),
            Err(CodecError::Version {
                what: "table design",
                expected: 2,
                got: 9
            })
        ));
        assert!(checksum(Kind::Block, 5, 5).is_ok());
        assert!(matches!(
            checksum(Kind::Block, 5, 6),
            Err(CodecError::ChecksumMismatch {
                what: "block",
                expected: 5,
                got: 6
            })
        ));
        assert!(length(Kind::Directory, 3, 3).is_ok());
        assert!(matches!(
            length(Kind::Directory, 3, 2),
            Err(CodecError::Truncated {
                what: "block directory",
                needed: 3,
                found: 2
            })
        ));
    }
}
