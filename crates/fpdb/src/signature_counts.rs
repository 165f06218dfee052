//! How many stored documents carry a confirming signature and how many
//! are bare fingerprints (stored as fingerprints, or before the database
//! confirmed), which a confirming rule matches by distance alone.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::store::{Family, Record, Store};

/// The stored documents by whether they have a signature.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SignatureCounts {
    /// Documents stored with a signature.
    pub signed: u64,
    /// Documents stored as a bare fingerprint.
    pub bare: u64,
}

/// Counts every entry of the fingerprint-to-ids map: one read of it.
pub(crate) fn signature_counts(store: &Store) -> Result<SignatureCounts> {
    let mut counts = SignatureCounts::default();
    for entry in store.entries(Family::FpToIds)? {
        let (key, value) = entry?;
        let record = Record::decode(Family::FpToIds, &key, &value)
            .map_err(|malformed| Error::corrupt("fp_ids", malformed.to_string()))?;
        let Record::FpId { signature, .. } = record else {
            return Err(Error::corrupt("fp_ids", "an entry of another family"));
        };
        if signature.is_empty() {
            counts.bare += 1;
        } else {
            counts.signed += 1;
        }
    }
    Ok(counts)
}
