//! The id map's check: both halves (`fp_ids`, `id_fp`) read in key
//! order, their (id, fingerprint) pairs compared by a digest, and only
//! when they differ every id looked up in the other half to name it.

use fpdb_simhash::Fingerprint;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use super::report::{damage_or_err, readable, Findings, Problem};
use super::sorted_difference;
use crate::error::Result;
use crate::progress::{Progress, Steps};
use crate::rule::Confirmation;
use crate::store::{Family, Key, Malformed, Record, Store};
use crate::tables::Tables;

/// Checks the id map: both halves read, their pairs compared, each
/// fingerprint with ids compared with `set` (the tables' set, when they
/// could be read), and the id counter with `ids`.
pub(super) fn verify_ids(
    store: &Store,
    tables: &Tables,
    (set, ids): (Option<&[u64]>, u64),
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<()> {
    let before_scans = findings.count();
    let signature_bytes = tables.confirmation.as_ref().map(Confirmation::stored_bytes);
    // Each half of the id map holds an entry per id.
    progress.phase("ids", Some(ids.saturating_mul(2)));
    let fp_ids = scan_fp_ids(store, signature_bytes, findings, progress)?;
    let id_fp = scan_id_fp(store, findings, progress)?;
    let scans_clean = findings.count() == before_scans;
    if let Some(set) = set {
        compare_with_ids(set, &fp_ids.fingerprints, findings);
    }
    let counted_ids = id_fp.ids;
    // Both families hold sets of (id, fingerprint) pairs, equal when the
    // families agree. Equal counts and sums of the pairs' 128-bit hashes
    // say so after two scans in key order; looking every id up in the
    // other family (a random read each: minutes at 10M ids) is only
    // needed to name the ids that disagree.
    if !scans_clean || fp_ids.pairs != id_fp.pairs {
        progress.phase("ids looked up", None);
        find_fp_ids_without_id_fp(store, findings)?;
        find_ids_without_fp_ids(store, findings)?;
    }
    findings.report.ids = counted_ids;
    if counted_ids != ids {
        findings.add(Problem::Counter {
            name: "ids",
            stored: ids,
            counted: counted_ids,
        });
    }
    Ok(())
}

/// The (id, fingerprint) pairs a family holds, as a count and an
/// order-independent digest: the wrapping sum of each pair's xxh3-128
/// (the id's, seeded with the fingerprint).
#[derive(Debug, Default, PartialEq, Eq)]
struct Pairs {
    entries: u64,
    digest: u128,
}

impl Pairs {
    /// The fingerprint seeds the id's hash: no copy of the pair per entry.
    fn add(&mut self, id: &[u8], fp: u64) {
        self.entries += 1;
        self.digest = self.digest.wrapping_add(xxh3_128_with_seed(id, fp));
    }
}

/// The fingerprint and id of an `fp_ids` key (its value is not read).
fn fp_ids_entry(key: &[u8]) -> Result<(Fingerprint, &[u8]), Malformed> {
    match Record::decode(Family::FpToIds, key, &[])? {
        Record::FpId { fp, id, .. } => Ok((fp, id)),
        _ => Err(Malformed::Id),
    }
}

/// Reads every `fp_ids` entry: the fingerprints with ids, and the pairs.
/// Each value must be empty (a bare fingerprint) or a signature of
/// `signature_bytes`, the database's layout.
fn scan_fp_ids(
    store: &Store,
    signature_bytes: Option<usize>,
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<FpIdsScan> {
    let mut with_ids: Vec<u64> = Vec::new();
    let mut pairs = Pairs::default();
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::FpToIds)? {
        let Some((key, value)) = readable(entry, Family::FpToIds, findings)? else {
            break;
        };
        steps.step();
        let (fp, id) = match fp_ids_entry(&key) {
            Ok(entry) => entry,
            Err(malformed) => {
                findings.add(Problem::Id {
                    id: String::from_utf8_lossy(&key).into_owned(),
                    reason: malformed.to_string(),
                });
                continue;
            }
        };
        if !value.is_empty() && Some(value.len()) != signature_bytes {
            findings.add(Problem::Id {
                id: String::from_utf8_lossy(id).into_owned(),
                reason: format!(
                    "a signature of {} bytes where the database keeps {}",
                    value.len(),
                    signature_bytes.map_or("none".to_string(), |bytes| format!("{bytes}"))
                ),
            });
        }
        if with_ids.last() != Some(&fp.0) {
            with_ids.push(fp.0);
        }
        pairs.add(id, fp.0);
    }
    Ok(FpIdsScan {
        fingerprints: with_ids,
        pairs,
    })
}

/// Names every `fp_ids` entry whose id `id_fp` does not map to its
/// fingerprint.
fn find_fp_ids_without_id_fp(store: &Store, findings: &mut Findings) -> Result<()> {
    for entry in store.entries(Family::FpToIds)? {
        // What cannot be read or decoded was reported by `scan_fp_ids`.
        let Ok((key, _)) = entry else {
            break;
        };
        let Ok((fp, id)) = fp_ids_entry(&key) else {
            continue;
        };
        let name = String::from_utf8_lossy(id);
        match store.fingerprint_of(&name) {
            Ok(Some(stored)) if stored == fp => {}
            Ok(Some(_)) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: format!("listed under fingerprint {fp} in fp_ids, but id_fp holds another"),
            }),
            Ok(None) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: format!("listed under fingerprint {fp} in fp_ids, but missing from id_fp"),
            }),
            Err(error) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: damage_or_err(error)?,
            }),
        }
    }
    Ok(())
}

/// What [`scan_id_fp`] saw.
struct IdFpScan {
    /// Entries read, decodable or not.
    ids: u64,
    /// The (id, fingerprint) pairs of the entries that decoded.
    pairs: Pairs,
}

/// Reads every `id_fp` entry, checking that it decodes.
fn scan_id_fp(store: &Store, findings: &mut Findings, progress: &dyn Progress) -> Result<IdFpScan> {
    let mut pairs = Pairs::default();
    let mut ids = 0u64;
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::IdToFp)? {
        let Some((key, value)) = readable(entry, Family::IdToFp, findings)? else {
            break;
        };
        steps.step();
        ids += 1;
        match Record::decode(Family::IdToFp, &key, &value) {
            Ok(Record::IdFp { id, fp }) => pairs.add(id, fp.0),
            Ok(_) => {}
            Err(malformed) => findings.add(Problem::Id {
                id: String::from_utf8_lossy(&key).into_owned(),
                reason: malformed.to_string(),
            }),
        }
    }
    Ok(IdFpScan { ids, pairs })
}

/// Names every id whose `id_fp` entry has no `fp_ids` entry.
fn find_ids_without_fp_ids(store: &Store, findings: &mut Findings) -> Result<()> {
    for entry in store.entries(Family::IdToFp)? {
        // What cannot be read or decoded was reported by `scan_id_fp`.
        let Ok((key, value)) = entry else {
            break;
        };
        let Ok(Record::IdFp { id, fp }) = Record::decode(Family::IdToFp, &key, &value) else {
            continue;
        };
        let id = String::from_utf8_lossy(id);
        match store.contains(Key::FpId(fp, id.as_bytes())) {
            Ok(true) => {}
            Ok(false) => findings.add(Problem::Id {
                id: id.to_string(),
                reason: format!("has fingerprint {fp} in id_fp, but no entry in fp_ids"),
            }),
            Err(error) => findings.add(Problem::Id {
                id: id.to_string(),
                reason: damage_or_err(error)?,
            }),
        }
    }
    Ok(())
}

/// What [`scan_fp_ids`] saw.
struct FpIdsScan {
    /// Distinct fingerprints with ids, sorted.
    fingerprints: Vec<u64>,
    /// The (id, fingerprint) pairs of the entries that decoded.
    pairs: Pairs,
}

/// Every fingerprint of the set needs an id, and every fingerprint with ids
/// must be in the set.
fn compare_with_ids(set: &[u64], with_ids: &[u64], findings: &mut Findings) {
    let (without_ids, not_in_set) = sorted_difference(set, with_ids);
    for fp in without_ids {
        findings.add(Problem::Fingerprint {
            fingerprint: Fingerprint(fp),
            reason: "in the tables but has no ids in fp_ids".into(),
        });
    }
    for fp in not_in_set {
        findings.add(Problem::Fingerprint {
            fingerprint: Fingerprint(fp),
            reason: "has ids in fp_ids but is not in the tables".into(),
        });
    }
}
