//! Repair: a damaged database rebuilt from the copies that survived.
//!
//! Every document is stored twice in the id map (`id_fp` and `fp_ids`)
//! and its fingerprint t more times in the tables. Repair reads what a
//! salvage of the database can still read ([`Salvage`]: files RocksDB
//! cannot read left out, damaged blocks stepped over), takes each document
//! from whichever id family still holds it (the intact one alone when the
//! other lost a file and may show stale entries), builds a new database from
//! them with the same options (every table rebuilt, so a lost table block
//! is rebuilt from the ids), checks it, and switches it in with one atomic
//! rename. Fingerprints the tables still hold but whose ids are lost from
//! both id families cannot be restored (a table keeps no ids): the report
//! lists them. The damaged database is kept beside the repaired one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fpdb_codec::{BlockDecoder, ChecksumPolicy, DesignChoice};
use fpdb_simhash::Fingerprint;

use crate::bulk::{bulk_loader, BulkOptions};
use crate::error::{Error, Result};
use crate::inspect::{inspect, Inspection};
use crate::options::{OpenOptions, Options};
use crate::progress::Progress;
use crate::store::{
    io, sibling, take_lock, Access, DeltaEntry, Family, Record, Salvage, Store, Unreadable,
};
use crate::tables::{read_manifest, ParsedManifest, Tables};
use crate::verify::{verify, Problem};

/// What [`crate::Db::repair`] found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// The damage verify found first (empty: nothing was repaired).
    pub damage: Vec<Problem>,
    /// Further problems verify counted without listing them.
    pub unlisted_damage: u64,
    /// Documents (ids) in the repaired database.
    pub documents: u64,
    /// Ids whose `id_fp` entry was lost, restored from `fp_ids`.
    pub restored_from_fp_ids: u64,
    /// Ids whose `fp_ids` entry was lost, restored from `id_fp`.
    pub restored_from_id_fp: u64,
    /// Ids whose two entries disagreed (one of them stale after damage);
    /// the `id_fp` one was kept.
    pub conflicting_ids: Vec<String>,
    /// Fingerprints the set still held (in its tables, or added since
    /// the last merge) whose every id was lost: not in the repaired
    /// database.
    pub lost_fingerprints: Vec<Fingerprint>,
    /// Key ranges of the storage engine that could not be read.
    pub unreadable: Vec<String>,
    /// Files of the storage engine left out because they could not be
    /// read or found, with their column family when RocksDB's logs name
    /// it. What they held is restored from the other copies.
    pub left_out: Vec<String>,
    /// Files RocksDB's own repairer could not place in a column family
    /// (files written by a bulk load or a backup record none), placed by
    /// what they hold: `file: family`.
    pub placed_by_content: Vec<String>,
    /// Entries of a half of the id map that lost a file, absent from the
    /// other, intact half: the lost file held their removal or change, so
    /// they were not restored.
    pub stale_entries: u64,
    /// Whether the repaired database may differ from the damaged one's
    /// last state beyond `lost_fingerprints`: both halves of the id map
    /// lost data, or a file whose column family is unknown was lost, so a
    /// removed document may be back or an id's older fingerprint kept.
    pub partial: bool,
    /// Where the damaged database was kept (`None` when nothing was done).
    pub damaged_copy: Option<PathBuf>,
}

/// A marker file inside a database being built by repair: found beside a
/// database, it says an interrupted repair left the directory.
const BUILDING_MARKER: &str = "fpdb-repair-building";

/// Repairs the database in `path` (see [`crate::Db::repair`]).
pub(crate) fn repair(path: &Path, progress: &dyn Progress) -> Result<RepairReport> {
    let building = sibling(path, "repair-new");
    finish_interrupted_repair(path, &building)?;
    let Inspection {
        report: before,
        salvage,
    } = inspect(path, progress)?;
    let mut report = RepairReport {
        damage: before.problems,
        unlisted_damage: before.unlisted_problems,
        ..RepairReport::default()
    };
    if report.damage.is_empty() && before.unlisted_problems == 0 {
        return Ok(report);
    }
    // No writer may change the database while it is rebuilt.
    let _lock = take_lock(path)?;
    // A database that did not open was salvaged by the check already (no
    // writer can have opened it since).
    let salvage = match salvage {
        Some(salvage) => salvage,
        None => Salvage::create(path)?,
    };
    if let Some(file) = salvage.unplaced.first() {
        // Rebuilding without them would lose what they hold.
        return Err(Error::corrupt(
            "MANIFEST",
            format!(
                "unreadable, and {} readable table files (the first {}: {}) cannot be placed in \
                 a column family without it; the database is left as it is",
                salvage.unplaced.len(),
                file.file,
                file.reason
            ),
        ));
    }
    report.left_out = salvage
        .set_aside
        .iter()
        .filter(|file| file.file.ends_with(".sst"))
        .map(|file| match salvage.family_of(&file.file) {
            Some(family) => format!("{} ({}): {}", file.file, family.name(), file.reason),
            None => format!("{}: {}", file.file, file.reason),
        })
        .collect();
    report.placed_by_content = salvage
        .placed
        .iter()
        .map(|(file, family)| format!("{file}: {}", family.name()))
        .collect();
    progress.phase("reading what survived", None);
    let store = Store::open(salvage.path(), Access::Salvage)?;
    let (options, documents, signatures) = salvage_documents(&store, &salvage, &mut report)?;
    drop(store);
    drop(salvage);

    if building.exists() {
        std::fs::remove_dir_all(&building).map_err(io(&building))?;
    }
    progress.phase("rebuilding", None);
    build(&building, &options, &documents, &signatures, progress)?;
    report.documents = documents.len() as u64;

    let kept = damaged_copy_path(path);
    switch(path, &building)?;
    // `building` now holds the damaged database: keep it for the user.
    std::fs::rename(&building, &kept).map_err(io(&building))?;
    let _ = std::fs::remove_file(path.join(BUILDING_MARKER));
    report.damaged_copy = Some(kept);
    Ok(report)
}

/// The confirming signatures that survived, by (id, fingerprint).
type Signatures = BTreeMap<(String, u64), Vec<u8>>;

/// Reads the options and every document that survived with its
/// signature, and the fingerprints whose ids did not.
fn salvage_documents(
    store: &Store,
    salvage: &Salvage,
    report: &mut RepairReport,
) -> Result<(Options, BTreeMap<String, Fingerprint>, Signatures)> {
    let manifest = read_manifest(store)
        .map_err(|error| {
            Error::corrupt(
                "manifest",
                format!("unreadable, so the database's options are unknown and it cannot be repaired: {error}"),
            )
        })?
        .manifest;
    let tables = ParsedManifest::parse(&manifest)?;
    let extract = Tables::read_extract(store)?;
    let mut options = Options::default()
        .k(manifest.k)
        .design(DesignChoice::Named(tables.design.name()))
        .block_bytes(tables.block_bytes)
        .simhash(tables.simhash)
        .extract(extract)
        .confirmation(tables.confirmation.clone());
    // The learned weights, when the database has them: without them the
    // rebuilt database could not be opened.
    options.learned_weights = Tables::read_learned_weights(store, tables.simhash)?.map(Arc::new);

    let mut unreadable: Vec<Unreadable> = Vec::new();
    let mut by_id_fp: BTreeMap<String, Fingerprint> = BTreeMap::new();
    unreadable.extend(store.scan_salvaging(Family::IdToFp, |key, value| {
        if let Ok(Record::IdFp { id, fp }) = Record::decode(Family::IdToFp, key, value) {
            by_id_fp.insert(String::from_utf8_lossy(id).into_owned(), fp);
        }
        Ok(())
    })?);
    let mut by_fp_ids: BTreeMap<String, Vec<Fingerprint>> = BTreeMap::new();
    let mut signatures = Signatures::new();
    unreadable.extend(store.scan_salvaging(Family::FpToIds, |key, value| {
        if let Ok(Record::FpId { fp, id, signature }) = Record::decode(Family::FpToIds, key, value)
        {
            let id = String::from_utf8_lossy(id).into_owned();
            if !signature.is_empty() {
                signatures.insert((id.clone(), fp.0), signature.to_vec());
            }
            by_fp_ids.entry(id).or_default().push(fp);
        }
        Ok(())
    })?);
    let documents = reconcile(by_id_fp, by_fp_ids, salvage, &unreadable, report);

    // The set's fingerprints: the tables' and those added since the last
    // merge, less those pending removal.
    let mut removed: Vec<u64> = Vec::new();
    let mut in_set: Vec<u64> = Vec::new();
    unreadable.extend(store.scan_salvaging(Family::Delta, |key, value| {
        match Record::decode(Family::Delta, key, value) {
            Ok(Record::Delta(DeltaEntry::Removed(fp))) => removed.push(fp.0),
            Ok(Record::Delta(DeltaEntry::Added(fp))) => in_set.push(fp.0),
            _ => {}
        }
        Ok(())
    })?);
    let mut keys = Vec::new();
    for (index, (table, code)) in tables.design.tables().iter().zip(&tables.codes).enumerate() {
        if index >= store.tables() {
            break;
        }
        let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
        let permutation = table.permutation();
        unreadable.extend(store.scan_salvaging(Family::Table(index), |_, block| {
            if decoder.decode(block, &mut keys).is_ok() {
                in_set.extend(keys.iter().map(|&key| permutation.inverse(key)));
            }
            Ok(())
        })?);
    }
    for file in &salvage.table_files {
        match table_file_fingerprints(salvage, file, &tables)? {
            Some(fingerprints) => in_set.extend(fingerprints),
            None => report.left_out.push(format!(
                "{}: a table's blocks; which table is not known, so it was not read for lost \
                 fingerprints (the tables are rebuilt from the ids)",
                file.file_name().unwrap_or_default().to_string_lossy()
            )),
        }
    }
    in_set.sort_unstable();
    in_set.dedup();
    removed.sort_unstable();
    let mut kept: Vec<u64> = documents.values().map(|fp| fp.0).collect();
    kept.sort_unstable();
    report.lost_fingerprints = in_set
        .into_iter()
        .filter(|fp| kept.binary_search(fp).is_err() && removed.binary_search(fp).is_err())
        .map(Fingerprint)
        .collect();
    report.unreadable = unreadable.iter().map(describe).collect();
    options = options.expected_size(kept.len() as u64);
    Ok((options, documents, signatures))
}

/// The documents of the two halves of the id map, which agree unless
/// damage made one of them lose entries or keep stale ones. A half that
/// lost a whole file may show entries that file had removed or changed
/// (older files hold them still); the other half, if intact, then decides
/// alone. Otherwise every entry that survived in either half is kept, and
/// `id_fp`'s when they disagree.
fn reconcile(
    by_id_fp: BTreeMap<String, Fingerprint>,
    mut by_fp_ids: BTreeMap<String, Vec<Fingerprint>>,
    salvage: &Salvage,
    unreadable: &[Unreadable],
    report: &mut RepairReport,
) -> BTreeMap<String, Fingerprint> {
    let lost_a_file = |family: Family| {
        salvage
            .set_aside
            .iter()
            .filter(|file| file.file.ends_with(".sst"))
            .any(|file| salvage.family_of(&file.file).is_none_or(|of| of == family))
    };
    let lost_a_range = |family: Family| unreadable.iter().any(|range| range.family == family);
    let (id_fp_stale, fp_ids_stale) = (lost_a_file(Family::IdToFp), lost_a_file(Family::FpToIds));
    // The half that alone decides, when one may hold stale entries and the
    // other is whole.
    let trusted = match (id_fp_stale, fp_ids_stale) {
        (true, false) if !lost_a_range(Family::FpToIds) => Some(Family::FpToIds),
        (false, true) if !lost_a_range(Family::IdToFp) => Some(Family::IdToFp),
        (false, false) => None,
        _ => {
            report.partial = true;
            None
        }
    };
    let mut documents = BTreeMap::new();
    for (id, fp) in by_id_fp {
        let others = by_fp_ids.remove(&id).unwrap_or_default();
        let chosen = if others.contains(&fp) {
            Some(fp)
        } else if others.is_empty() {
            if trusted == Some(Family::FpToIds) {
                report.stale_entries += 1;
                None
            } else {
                report.restored_from_id_fp += 1;
                Some(fp)
            }
        } else {
            report.conflicting_ids.push(id.clone());
            match (trusted, others.as_slice()) {
                (Some(Family::FpToIds), [other]) => Some(*other),
                _ => Some(fp),
            }
        };
        if let Some(fp) = chosen {
            documents.insert(id, fp);
        }
    }
    for (id, fps) in by_fp_ids {
        if trusted == Some(Family::IdToFp) {
            report.stale_entries += fps.len() as u64;
            continue;
        }
        if let [fp] = fps.as_slice() {
            documents.insert(id, *fp);
            report.restored_from_fp_ids += 1;
        } else {
            // Several fingerprints for one id and no id_fp entry to choose.
            report.conflicting_ids.push(id);
            report.partial = true;
        }
    }
    documents
}

/// The fingerprints in a table file that RocksDB's repairer could not
/// place, read with the code book and permutation of its table: the one
/// RocksDB's info logs name, else the only one whose code book decodes
/// every block (checksums verified, last key matching the block's key);
/// `None` when neither tells (tables with equal code books).
fn table_file_fingerprints(
    salvage: &Salvage,
    file: &Path,
    tables: &ParsedManifest,
) -> Result<Option<Vec<u64>>> {
    let decoders: Vec<BlockDecoder<'_>> = tables
        .codes
        .iter()
        .map(|code| BlockDecoder::new(code, ChecksumPolicy::Verify))
        .collect();
    let mut candidates: Vec<(usize, Vec<u64>)> = match salvage.family_of_path(file) {
        Some(Family::Table(index)) => vec![(index, Vec::new())],
        _ => (0..decoders.len())
            .map(|index| (index, Vec::new()))
            .collect(),
    };
    let mut keys = Vec::new();
    salvage.scan_file(file, |key, block| {
        candidates.retain_mut(|(index, fingerprints)| {
            let (Some(decoder), Some(table)) =
                (decoders.get(*index), tables.design.tables().get(*index))
            else {
                return false;
            };
            let last = match Record::decode(Family::Table(*index), key, block) {
                Ok(Record::Block { last_key, .. }) => last_key,
                _ => return false,
            };
            if decoder.decode(block, &mut keys).is_err() || keys.last() != Some(&last) {
                return false;
            }
            let permutation = table.permutation();
            fingerprints.extend(keys.iter().map(|&key| permutation.inverse(key)));
            true
        });
        Ok(())
    })?;
    Ok(match <[_; 1]>::try_from(candidates) {
        Ok([(_, fingerprints)]) => Some(fingerprints),
        Err(_) => None,
    })
}

/// Creates a database in `dir` with `options`, bulk-loads `documents`,
/// gives back each its signature (where the kept fingerprint is the one
/// it was stored with) and checks it.
fn build(
    dir: &Path,
    options: &Options,
    documents: &BTreeMap<String, Fingerprint>,
    signatures: &Signatures,
    progress: &dyn Progress,
) -> Result<()> {
    Tables::create(dir, options)?;
    std::fs::write(dir.join(BUILDING_MARKER), b"").map_err(io(dir))?;
    let store = Store::open(dir, Access::Write { sync: true })?;
    let (mut tables, simhasher) = Tables::load(&store, &OpenOptions::new())?;
    let mut loader = bulk_loader(&store, &mut tables, &simhasher, BulkOptions::default())?;
    for (id, fp) in documents {
        loader.add(id, *fp)?;
    }
    loader.finish()?;
    let mut batch = store.write_set(0);
    for ((id, fp), signature) in signatures {
        if documents.get(id) == Some(&Fingerprint(*fp)) {
            batch.put(Record::FpId {
                fp: Fingerprint(*fp),
                id: id.as_bytes(),
                signature,
            })?;
        }
    }
    store.write_synced(batch)?;
    // The load left `tables` holding what it wrote.
    let check = verify(&store, &tables, progress)?;
    if !check.is_clean() {
        return Err(Error::corrupt(
            "the repaired database",
            format!(
                "does not verify: {}",
                check
                    .problems
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            ),
        ));
    }
    store.flush_and_wait_for_compactions()
}

/// Puts `building` in `path`'s place and `path`'s database in
/// `building`'s, in one step: a process killed at any moment leaves the
/// damaged or the repaired database at `path`, never neither.
fn switch(path: &Path, building: &Path) -> Result<()> {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        path,
        rustix::fs::CWD,
        building,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .map_err(|errno| Error::Io {
        path: path.into(),
        source: errno.into(),
    })
}

/// Cleans up after a repair killed part way. The marker is written into
/// the new database before the switch and removed after it, and the old
/// database never has one: with the marker in `path` the switch happened
/// and `building` holds the damaged database (kept); without it, whatever
/// is in `building` is an unfinished new database (removed).
fn finish_interrupted_repair(path: &Path, building: &Path) -> Result<()> {
    if path.join(BUILDING_MARKER).exists() {
        if building.exists() {
            let kept = damaged_copy_path(path);
            std::fs::rename(building, &kept).map_err(io(building))?;
        }
        let _ = std::fs::remove_file(path.join(BUILDING_MARKER));
    } else if building.exists() {
        std::fs::remove_dir_all(building).map_err(io(building))?;
    }
    Ok(())
}

/// A name for the damaged database that is not taken:
/// `<path>.damaged`, `<path>.damaged-2`, …
fn damaged_copy_path(path: &Path) -> PathBuf {
    std::iter::once(sibling(path, "damaged"))
        .chain((2..).map(|n| sibling(path, &format!("damaged-{n}"))))
        .find(|candidate| !candidate.exists())
        .unwrap_or_else(|| sibling(path, "damaged"))
}

/// An unreadable key range, keys as text when they are, else in hex.
fn describe(range: &Unreadable) -> String {
    let key = |key: &Option<Box<[u8]>>, end: &str| match key.as_deref() {
        None => end.to_string(),
        Some(bytes) if range.family == Family::FpToIds => {
            match Record::decode(Family::FpToIds, bytes, &[]) {
                Ok(Record::FpId { fp, id, .. }) => {
                    format!("(fingerprint {fp}, id {:?})", String::from_utf8_lossy(id))
                }
                _ => bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
            }
        }
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) if !text.chars().any(char::is_control) => format!("{text:?}"),
            _ => bytes.iter().map(|byte| format!("{byte:02x}")).collect(),
        },
    };
    format!(
        "{}: keys after {} up to {}: {}",
        range.family.name(),
        key(&range.after, "the start"),
        key(&range.until, "the end"),
        range.reason
    )
}
