//! What a parsed line holds.

use fpdb_simhash::{Fingerprint, Simhasher};

/// What a document is: a fingerprint already computed, or text to hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// A fingerprint given as 16 hex digits.
    Fingerprint(Fingerprint),
    /// Text, hashed with the database's simhash options.
    Text(String),
}

/// One input document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The document id: 1 to [`crate::MAX_ID_BYTES`] bytes of UTF-8.
    pub id: String,
    /// Its fingerprint or text.
    pub payload: Payload,
}

impl Record {
    /// The record's fingerprint under `simhasher` (texts are hashed).
    pub fn fingerprint(&self, simhasher: &Simhasher) -> Fingerprint {
        match &self.payload {
            Payload::Fingerprint(fp) => *fp,
            Payload::Text(text) => simhasher.fingerprint(text),
        }
    }
}
