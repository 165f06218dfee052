//! The permuted tables as the operations see them: the design, each
//! table's code book, directory and kept blocks, the delta of changes not
//! yet merged, and the counters — loaded from the store on open, changed
//! only by writes, merges and loads.
//!
//! What can change while the database is open sits in one [`State`]
//! behind a read-write lock that queries hold for reading, so a query
//! never sees a half-applied merge. Writers also hold [`Tables::writer`]
//! for the whole of a write, so that read-modify-write of ids, counters
//! and the delta is atomic with respect to other writers.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use fpdb_codec::{
    engine, BlockDirectory, DesignChoice, HuffmanCode, Table, TableDesign, MAX_K, MAX_RADIUS,
};
use fpdb_html::Extract;
use fpdb_simhash::{
    CommonFeatures, Fingerprint, LearnedIdf, SignatureLayout, SimhashOptions, Simhasher, Weighting,
    EVERY_SUBSET, MAX_WEAK_BITS_PER_QUARTER,
};

use crate::block_cache::BlockCache;
use crate::delta::Delta;
use crate::error::{Error, Result};
use crate::manifest::{self, Manifest, Stored};
use crate::options::{OpenOptions, Options};
use crate::rule::Confirmation;
use crate::seeded_hash::FastSet;
use crate::store::{
    decode_learned_weights, encode_learned_weights, Counter, DeltaEntry, Key, Record, Store,
    WriteSet,
};

/// What can change while the database is open.
#[derive(Debug)]
pub(crate) struct State {
    pub directories: Vec<BlockDirectory>,
    /// Blocks read so far, by the directories' block indices (shared with
    /// a merge that reads them while it plans).
    pub blocks: Arc<BlockCache>,
    pub table_bytes: Vec<u64>,
    pub delta: Delta,
    /// While a merge plans without the writer lock: every fingerprint
    /// whose delta entry a write changed since the merge took its
    /// snapshot of the delta (`merge.rs`).
    pub touched: Option<FastSet<Fingerprint>>,
    pub fingerprints: u64,
    pub ids: u64,
}

impl State {
    /// Table `index`'s directory; a missing one is damage, never an empty
    /// default.
    pub fn directory(&self, index: usize) -> Result<&BlockDirectory> {
        self.directories
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("directory of table {index}"), "missing"))
    }

    /// Notes that a write changed `fp`'s delta entry, for a merge that is
    /// planning.
    pub fn touch(&mut self, fp: Fingerprint) {
        if let Some(touched) = &mut self.touched {
            touched.insert(fp);
        }
    }
}

/// Proof that the caller holds the writer lock.
pub(crate) struct WriterGuard<'a> {
    _held: MutexGuard<'a, ()>,
}

/// The tables of one open database.
#[derive(Debug)]
pub(crate) struct Tables {
    pub design: TableDesign,
    pub k: u32,
    pub block_bytes: usize,
    /// Replaced only by a bulk load, which has the database to itself.
    pub codes: Vec<HuffmanCode>,
    /// The database format the store holds (1 only in read-only handles:
    /// writable opens upgrade first).
    pub format_version: u32,
    /// The second stage of the match rule, if the database has one.
    pub confirmation: Option<Confirmation>,
    pub delta_limit: usize,
    pub block_cache_bytes: usize,
    state: RwLock<State>,
    writer: Mutex<()>,
    /// Held by the one merge that may run at a time.
    merging: Mutex<()>,
    /// Whether a write that fills the delta merges it itself (else the
    /// caller does, with `Db::merge`, when `Db::merge_due` says so).
    merge_on_write: AtomicBool,
}

impl Tables {
    /// Checks creation `options` and resolves their design.
    pub fn design_for(options: &Options) -> Result<TableDesign> {
        if options.k > MAX_K {
            return Err(Error::InvalidOptions(format!(
                "k = {} is above the largest supported k = {MAX_K}",
                options.k
            )));
        }
        if !(64..=1 << 20).contains(&options.block_bytes) {
            return Err(Error::InvalidOptions(format!(
                "block size {} bytes is outside 64 ..= 1048576",
                options.block_bytes
            )));
        }
        let weak_bits = options
            .confirmation
            .as_ref()
            .is_some_and(|c| c.weak_bits() > 0);
        // Weak bits are probed in tables keyed by quarters: `auto` then
        // picks the one design that has them, whatever the size.
        let design = if weak_bits && options.design == DesignChoice::Auto && options.k == 3 {
            TableDesign::levels(3, &[4])?
        } else {
            options.design.resolve(options.k, options.expected_size)?
        };
        check_weak_bits(&design, options.confirmation.as_ref())?;
        Ok(design)
    }

    /// Creates a database with `options` in `path`, which must not exist
    /// or be an empty directory.
    pub fn create(path: &Path, options: &Options) -> Result<()> {
        let design = Tables::design_for(options)?;
        learned_weights(options)?;
        Store::create(path, design.tables().len(), |batch| {
            Tables::write_new(batch, options, &design)
        })
    }

    /// What a new, empty database holds besides its families: the
    /// manifest, an empty directory and byte count per table, zero
    /// counters.
    pub fn write_new(
        batch: &mut WriteSet<'_>,
        options: &Options,
        design: &TableDesign,
    ) -> Result<()> {
        let tables = design.tables().len();
        let codes = vec![HuffmanCode::uniform(); tables];
        let manifest = Manifest {
            k: options.k,
            block_bytes: u32::try_from(options.block_bytes).map_err(|_| {
                Error::InvalidOptions(format!("block size {} bytes", options.block_bytes))
            })?,
            design: design.to_bytes(),
            codes: codes.iter().map(HuffmanCode::to_bytes).collect(),
            tokenizer: options.simhash.tokenizer.to_string(),
            weighting: options.simhash.weighting.to_string(),
            confirmation: options.confirmation.as_ref().map(stored_confirmation),
        };
        batch.put(Record::Manifest(&manifest.to_bytes()?))?;
        batch.put(Record::Extract(&options.extract.to_string()))?;
        if let Some(idf) = learned_weights(options)? {
            batch.put(Record::LearnedWeights(&encode_learned_weights(idf)))?;
        }
        let empty_directory = BlockDirectory::default().to_bytes();
        for table in 0..tables {
            batch.put(Record::Directory {
                table,
                bytes: &empty_directory,
            })?;
            batch.put(Record::Counter(Counter::TableBytes(table), 0))?;
        }
        batch.put(Record::Counter(Counter::Fingerprints, 0))?;
        batch.put(Record::Counter(Counter::Ids, 0))?;
        Ok(())
    }

    /// Reads the manifest, directories, counters and delta of an open
    /// store; returns the tables and the simhasher text is hashed with
    /// (with the learned weights the database keeps, if it has them).
    pub fn load(store: &Store, open: &OpenOptions) -> Result<(Tables, Simhasher)> {
        let tables = store.tables();
        let Stored {
            manifest,
            version: format_version,
        } = read_manifest(store)?;
        let parsed = ParsedManifest::parse(&manifest)?;
        if parsed.design.tables().len() != tables {
            return Err(Error::corrupt(
                "manifest",
                format!(
                    "design {} has {} tables, the store {tables} table column families",
                    parsed.design.name(),
                    parsed.design.tables().len(),
                ),
            ));
        }
        let ParsedManifest {
            design,
            codes,
            simhash,
            block_bytes,
            confirmation,
        } = parsed;

        let simhasher = match Tables::read_learned_weights(store, simhash)? {
            Some(idf) => Simhasher::learned(simhash.tokenizer, Arc::new(idf)),
            None => Simhasher::new(simhash),
        };

        // On every core: reading, checking and decoding the directories
        // is most of a fresh open's work at 100M (26 MB of them).
        let mut directories = Vec::with_capacity(tables);
        let mut table_bytes = Vec::with_capacity(tables);
        let read = fpdb_parallel::in_parallel(tables, |index| -> Result<(BlockDirectory, u64)> {
            let directory = read_directory(store, index, format_version)?;
            Ok((directory, store.counter(Counter::TableBytes(index))?))
        });
        for table in read {
            let (directory, bytes) = table?;
            directories.push(directory);
            table_bytes.push(bytes);
        }
        let fingerprints = store.counter(Counter::Fingerprints)?;
        let ids = store.counter(Counter::Ids)?;
        let mut delta = Delta::new(&design, open.merge_threshold(fingerprints));
        for entry in store.delta_entries()? {
            match entry {
                DeltaEntry::Added(fp) => delta.add(&design, fp),
                DeltaEntry::Removed(fp) => delta.remove(fp),
            }
        }
        let state = State {
            blocks: Arc::new(BlockCache::new(&directories, open.block_cache_bytes)),
            directories,
            table_bytes,
            delta,
            touched: None,
            fingerprints,
            ids,
        };
        Ok((
            Tables {
                design,
                k: manifest.k,
                block_bytes,
                codes,
                format_version,
                confirmation,
                delta_limit: open.delta_limit,
                block_cache_bytes: open.block_cache_bytes,
                state: RwLock::new(state),
                writer: Mutex::new(()),
                merging: Mutex::new(()),
                merge_on_write: AtomicBool::new(true),
            },
            simhasher,
        ))
    }

    /// The learned weights of a database whose options (`simhash`) say it
    /// has them, checked against the digest the options name; `None` for
    /// other weightings.
    pub fn read_learned_weights(
        store: &Store,
        simhash: SimhashOptions,
    ) -> Result<Option<LearnedIdf>> {
        let Weighting::Learned { digest } = simhash.weighting else {
            return Ok(None);
        };
        let bytes = store.get(Key::LearnedWeights)?.ok_or_else(|| {
            Error::corrupt("learned weights", "missing, though the manifest names them")
        })?;
        let idf = decode_learned_weights(&bytes)
            .map_err(|reason| Error::corrupt("learned weights", reason))?;
        if idf.digest() != digest {
            return Err(Error::corrupt(
                "learned weights",
                format!(
                    "their digest is {:016x}, the manifest names {digest:016x}",
                    idf.digest()
                ),
            ));
        }
        Ok(Some(idf))
    }

    /// Which text of an HTML page the database fingerprints.
    pub fn read_extract(store: &Store) -> Result<Extract> {
        let Some(bytes) = store.get(Key::Extract)? else {
            return Ok(Extract::Main);
        };
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|name| name.parse().ok())
            .ok_or_else(|| {
                Error::corrupt(
                    "extraction option",
                    format!(
                        "{:?} is neither main nor all",
                        String::from_utf8_lossy(&bytes)
                    ),
                )
            })
    }

    pub fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the writer lock (read-only stores have no writers).
    pub fn lock_writer(&self, store: &Store) -> Result<WriterGuard<'_>> {
        if store.is_read_only() {
            return Err(Error::ReadOnly);
        }
        Ok(WriterGuard {
            _held: self.writer.lock().unwrap_or_else(PoisonError::into_inner),
        })
    }

    /// Takes the merge lock, waiting for a running merge to finish.
    pub fn lock_merging(&self) -> MutexGuard<'_, ()> {
        self.merging.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the merge lock unless a merge holds it.
    pub fn try_lock_merging(&self) -> Option<MutexGuard<'_, ()>> {
        match self.merging.try_lock() {
            Ok(guard) => Some(guard),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Whether the delta has reached the size that calls for a merge.
    pub fn merge_due(&self) -> bool {
        let state = self.read();
        state.delta.len() >= self.merge_threshold(state.fingerprints)
    }

    pub fn merges_on_write(&self) -> bool {
        self.merge_on_write.load(Ordering::Relaxed)
    }

    pub fn set_merge_on_write(&self, on: bool) {
        self.merge_on_write.store(on, Ordering::Relaxed);
    }

    /// [`Error::KTooLarge`] when the tables cannot answer distance `k`
    /// in one pass each (batch merges and near pairs).
    pub fn check_k(&self, k: u32) -> Result<()> {
        if k > self.k {
            return Err(Error::KTooLarge { k, max: self.k });
        }
        Ok(())
    }

    /// [`Error::RadiusTooLarge`] when no query reaches radius `k`; past
    /// the tables' own k, a query probes their neighbouring prefixes.
    pub fn check_radius(&self, k: u32) -> Result<()> {
        if k > MAX_RADIUS {
            return Err(Error::RadiusTooLarge { k, max: MAX_RADIUS });
        }
        Ok(())
    }

    /// The delta size that triggers a merge in a set of `fingerprints`.
    pub fn merge_threshold(&self, fingerprints: u64) -> usize {
        OpenOptions::new()
            .delta_limit(self.delta_limit)
            .merge_threshold(fingerprints)
    }

    /// Table `index` of the design.
    pub fn table(&self, index: usize) -> Result<&Table> {
        self.design
            .tables()
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("design of table {index}"), "missing"))
    }

    /// Table `index`'s code book.
    pub fn code(&self, index: usize) -> Result<&HuffmanCode> {
        self.codes
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("code book of table {index}"), "missing"))
    }
}

/// The manifest, checked, and the database format it was stored in.
pub(crate) fn read_manifest(store: &Store) -> Result<Stored> {
    let bytes = store
        .get(Key::Manifest)?
        .ok_or_else(|| Error::corrupt("manifest", "missing"))?;
    Manifest::from_bytes(&bytes).map_err(manifest::damage)
}

/// Table `index`'s stored directory, in the layout of database format
/// `format_version` (framed from format 2 on, with first keys from format
/// 3 on; bare last keys in format 1).
pub(crate) fn read_directory(
    store: &Store,
    index: usize,
    format_version: u32,
) -> Result<BlockDirectory> {
    let what = || format!("directory of table {index}");
    store.read_value(Key::Directory(index), |bytes| {
        let bytes = bytes.ok_or_else(|| Error::corrupt(what(), "missing"))?;
        let directory = if format_version >= 2 {
            BlockDirectory::from_bytes(bytes)
        } else {
            BlockDirectory::from_v1_bytes(bytes)
        };
        directory.map_err(|e| Error::corrupt(what(), e.to_string()))
    })?
}

/// What a manifest says, checked: the design (agreeing with k and with
/// one code book per table), the code books, the text options and the
/// block size.
pub(crate) struct ParsedManifest {
    pub design: TableDesign,
    pub codes: Vec<HuffmanCode>,
    pub simhash: SimhashOptions,
    pub block_bytes: usize,
    pub confirmation: Option<Confirmation>,
}

impl ParsedManifest {
    pub fn parse(manifest: &Manifest) -> Result<ParsedManifest> {
        let design = TableDesign::from_bytes(&manifest.design)
            .map_err(|e| Error::corrupt("manifest: table design", e.to_string()))?;
        if design.k() != manifest.k || manifest.codes.len() != design.tables().len() {
            return Err(Error::corrupt(
                "manifest",
                format!(
                    "design {} (k = {}) with {} code books does not match k = {}",
                    design.name(),
                    design.k(),
                    manifest.codes.len(),
                    manifest.k
                ),
            ));
        }
        let codes = manifest
            .codes
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                HuffmanCode::from_bytes(bytes).map_err(|e| {
                    Error::corrupt(format!("manifest: code book of table {i}"), e.to_string())
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let simhash = SimhashOptions {
            tokenizer: manifest.tokenizer.parse()?,
            weighting: manifest.weighting.parse()?,
        };
        let block_bytes = usize::try_from(manifest.block_bytes)
            .map_err(|_| Error::corrupt("manifest", "block size does not fit in memory"))?;
        let confirmation = manifest
            .confirmation
            .as_ref()
            .map(parsed_confirmation)
            .transpose()?;
        check_weak_bits(&design, confirmation.as_ref())
            .map_err(|e| Error::corrupt("manifest: confirmation", e.to_string()))?;
        Ok(ParsedManifest {
            design,
            codes,
            simhash,
            block_bytes,
            confirmation,
        })
    }
}

/// A confirmation as the manifest stores it.
/// The learned weights a database made with `options` keeps: the table of
/// `Weighting::Learned`, whose digest it must have; none for other
/// weightings, which must come without one.
fn learned_weights(options: &Options) -> Result<Option<&LearnedIdf>> {
    match (
        options.simhash.weighting,
        options.learned_weights.as_deref(),
    ) {
        (Weighting::Learned { digest }, Some(idf)) if idf.digest() == digest => Ok(Some(idf)),
        (Weighting::Learned { digest }, _) => Err(Error::InvalidOptions(format!(
            "weights learned:{digest:016x} need their table (Options::learned_weights)"
        ))),
        (weighting, Some(_)) => Err(Error::InvalidOptions(format!(
            "learned weights given with weighting {weighting}"
        ))),
        (_, None) => Ok(None),
    }
}

fn stored_confirmation(confirmation: &Confirmation) -> manifest::Confirmation {
    let layout = confirmation.layout();
    manifest::Confirmation {
        hashes: layout.hashes(),
        bits: layout.bits(),
        shingle: layout.shingle(),
        threshold_permille: confirmation.threshold_permille(),
        radius: confirmation.radius(),
        common_features: confirmation.common_features().hashes().to_vec(),
        weak_bits: u8::try_from(confirmation.weak_bits()).unwrap_or(u8::MAX),
        weak_flips: confirmation.stored_weak_flips(),
        min_shared: confirmation.min_shared(),
        numbers_permille: confirmation.numbers_from_permille(),
    }
}

/// A stored confirmation, checked.
fn parsed_confirmation(stored: &manifest::Confirmation) -> Result<Confirmation> {
    let corrupt = |reason: String| Error::corrupt("manifest: confirmation", reason);
    let layout = SignatureLayout::new(stored.hashes, stored.bits, stored.shingle)
        .map_err(|e| corrupt(e.to_string()))?;
    if stored.threshold_permille > 1000
        || stored.radius > MAX_RADIUS
        || u32::from(stored.weak_bits) > MAX_WEAK_BITS_PER_QUARTER
        || u32::from(stored.weak_flips) >= EVERY_SUBSET
        || stored.numbers_permille > 1000
    {
        return Err(corrupt(format!(
            "threshold {}‰, radius {}, {} weak bits, at most {} flipped or numbers from {}‰ out of range",
            stored.threshold_permille,
            stored.radius,
            stored.weak_bits,
            stored.weak_flips,
            stored.numbers_permille
        )));
    }
    if !stored.common_features.is_sorted_by(|a, b| a < b) {
        return Err(corrupt("common features are not sorted".to_string()));
    }
    Ok(Confirmation::from_stored(
        layout,
        stored.threshold_permille,
        stored.radius,
        CommonFeatures::from_hashes(stored.common_features.clone()),
        stored.weak_bits,
        stored.weak_flips,
        stored.min_shared,
        stored.numbers_permille,
    ))
}

/// A confirmation that keeps weak bits needs a design with a table keyed
/// by each quarter of the fingerprint, where its queries probe them.
pub(crate) fn check_weak_bits(
    design: &TableDesign,
    confirmation: Option<&Confirmation>,
) -> Result<()> {
    if confirmation.is_some_and(|c| c.weak_bits() > 0) && !engine::probes_weak_bits(design) {
        return Err(Error::InvalidOptions(format!(
            "weak bits are probed in tables keyed by the fingerprint's quarters (the design split-4 at k = 3), not in {}",
            design.name()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of a stored confirmation comes back, and one out of
    /// range is corruption, not a confirmation.
    #[test]
    fn stored_confirmations_round_trip_and_are_checked() {
        let confirmation = Confirmation::recommended()
            .with_numbers_from(300)
            .unwrap()
            .with_common_features(CommonFeatures::from_hashes(vec![5, 9]));
        let stored = stored_confirmation(&confirmation);
        assert_eq!(parsed_confirmation(&stored).unwrap(), confirmation);
        for (flips, as_stored) in [(1, 1), (2, 2), (7, 7), (8, 0), (20, 0)] {
            let capped = confirmation.clone().with_weak_flips(flips).unwrap();
            let stored = stored_confirmation(&capped);
            assert_eq!(stored.weak_flips, as_stored);
            let parsed = parsed_confirmation(&stored).unwrap();
            assert_eq!(parsed.weak_flips(), flips.min(EVERY_SUBSET));
        }
        assert!(confirmation.clone().with_weak_flips(0).is_err());
        for damage in [
            |c: &mut manifest::Confirmation| c.threshold_permille = 1001,
            |c: &mut manifest::Confirmation| c.radius = MAX_RADIUS + 1,
            |c: &mut manifest::Confirmation| c.weak_bits = 9,
            |c: &mut manifest::Confirmation| c.weak_flips = 8,
            |c: &mut manifest::Confirmation| c.numbers_permille = 1001,
            |c: &mut manifest::Confirmation| c.common_features = vec![9, 5],
        ] {
            let mut bad = stored.clone();
            damage(&mut bad);
            assert!(matches!(
                parsed_confirmation(&bad),
                Err(Error::Corrupt { .. })
            ));
        }
    }
}
