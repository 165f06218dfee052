//! Texts fingerprinted on every core (`fpdb_parallel`, which also parses
//! the readers' lines and pages).

use fpdb_parallel::map;
use fpdb_simhash::{Fingerprint, Simhasher};

use crate::{Payload, Record};

/// Fingerprints of `records` under `simhasher`, texts hashed on all cores.
pub fn fingerprints(simhasher: &Simhasher, records: &[Record]) -> Vec<Fingerprint> {
    let texts = records
        .iter()
        .filter(|r| matches!(r.payload, Payload::Text(_)))
        .count();
    if texts < 64 {
        return records.iter().map(|r| r.fingerprint(simhasher)).collect();
    }
    map(records, |r| r.fingerprint(simhasher))
}
