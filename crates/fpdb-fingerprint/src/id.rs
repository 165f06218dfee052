//! What a document id may be: 1 to [`MAX_ID_BYTES`] bytes of UTF-8 (a URL,
//! a number, a path). Ids are keys on disk, so the bound keeps every key
//! and every write batch bounded.

/// Longest document id, in bytes of UTF-8.
pub const MAX_ID_BYTES: usize = 1024;

/// An id that is empty or longer than [`MAX_ID_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("document id of {len} bytes: ids are 1 to {max} bytes of UTF-8")]
pub struct BadId {
    /// Its length in bytes.
    pub len: usize,
    /// The limit, [`MAX_ID_BYTES`].
    pub max: usize,
}

/// `Ok` when `id` may be stored.
pub fn validate_id(id: &str) -> Result<(), BadId> {
    if id.is_empty() || id.len() > MAX_ID_BYTES {
        return Err(BadId {
            len: id.len(),
            max: MAX_ID_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_one_to_max_bytes() {
        assert!(validate_id("a").is_ok());
        assert!(validate_id(&"é".repeat(MAX_ID_BYTES / 2)).is_ok());
        assert_eq!(
            validate_id(""),
            Err(BadId {
                len: 0,
                max: MAX_ID_BYTES
            })
        );
        let long = "x".repeat(MAX_ID_BYTES + 1);
        assert_eq!(validate_id(&long).unwrap_err().len, MAX_ID_BYTES + 1);
    }
}
