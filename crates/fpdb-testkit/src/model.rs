//! The model of a database: what it should hold.

use std::collections::BTreeMap;

use fpdb_fingerprint::Fingerprint;

use crate::Rng;

/// What a database should hold: document id → fingerprint.
pub type Model = BTreeMap<String, Fingerprint>;

/// The ids of each fingerprint of `model`, in byte order.
pub fn ids_by_fingerprint(model: &Model) -> BTreeMap<Fingerprint, Vec<String>> {
    let mut by_fp: BTreeMap<Fingerprint, Vec<String>> = BTreeMap::new();
    for (id, fp) in model {
        by_fp.entry(*fp).or_default().push(id.clone());
    }
    by_fp
}

/// `count` documents whose fingerprints cluster around 64 centres, some
/// sharing a fingerprint.
pub fn clustered_documents(rng: &mut Rng, count: usize) -> Vec<(String, Fingerprint)> {
    let centres: Vec<Fingerprint> = (0..64).map(|_| Fingerprint(rng.next_u64())).collect();
    (0..count)
        .map(|i| {
            let centre = centres[rng.below(centres.len() as u64) as usize];
            let fp = if rng.chance(30) {
                centre
            } else {
                rng.near(centre, 4)
            };
            (format!("doc-{i}"), fp)
        })
        .collect()
}

/// The `i`th of a sequence of fingerprints spread over the whole space:
/// `i` times the golden ratio's 64-bit fraction, so that consecutive ones
/// land far apart and a few hundred fill every block of a table.
pub fn spread(i: u64) -> Fingerprint {
    Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// `count` documents: id `prefix` followed by `i`, fingerprint
/// [`spread`]`(i)`.
pub fn spread_documents(prefix: &str, count: u64) -> Vec<(String, Fingerprint)> {
    (0..count)
        .map(|i| (format!("{prefix}{i}"), spread(i)))
        .collect()
}
