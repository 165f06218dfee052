//! The database handle: open, create, query.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use fpdb_codec::{
    within_distance, BlockDecoder, BlockDirectory, ChecksumPolicy, HuffmanCode, TableDesign, MAX_K,
};
use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher};
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType,
    IteratorMode, SliceTransform, WriteBatch, WriteOptions, DB,
};

use crate::block_cache::BlockCache;
use crate::delta::Delta;
use crate::keys::{self, block_key, decode_u64, directory_key, table_cf};
use crate::manifest::Manifest;
use crate::rocks::Rocks;
use crate::seeded_hash::{FastMap, SeededState};
use crate::{Error, OpenOptions, Options, Result};

/// Longest document id, in bytes of UTF-8.
pub const MAX_ID_BYTES: usize = 1024;

/// A stored fingerprint within the asked distance of a query, with the ids
/// of every document that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The stored fingerprint.
    pub fingerprint: Fingerprint,
    /// Its Hamming distance to the query.
    pub distance: u32,
    /// The documents with this fingerprint, in byte order.
    pub ids: Vec<String>,
}

/// One table's part of a query: the permuted query, the range of keys
/// sharing its prefix, and the blocks that can hold them.
struct TableProbe {
    query: u64,
    lo: u64,
    hi: u64,
    /// The directory group holding `lo` (the first step of the search).
    group: usize,
    blocks: std::ops::Range<usize>,
}

/// What can change while the database is open; guarded by one lock that
/// queries hold for reading, so a query never sees a half-applied merge.
#[derive(Debug)]
pub(crate) struct State {
    pub directories: Vec<BlockDirectory>,
    /// Blocks read so far, by the directories' block indices.
    pub blocks: BlockCache,
    pub table_bytes: Vec<u64>,
    pub delta: Delta,
    pub fingerprints: u64,
    pub ids: u64,
}

/// An open fpdb database. `Send + Sync`: share it between threads with an
/// `Arc`; queries run in parallel, writes are serialised.
pub struct Db {
    pub(crate) rocks: Rocks,
    pub(crate) path: PathBuf,
    pub(crate) read_only: bool,
    pub(crate) design: TableDesign,
    pub(crate) codes: Vec<HuffmanCode>,
    pub(crate) k: u32,
    pub(crate) block_bytes: usize,
    pub(crate) simhasher: Simhasher,
    pub(crate) open_options: OpenOptions,
    pub(crate) state: RwLock<State>,
    /// Held by every writer for the whole write, so that read-modify-write
    /// of ids, counters and the delta is atomic with respect to writers.
    pub(crate) writer: Mutex<()>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .field("k", &self.k)
            .field("design", &self.design.name())
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Creates a database in `path`, which must not exist or be an empty
    /// directory.
    pub fn create(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        let path = path.as_ref().to_path_buf();
        if options.k > MAX_K {
            return Err(Error::Options(format!(
                "k = {} is above the largest supported k = {MAX_K}",
                options.k
            )));
        }
        if !(64..=1 << 20).contains(&options.block_bytes) {
            return Err(Error::Options(format!(
                "block size {} bytes is outside 64 ..= 1048576",
                options.block_bytes
            )));
        }
        if path.exists() && !path.is_dir() {
            return Err(Error::AlreadyExists { path });
        }
        let occupied = match std::fs::read_dir(&path) {
            Ok(mut entries) => entries.next().is_some(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(source) => return Err(Error::Io { path, source }),
        };
        if occupied {
            return Err(Error::AlreadyExists { path });
        }
        let design = options.design.resolve(options.k, options.expected_size)?;
        let codes = vec![HuffmanCode::uniform(); design.tables().len()];
        let manifest = Manifest {
            k: options.k,
            block_bytes: options.block_bytes as u32,
            design: design.to_bytes(),
            codes: codes.iter().map(HuffmanCode::to_bytes).collect(),
            tokenizer: options.simhash.tokenizer.to_string(),
            weighting: options.simhash.weighting.to_string(),
        };
        let mut db_options = rocksdb::Options::default();
        db_options.create_if_missing(true);
        db_options.create_missing_column_families(true);
        db_options.set_error_if_exists(true);
        let families = column_families(design.tables().len());
        let rocks = DB::open_cf_descriptors(&db_options, &path, families)
            .map_err(|e| rocks_error(e, &path))?;
        let mut batch = WriteBatch::default();
        let meta = cf(&rocks, keys::META)?;
        batch.put_cf(meta, keys::MANIFEST_KEY, manifest.to_bytes()?);
        for index in 0..design.tables().len() {
            batch.put_cf(meta, directory_key(index), []);
            batch.put_cf(meta, table_bytes_key(index), 0u64.to_be_bytes());
        }
        batch.put_cf(meta, keys::FINGERPRINT_COUNT_KEY, 0u64.to_be_bytes());
        batch.put_cf(meta, keys::ID_COUNT_KEY, 0u64.to_be_bytes());
        let mut sync = WriteOptions::default();
        sync.set_sync(true);
        rocks.write_opt(batch, &sync)?;
        drop(rocks);
        Db::open_with(path, OpenOptions::default())
    }

    /// Opens an existing database for reading and writing. A second opener
    /// gets [`Error::Locked`].
    pub fn open(path: impl AsRef<Path>) -> Result<Db> {
        Db::open_with(path, OpenOptions::default())
    }

    /// [`Db::open`] with per-handle options (durability, merge threshold).
    pub fn open_with(path: impl AsRef<Path>, open_options: OpenOptions) -> Result<Db> {
        Db::open_inner(path.as_ref(), open_options, false)
    }

    /// Opens an existing database read-only. It may be open for writing by
    /// another process at the same time; this handle sees the database as
    /// it was when opened.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Db> {
        Db::open_inner(path.as_ref(), OpenOptions::default(), true)
    }

    fn open_inner(path: &Path, open_options: OpenOptions, read_only: bool) -> Result<Db> {
        let path = path.to_path_buf();
        if !path.join("CURRENT").is_file() {
            return Err(Error::NotFound { path });
        }
        let db_options = rocksdb::Options::default();
        let names = DB::list_cf(&db_options, &path).map_err(|e| rocks_error(e, &path))?;
        let tables = names.iter().filter(|n| n.starts_with("table-")).count();
        for needed in keys::FIXED_FAMILIES {
            if !names.iter().any(|n| n == needed) {
                return Err(Error::corrupt(format!("column family {needed}"), "missing"));
            }
        }
        let families = column_families(tables);
        let rocks = if read_only {
            let names: Vec<String> = families.iter().map(|d| d.name().to_string()).collect();
            DB::open_cf_for_read_only(&db_options, &path, names, false)
        } else {
            DB::open_cf_descriptors(&db_options, &path, families)
        }
        .map_err(|e| rocks_error(e, &path))?;

        let meta = cf(&rocks, keys::META)?;
        if rocks.get_cf(meta, crate::bulk::LOADING_KEY)?.is_some() {
            if read_only {
                return Err(Error::InterruptedLoad { path });
            }
            crate::bulk::rollback_interrupted(&rocks, &path, tables)?;
        }
        if !read_only {
            // Holding the lock, no load is running: scratch files are
            // leftovers of one that was killed.
            crate::bulk::remove_scratch(&path);
        }
        let manifest_bytes = rocks
            .get_cf(meta, keys::MANIFEST_KEY)?
            .ok_or_else(|| Error::corrupt("manifest", "missing"))?;
        let manifest = Manifest::from_bytes(&manifest_bytes)?;
        let design = TableDesign::from_bytes(&manifest.design)
            .map_err(|e| Error::corrupt("manifest: table design", e.to_string()))?;
        if design.k() != manifest.k
            || design.tables().len() != tables
            || manifest.codes.len() != tables
        {
            return Err(Error::corrupt(
                "manifest",
                format!(
                    "design {} (k = {}) with {} code books does not match k = {} and {tables} table column families",
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

        let mut directories = Vec::with_capacity(tables);
        let mut table_bytes = Vec::with_capacity(tables);
        for index in 0..tables {
            let bytes = rocks
                .get_cf(meta, directory_key(index))?
                .ok_or_else(|| Error::corrupt(format!("directory of table {index}"), "missing"))?;
            directories.push(BlockDirectory::from_bytes(&bytes).map_err(|e| {
                Error::corrupt(format!("directory of table {index}"), e.to_string())
            })?);
            table_bytes.push(read_counter(&rocks, meta, &table_bytes_key(index))?);
        }
        let fingerprints = read_counter(&rocks, meta, keys::FINGERPRINT_COUNT_KEY)?;
        let ids = read_counter(&rocks, meta, keys::ID_COUNT_KEY)?;
        let mut delta = Delta::new(&design, open_options.merge_threshold(fingerprints));
        for entry in rocks.iterator_cf(cf(&rocks, keys::DELTA)?, IteratorMode::Start) {
            let (key, value) = entry?;
            let fp = decode_u64(&key)
                .map(Fingerprint)
                .ok_or_else(|| Error::corrupt("delta", format!("key of {} bytes", key.len())))?;
            match value.as_ref() {
                [keys::DELTA_ADDED] => delta.add(&design, fp),
                [keys::DELTA_REMOVED] => delta.remove(fp),
                _ => return Err(Error::corrupt("delta", format!("bad value for {fp}"))),
            }
        }
        Ok(Db {
            rocks: Rocks::from_db(rocks, read_only),
            path,
            read_only,
            k: manifest.k,
            block_bytes: manifest.block_bytes as usize,
            design,
            codes,
            simhasher: Simhasher::new(simhash),
            open_options,
            state: RwLock::new(State {
                blocks: BlockCache::new(&directories, open_options.block_cache_bytes),
                directories,
                table_bytes,
                delta,
                fingerprints,
                ids,
            }),
            writer: Mutex::new(()),
        })
    }

    /// The directory the database lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The largest distance this database answers.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The permuted tables.
    pub fn design(&self) -> &TableDesign {
        &self.design
    }

    /// The simhasher this database's text entry points use (its options
    /// are stored in the manifest, so text always hashes the same way).
    pub fn simhasher(&self) -> &Simhasher {
        &self.simhasher
    }

    /// The fingerprint stored for document `id`.
    pub fn get(&self, id: &str) -> Result<Option<Fingerprint>> {
        let value = self
            .rocks
            .get_cf(self.cf(keys::ID_TO_FP)?, id.as_bytes())
            .map_err(|e| {
                damage(e, || {
                    format!("fingerprint of id {id:?} ({})", keys::ID_TO_FP)
                })
            })?;
        value.map(|v| fingerprint_value(id, &v)).transpose()
    }

    /// [`Db::get`] for many ids at once, through one RocksDB MultiGet
    /// (sorted keys share its index and filter lookups, cheaper than a
    /// `get` each): each distinct id of `ids` with its stored fingerprint.
    pub(crate) fn get_many<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<FastMap<&'a str, Option<Fingerprint>>> {
        let mut sorted: Vec<&str> = ids.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let values = self
            .rocks
            .batched_multi_get_cf(self.cf(keys::ID_TO_FP)?, sorted.iter(), true);
        let mut found = FastMap::with_capacity_and_hasher(sorted.len(), SeededState::default());
        for (id, value) in sorted.into_iter().zip(values) {
            let value = value.map_err(|e| {
                damage(e, || {
                    format!("fingerprint of id {id:?} ({})", keys::ID_TO_FP)
                })
            })?;
            let fp = value.map(|v| fingerprint_value(id, &v)).transpose()?;
            found.insert(id, fp);
        }
        Ok(found)
    }

    /// Every stored fingerprint within `k` bits of `fp`, nearest first
    /// (ties by fingerprint), each with its document ids.
    pub fn query(&self, fp: Fingerprint, k: u32) -> Result<Vec<Match>> {
        self.check_k(k)?;
        let state = self.read_state();
        self.query_locked(&state, fp, k)
    }

    /// The fingerprint of `text` under the database's simhash options.
    pub fn fingerprint_text(&self, text: &str) -> Fingerprint {
        self.simhasher.fingerprint(text)
    }

    /// [`Db::query`] for the fingerprint of `text`.
    pub fn query_text(&self, text: &str, k: u32) -> Result<Vec<Match>> {
        self.query(self.fingerprint_text(text), k)
    }

    pub(crate) fn query_locked(
        &self,
        state: &State,
        fp: Fingerprint,
        k: u32,
    ) -> Result<Vec<Match>> {
        let found = self.matching_fingerprints(state, fp, k)?;
        self.with_ids(found)
    }

    /// Sorts (fingerprint, distance) nearest first and attaches each
    /// fingerprint's ids.
    pub(crate) fn with_ids(&self, mut found: Vec<(Fingerprint, u32)>) -> Result<Vec<Match>> {
        found.sort_unstable_by_key(|&(f, d)| (d, f));
        let mut matches = Vec::with_capacity(found.len());
        if found.is_empty() {
            return Ok(matches);
        }
        self.rocks.with_id_scanner(|scanner| {
            for (fingerprint, distance) in found {
                let ids = scanner.ids_of(fingerprint)?;
                // A fingerprint whose last id is being removed right now
                // has no ids: it is already gone.
                if !ids.is_empty() {
                    matches.push(Match {
                        fingerprint,
                        distance,
                        ids,
                    });
                }
            }
            Ok(matches)
        })
    }

    /// (fingerprint, distance) of every member of the set within `k`.
    fn matching_fingerprints(
        &self,
        state: &State,
        fp: Fingerprint,
        k: u32,
    ) -> Result<Vec<(Fingerprint, u32)>> {
        let mut found = Vec::new();
        let mut keys = Vec::new();
        let probes = self.locate_probes(state, fp);
        for (index, (table, probe)) in self.design.tables().iter().zip(probes).enumerate() {
            let permutation = table.permutation();
            let TableProbe {
                query,
                lo,
                hi,
                blocks,
                ..
            } = probe;
            let mut consider = |key: u64| {
                // Popcount does not care about the bit order, so the
                // distance is computed on permuted keys.
                let xor = key ^ query;
                if within_distance(xor, k) {
                    let stored = permutation.inverse(key);
                    // A fingerprint sharing prefixes with the query in
                    // several tables is reported by the first of them only.
                    if self.design.first_table_sharing(stored ^ fp.0) == Some(index) {
                        found.push((Fingerprint(stored), xor.count_ones()));
                    }
                }
            };
            if let (Some(directory), Some(code)) =
                (state.directories.get(index), self.codes.get(index))
            {
                let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
                // Kept blocks passed their checksum when they were read.
                let trusted = BlockDecoder::new(code, ChecksumPolicy::Skip);
                for block in blocks {
                    let last_key = directory
                        .last_keys()
                        .get(block)
                        .copied()
                        .unwrap_or_default();
                    let damaged = |e: fpdb_codec::CodecError| {
                        Error::corrupt(format!("table {index}, block {block}"), e.to_string())
                    };
                    let past_hi = match state.blocks.get(index, block) {
                        Some(kept) => trusted
                            .for_each_in_range(&kept.bytes, &kept.sync, lo, hi, &mut consider)
                            .map_err(damaged)?,
                        None => {
                            let bytes = self.read_block(index, block, last_key)?;
                            if state.blocks.has_room_for(bytes.len()) {
                                // Decoded whole (and checked) once, to keep
                                // it with its sync points.
                                decoder.decode(&bytes, &mut keys).map_err(damaged)?;
                                state.blocks.keep(index, block, &bytes, &keys, code);
                            } else {
                                decoder
                                    .decode_until(&bytes, hi, &mut keys)
                                    .map_err(damaged)?;
                            }
                            keys.iter()
                                .filter(|&&key| key >= lo && key <= hi)
                                .for_each(|&key| consider(key));
                            // (A decode that stopped at `hi` says nothing
                            // about later blocks: look at them.)
                            keys.last().is_some_and(|&last| last > hi)
                        }
                    };
                    if past_hi {
                        break;
                    }
                }
            }
            state.delta.added_in(index, lo, hi).for_each(&mut consider);
        }
        found.retain(|&(f, _)| !state.delta.is_removed(f));
        Ok(found)
    }

    /// Each table's permuted query, prefix range and blocks to read.
    ///
    /// Finding them takes a chain of dependent cache misses per table
    /// (directory group, the group's keys, the kept blocks' slots, their
    /// bytes). Each step is taken for every table before the next, so the
    /// tables' misses overlap instead of adding up.
    fn locate_probes(&self, state: &State, fp: Fingerprint) -> Vec<TableProbe> {
        let tables = self.design.tables();
        let directories = &state.directories;
        let mut probes: Vec<TableProbe> = tables
            .iter()
            .zip(directories)
            .map(|(table, directory)| {
                let query = table.permutation().permute(fp.0);
                let (lo, hi) = table.prefix_range(query);
                TableProbe {
                    query,
                    lo,
                    hi,
                    group: directory.group_for(lo),
                    blocks: 0..0,
                }
            })
            .collect();
        let mut touched = 0u64;
        for (directory, probe) in directories.iter().zip(&probes) {
            touched ^= directory.touch_group(probe.group);
        }
        for (index, (probe, directory)) in probes.iter_mut().zip(directories).enumerate() {
            if probe.lo <= probe.hi {
                probe.blocks = directory.locate_in_group(probe.group, probe.lo, probe.hi);
            }
            for block in probe.blocks.clone() {
                if let Some(kept) = state.blocks.get(index, block) {
                    touched ^= kept.touch(probe.lo);
                }
            }
        }
        std::hint::black_box(touched);
        probes
    }

    pub(crate) fn read_block(
        &self,
        table: usize,
        block: usize,
        last_key: u64,
    ) -> Result<rocksdb::DBPinnableSlice<'_>> {
        self.rocks
            .get_pinned_cf(self.table_cf(table)?, block_key(last_key))
            .map_err(|e| damage(e, || format!("table {table}, block {block}")))?
            .ok_or_else(|| {
                Error::corrupt(
                    format!("table {table}, block {block}"),
                    "missing from the store",
                )
            })
    }

    pub(crate) fn check_k(&self, k: u32) -> Result<()> {
        if k > self.k {
            return Err(Error::KTooLarge { k, max: self.k });
        }
        Ok(())
    }

    pub(crate) fn cf(&self, name: &str) -> Result<&ColumnFamily> {
        cf(&self.rocks, name)
    }

    pub(crate) fn table_cf(&self, index: usize) -> Result<&ColumnFamily> {
        cf(&self.rocks, &table_cf(index))
    }

    pub(crate) fn read_state(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write_state(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn lock_writer(&self) -> Result<MutexGuard<'_, ()>> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        Ok(self.writer.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub(crate) fn write_options(&self) -> WriteOptions {
        let mut options = WriteOptions::default();
        options.set_sync(self.open_options.sync);
        options
    }
}

impl Drop for Db {
    /// Flushes memtables so that the next open does not replay the whole
    /// write-ahead log (which made opening a freshly loaded database take
    /// as long as the load). Best effort: the WAL still has everything.
    fn drop(&mut self) {
        if !self.read_only {
            let families = self.families();
            let _ = self
                .rocks
                .flush_cfs_opt(&families, &rocksdb::FlushOptions::default());
        }
    }
}

impl Db {
    /// Handles of every column family: the fixed ones, then the tables.
    pub(crate) fn families(&self) -> Vec<&ColumnFamily> {
        let tables = (0..self.design.tables().len()).map(table_cf);
        keys::FIXED_FAMILIES
            .iter()
            .map(|name| (*name).to_string())
            .chain(tables)
            .filter_map(|name| self.rocks.cf_handle(&name))
            .collect()
    }
}

pub(crate) fn table_bytes_key(index: usize) -> Vec<u8> {
    format!("bytes/{index:03}").into_bytes()
}

pub(crate) fn cf<'a>(rocks: &'a DB, name: &str) -> Result<&'a ColumnFamily> {
    rocks
        .cf_handle(name)
        .ok_or_else(|| Error::corrupt(format!("column family {name}"), "missing"))
}

fn read_counter(rocks: &DB, meta: &ColumnFamily, key: &[u8]) -> Result<u64> {
    let value = rocks
        .get_cf(meta, key)?
        .ok_or_else(|| Error::corrupt(String::from_utf8_lossy(key), "missing"))?;
    decode_u64(&value).ok_or_else(|| Error::corrupt(String::from_utf8_lossy(key), "not 8 bytes"))
}

/// RocksDB's block cache, shared by all column families of one handle. A
/// HyperClockCache (entry size tuned automatically): its lookups take no
/// shard lock, unlike the LRU cache's, and every id lookup of a query
/// goes through it at least twice (index and data block).
const BLOCK_CACHE_BYTES: usize = 256 << 20;

/// The column families of a database with `tables` tables, tuned for how
/// each is read: table blocks by exact key (bloom filters, no compression:
/// blocks are compressed already), ids by exact key, fingerprint → ids by
/// 8-byte prefix (prefix bloom filters, so a fingerprint without ids is
/// usually answered without touching a file).
fn column_families(tables: usize) -> Vec<ColumnFamilyDescriptor> {
    let cache = Cache::new_hyper_clock_cache(BLOCK_CACHE_BYTES, 0);
    keys::FIXED_FAMILIES
        .iter()
        .map(|name| (*name).to_string())
        .chain((0..tables).map(table_cf))
        .map(|name| {
            let options = family_options(&name, Some(&cache));
            ColumnFamilyDescriptor::new(name, options)
        })
        .collect()
}

/// The options of column family `name`; the bulk loader writes its SST
/// files with the same ones, so ingested files carry the same filters.
pub(crate) fn family_options(name: &str, cache: Option<&Cache>) -> rocksdb::Options {
    let mut block_options = BlockBasedOptions::default();
    if let Some(cache) = cache {
        block_options.set_block_cache(cache);
    }
    block_options.set_bloom_filter(10.0, false);
    if name == keys::FP_TO_IDS {
        // Read only by fingerprint prefix: a whole-key filter would never
        // be consulted.
        block_options.set_whole_key_filtering(false);
    }
    let mut options = rocksdb::Options::default();
    options.set_block_based_table_factory(&block_options);
    if name.starts_with("table-") {
        options.set_compression_type(DBCompressionType::None);
        // A merge of a large delta rewrites nearly every block, and the
        // blocks it replaced stay in the family's older files until a
        // compaction passes over them: compacting at the first L0 file
        // (RocksDB's default is 4) drops them after each merge instead of
        // keeping up to several old copies of the table on disk.
        options.set_level_zero_file_num_compaction_trigger(1);
        options.set_memtable_whole_key_filtering(true);
        options.set_memtable_prefix_bloom_ratio(0.05);
    } else {
        options.set_compression_type(DBCompressionType::Lz4);
        if name == keys::ID_TO_FP {
            // Every write looks up each of its ids, most of them new: a
            // memtable filter answers "absent" without a skip-list search.
            options.set_memtable_whole_key_filtering(true);
            options.set_memtable_prefix_bloom_ratio(0.05);
        }
        if name == keys::FP_TO_IDS {
            // Every query match seeks here, and a seek visits every L0
            // file (their key ranges overlap): compacting at 2 files
            // rather than RocksDB's 4 took ~0.7 µs off the median query
            // of an online-built 10M database, at no insert cost measured.
            options.set_level_zero_file_num_compaction_trigger(2);
            options.set_prefix_extractor(SliceTransform::create_fixed_prefix(8));
            options.set_memtable_prefix_bloom_ratio(0.1);
        }
    }
    options
}

/// The fingerprint stored for `id` in `id_fp`.
fn fingerprint_value(id: &str, value: &[u8]) -> Result<Fingerprint> {
    decode_u64(value).map(Fingerprint).ok_or_else(|| {
        Error::corrupt(
            format!("fingerprint of id {id:?}"),
            format!("{} bytes", value.len()),
        )
    })
}

/// RocksDB's checksums failing on a read is damage to `what` (RocksDB's
/// message names the file); other RocksDB errors stay what they are.
pub(crate) fn damage(error: rocksdb::Error, what: impl FnOnce() -> String) -> Error {
    if error.kind() == rocksdb::ErrorKind::Corruption {
        Error::corrupt(what(), error.to_string())
    } else {
        Error::Rocks(error)
    }
}

/// RocksDB reports a held LOCK file as an I/O error; name it.
fn rocks_error(error: rocksdb::Error, path: &Path) -> Error {
    let text = error.to_string();
    if text.contains("LOCK")
        || text.contains("lock hold")
        || text.contains("Resource temporarily unavailable")
    {
        Error::Locked {
            path: path.to_path_buf(),
        }
    } else {
        Error::Rocks(error)
    }
}

impl Db {
    /// Every stored (document id, fingerprint), in id byte order, read
    /// from a consistent snapshot. For `fpdb export` and backups.
    pub fn export(&self) -> Result<impl Iterator<Item = Result<(String, Fingerprint)>> + '_> {
        let iter = self
            .rocks
            .iterator_cf(self.cf(keys::ID_TO_FP)?, IteratorMode::Start);
        Ok(iter.map(|entry| {
            let (key, value) = entry.map_err(|e| damage(e, || keys::ID_TO_FP.to_string()))?;
            let id = String::from_utf8(key.into_vec())
                .map_err(|_| Error::corrupt("id_fp", "an id is not UTF-8"))?;
            let fp = decode_u64(&value).map(Fingerprint).ok_or_else(|| {
                Error::corrupt(
                    format!("fingerprint of id {id:?}"),
                    format!("{} bytes", value.len()),
                )
            })?;
            Ok((id, fp))
        }))
    }
}
