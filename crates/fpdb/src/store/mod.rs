//! The storage layer: the only code that names RocksDB.
//!
//! It owns the column families and their options ([`families`]), every
//! key layout ([`keys`]), write batches, SST writing and ingestion, the
//! counters' encoding, the pooled id scanners, the mapping of RocksDB's
//! errors onto fpdb's, the database lock and the recovery of an
//! interrupted bulk load. What a block or a manifest means is decided
//! above it (`tables.rs`); the store moves bytes.

mod background;
mod backup;
mod cursor;
mod db_files;
mod error;
mod families;
mod group_commit;
mod handle;
mod ids;
mod keys;
mod live_copy;
mod lock;
mod paths;
mod placement;
mod reader;
mod salvage;
mod sorted_batch;
mod sst;
mod wal;
mod write_set;

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use fpdb_simhash::Fingerprint;
use rocksdb::{IngestExternalFileOptions, IteratorMode, ReadOptions, WriteOptions, DB};

pub use self::backup::BackupMethod;
pub(crate) use self::cursor::{BlockCursor, FpIdsCursor};
pub(crate) use self::error::io;
use self::error::storage;
use self::families::family_handle;
pub(crate) use self::families::FP_IDS_BLOCK_BYTES;
use self::group_commit::GroupCommit;
use self::handle::Handle;
pub(crate) use self::ids::{IdScanner, PrefixesRead};
pub(crate) use self::keys::{
    decode_block_key, decode_learned_weights, encode_learned_weights, Counter, DeltaEntry, Family,
    Key, Malformed, Record,
};
use self::keys::{decode_counter, decode_fingerprint};
pub(crate) use self::lock::take_lock;
pub(crate) use self::paths::sibling;
use self::reader::{open_following, open_reader, ReaderDir};
pub(crate) use self::salvage::{options_file_error, Salvage, Unreadable};
pub(crate) use self::sorted_batch::{SortedBatch, RECORD_OVERHEAD};
pub(crate) use self::sst::SstFile;
pub(crate) use self::wal::damage_in as log_damage;
pub(crate) use self::write_set::WriteSet;
use crate::error::{Error, Result};
use crate::seeded_hash::{FastMap, SeededState};

/// The bulk loader's default scratch directory inside the database
/// directory (same file system, so ingesting links files instead of
/// copying them).
pub(crate) const BULK_SCRATCH_DIR: &str = "bulk.tmp";

/// The writer's write-ahead log, at most (bytes): past it RocksDB flushes
/// the column families holding the oldest log, so a reader opening beside
/// a busy writer replays at most this much (docs/RELIABILITY.md).
const WRITER_WAL_LIMIT: u64 = 8 << 20;

/// How many logs a writer keeps to reuse once they are flushed: one is
/// enough to reuse a log at every switch (a flush ends long before the
/// next 8 MiB of log). A reader neither counts nor copies a kept log: it
/// is older than the oldest log the MANIFEST still needs
/// (`reader::replay_live_logs`).
const WRITER_RECYCLED_LOGS: usize = 1;

/// What a scan of a whole family reads per `pread` (RocksDB's
/// `readahead_size`). Without it RocksDB only hints the kernel and still
/// reads block by block: a 4 KiB `pread` per data block, as dear as a
/// random read when the pages are cached. Scanning a 10M table with 256
/// KiB reads took the merged batch of 10,000 queries from 142 to 117 ms
/// (1 MiB: 120, 4 MiB: 135; docs/BENCHMARKS.md).
const SCAN_READAHEAD_BYTES: usize = 256 << 10;

/// Read options of a scan of a whole family: RocksDB reads ahead, and
/// keeps what it reads out of its cache (a scan reads each block once).
fn scan_options() -> ReadOptions {
    let mut read = ReadOptions::default();
    read.set_readahead_size(SCAN_READAHEAD_BYTES);
    read.fill_cache(false);
    read
}

/// Read options of a query's or a merge's table block reads. They skip
/// RocksDB's checksum of each data block read from a file: every fpdb
/// block carries its own xxh3 checksum, which the decoder verifies on the
/// block's first read (`block_fetch::decode_read`), and damage to a data
/// block's keys or framing leaves a block missing or failing that check
/// (unseen only if a key became exactly another block's 8-byte key).
/// The second checksum was 7 % of the instructions of a fresh `fpdb
/// query` of 10,000 fingerprints at 10M (docs/BENCHMARKS.md). `fpdb
/// verify` scans with RocksDB's checksums on.
fn table_read_options(fill_cache: bool) -> ReadOptions {
    let mut read = ReadOptions::default();
    read.fill_cache(fill_cache);
    read.set_verify_checksums(false);
    read
}

/// A key and value read by a scan of a whole family.
pub(crate) type Entry = (Box<[u8]>, Box<[u8]>);

/// How a handle opens the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reads and writes; with `sync`, every write is fsynced before it
    /// is acknowledged ([`Store::wait_durable`]).
    Write { sync: bool },
    /// Reads only, beside any writer; `replay_log`: replay a live
    /// writer's whole log (see [`reader::open_reader`]).
    Read { replay_log: bool },
    /// Reads what can be read of a damaged copy: files that cannot be read
    /// are left out instead of failing the open (a salvage's scratch copy).
    Salvage,
}

/// An open RocksDB database laid out as fpdb's.
pub(crate) struct Store {
    handle: Handle,
    /// A read-only handle's own directory (RocksDB's secondary instances
    /// keep their logs there); removed after the handle is dropped.
    reader_dir: Option<ReaderDir>,
    path: PathBuf,
    read_only: bool,
    /// Writes of this handle are acknowledged once the write-ahead log
    /// holding them is fsynced.
    sync: bool,
    /// The log syncs shared by concurrent writers (with `sync`).
    group_commit: GroupCommit,
    tables: usize,
    prefixes_read: PrefixesRead,
    /// Held for the handle's lifetime when writable.
    _lock: Option<File>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .field("tables", &self.tables)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Creates a database with the families of `tables` tables in `path`,
    /// which must not exist or be an empty directory, and writes what
    /// `initial` puts, synced.
    pub fn create(
        path: &Path,
        tables: usize,
        initial: impl FnOnce(&mut WriteSet<'_>) -> Result<()>,
    ) -> Result<()> {
        if path.exists() && !path.is_dir() {
            return Err(Error::AlreadyExists { path: path.into() });
        }
        let occupied = match std::fs::read_dir(path) {
            Ok(mut entries) => entries.next().is_some(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(source) => {
                return Err(Error::Io {
                    path: path.into(),
                    source,
                })
            }
        };
        if occupied {
            return Err(Error::AlreadyExists { path: path.into() });
        }
        background::opening_for_writing()?;
        let mut options = families::db_options();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        options.set_error_if_exists(true);
        let db = DB::open_cf_descriptors(&options, path, families::descriptors(tables))
            .map_err(storage(|| format!("creating {}", path.display())))?;
        let mut batch = WriteSet::new(&db, 0);
        initial(&mut batch)?;
        let batch = batch.into_inner();
        db.write_opt(batch, &sync_options(true))
            .map_err(storage(|| "the new database's metadata".into()))
    }

    /// Opens the database in `path` as `access` says. A writable open
    /// takes the database's lock ([`Error::Locked`] if another handle has
    /// it) and rolls back a bulk load that was interrupted; a read-only one
    /// refuses such a database ([`Error::InterruptedLoad`]).
    pub fn open(path: &Path, access: Access) -> Result<Store> {
        if !path.join("CURRENT").is_file() {
            return Err(Error::NotFound { path: path.into() });
        }
        let (read_only, sync) = match access {
            Access::Write { sync } => (false, sync),
            Access::Read { .. } | Access::Salvage => (true, false),
        };
        let lock = if read_only {
            background::opening();
            None
        } else {
            background::opening_for_writing()?;
            Some(take_lock(path)?)
        };
        let options = families::db_options();
        let names = DB::list_cf(&options, path)
            .map_err(storage(|| "the list of column families".into()))?;
        let tables = names.iter().filter(|n| Family::is_table_name(n)).count();
        for needed in keys::FIXED_FAMILIES {
            if !names.iter().any(|n| *n == *needed.name()) {
                return Err(Error::corrupt(
                    format!("column family {}", needed.name()),
                    "missing",
                ));
            }
        }
        let descriptors = families::descriptors(tables);
        let names: Vec<String> = descriptors.iter().map(|d| d.name().to_string()).collect();
        let (db, reader_dir) = match access {
            Access::Read { replay_log } => open_reader(path, &names, replay_log)?,
            Access::Salvage => {
                let (db, dir) = open_following(path, &names, false)?;
                (db, Some(dir))
            }
            Access::Write { .. } => {
                let mut options = options;
                // A reader replays the writer's unflushed log when it
                // opens: capping the log keeps that replay (time and
                // memory) small.
                options.set_max_total_wal_size(WRITER_WAL_LIMIT);
                // Every family flushed in one step, recorded at once: a
                // reader catching up mid-flush then sees either all of a
                // write batch or none of it, never a directory without its
                // blocks (seen as "block missing from the store" once
                // flushes came often).
                options.set_atomic_flush(true);
                // Logs made old by a flush are kept and written over: a
                // sync of an appended log also writes the file's size to
                // its inode, a sync of a reused one does not (single
                // check-and-inserts from 16 clients of `fpdb serve`:
                // docs/BENCHMARKS.md). `fpdb verify` reads reused logs
                // itself (`wal.rs`): RocksDB's strict recovery mode takes
                // their old tails for damage.
                options.set_recycle_log_file_num(WRITER_RECYCLED_LOGS);
                let db = DB::open_cf_descriptors(&options, path, descriptors)
                    .map_err(storage(|| format!("opening {}", path.display())))?;
                (db, None)
            }
        };
        let store = Store {
            handle: Handle::from_db(db, read_only),
            reader_dir,
            path: path.into(),
            read_only,
            sync,
            group_commit: GroupCommit::default(),
            tables,
            prefixes_read: PrefixesRead::default(),
            _lock: lock,
        };
        if store.contains(Key::Loading)? {
            if read_only {
                return Err(Error::InterruptedLoad { path: path.into() });
            }
            store.roll_back_interrupted_load()?;
        }
        if !read_only {
            // Holding the lock, no load is running: scratch files are
            // leftovers of one that was killed.
            let _ = std::fs::remove_dir_all(path.join(BULK_SCRATCH_DIR));
        }
        Ok(store)
    }

    /// Whether this read-only handle follows a writer (a secondary
    /// instance) rather than having opened every file itself.
    pub fn follows_writer(&self) -> bool {
        self.reader_dir.is_some()
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// How many table families the database has.
    pub fn tables(&self) -> usize {
        self.tables
    }

    fn db(&self) -> &DB {
        &self.handle
    }

    fn family(&self, family: Family) -> Result<&rocksdb::ColumnFamily> {
        family_handle(self.db(), family)
    }

    /// The stored value of `key`: for what the store keeps as the layer
    /// above laid it out (the manifest, a directory, the extraction
    /// option).
    pub fn get(&self, key: Key<'_>) -> Result<Option<Vec<u8>>> {
        self.db()
            .get_cf(self.family(key.family())?, key.to_bytes())
            .map_err(storage(|| key.describe()))
    }

    /// Whether the database holds an entry under `key`.
    pub fn contains(&self, key: Key<'_>) -> Result<bool> {
        self.read_value(key, |value| value.is_some())
    }

    /// `read(value)` for the value of `key` (`None` if absent), read in
    /// place: large values (a 10M table's directory is 1 MB) are not
    /// copied first.
    pub fn read_value<R>(&self, key: Key<'_>, read: impl FnOnce(Option<&[u8]>) -> R) -> Result<R> {
        let value = self
            .db()
            .get_pinned_cf(self.family(key.family())?, key.to_bytes())
            .map_err(storage(|| key.describe()))?;
        Ok(read(value.as_deref()))
    }

    /// A counter of the `meta` family; missing or malformed is damage.
    pub fn counter(&self, counter: Counter) -> Result<u64> {
        let key = Key::Counter(counter);
        let value = self
            .get(key)?
            .ok_or_else(|| Error::corrupt(key.describe(), "missing"))?;
        decode_counter(&value)
            .map_err(|malformed| Error::corrupt(key.describe(), malformed.to_string()))
    }

    /// The stored bytes of the block of table `table` whose last key is
    /// `last_key`, without copying them out of RocksDB. `fill_cache`: keep
    /// RocksDB's data block in its cache (pointless when fpdb keeps the
    /// block itself: the copy would cost memory and a page fault per page).
    pub fn block(
        &self,
        table: usize,
        last_key: u64,
        fill_cache: bool,
    ) -> Result<Option<impl Deref<Target = [u8]> + '_>> {
        let read = table_read_options(fill_cache);
        self.db()
            .get_pinned_cf_opt(
                self.family(Family::Table(table))?,
                keys::block_key(last_key),
                &read,
            )
            .map_err(storage(|| {
                format!("table {table}, block with key {last_key:016x}")
            }))
    }

    /// [`Store::block`] for many blocks of table `table` at once, through
    /// one RocksDB MultiGet: `last_keys` ascending; `each` gets every
    /// block's position in `last_keys` and its bytes, in that order.
    /// Sorted keys share index searches and data-block reads (a RocksDB
    /// data block holds several fpdb blocks), which a get each repeats.
    pub fn blocks(
        &self,
        table: usize,
        last_keys: &[u64],
        fill_cache: bool,
        mut each: impl FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let read = table_read_options(fill_cache);
        let keys: Vec<[u8; 8]> = last_keys.iter().map(|&key| keys::block_key(key)).collect();
        let values = self.db().batched_multi_get_cf_opt(
            self.family(Family::Table(table))?,
            keys.iter(),
            true,
            &read,
        );
        for ((position, last_key), value) in last_keys.iter().enumerate().zip(values) {
            let what = || format!("table {table}, block with key {last_key:016x}");
            match value.map_err(storage(what))? {
                Some(bytes) => each(position, &bytes)?,
                None => return Err(Error::corrupt(what(), "missing from the store")),
            }
        }
        Ok(())
    }

    /// The fingerprint stored for document `id`.
    pub fn fingerprint_of(&self, id: &str) -> Result<Option<Fingerprint>> {
        let value = self.get(Key::IdFp(id.as_bytes()))?;
        value.map(|v| fingerprint_value(id, &v)).transpose()
    }

    /// [`Store::fingerprint_of`] for many ids at once, through one RocksDB
    /// MultiGet (sorted keys share its index and filter lookups, cheaper
    /// than a get each): each distinct id with its stored fingerprint.
    pub fn fingerprints_of<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<FastMap<&'a str, Option<Fingerprint>>> {
        let mut sorted: Vec<&str> = ids.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let values =
            self.db()
                .batched_multi_get_cf(self.family(Family::IdToFp)?, sorted.iter(), true);
        let mut found = FastMap::with_capacity_and_hasher(sorted.len(), SeededState::default());
        for (id, value) in sorted.into_iter().zip(values) {
            let value = value.map_err(storage(|| format!("fingerprint of id {id:?} (id_fp)")))?;
            let fp = value.map(|v| fingerprint_value(id, &v)).transpose()?;
            found.insert(id, fp);
        }
        Ok(found)
    }

    /// Runs `read` with a scanner of `fp_ids` that sees every write made
    /// before this call.
    pub fn with_id_scanner<R>(
        &self,
        read: impl FnOnce(&mut IdScanner<'_>) -> Result<R>,
    ) -> Result<R> {
        self.handle.with_id_scanner(read)
    }

    /// Runs `read` with two scanners of `fp_ids` that see every write made
    /// before this call: the first keeps the blocks it reads in RocksDB's
    /// cache, the second does not ([`PrefixesRead`] says which to use).
    pub fn with_id_scanners<R>(
        &self,
        read: impl FnOnce(&mut IdScanner<'_>, &mut IdScanner<'_>) -> Result<R>,
    ) -> Result<R> {
        self.handle.with_id_scanner(|cached| {
            self.handle
                .with_uncached_id_scanner(|uncached| read(cached, uncached))
        })
    }

    /// The fingerprint prefixes whose ids a batch read.
    pub fn prefixes_read(&self) -> &PrefixesRead {
        &self.prefixes_read
    }

    /// A batch of writes applied in the order they were put.
    pub fn write_set(&self, capacity_bytes: usize) -> WriteSet<'_> {
        WriteSet::new(self.db(), capacity_bytes)
    }

    /// Applies `batch` atomically, fsynced before it returns whatever the
    /// handle's setting: for merges and loads, which rewrite what many
    /// writes took to build.
    pub fn write_synced(&self, batch: WriteSet<'_>) -> Result<()> {
        self.check_writable()?;
        self.db()
            .write_opt(batch.into_inner(), &sync_options(true))
            .map_err(storage(|| "a write batch".into()))
    }

    /// Applies a [`SortedBatch`] atomically, in key order, to the log
    /// without syncing it: with the writer lock still held, take a
    /// [`Store::log_ticket`]; once the lock is released,
    /// [`Store::wait_durable`] for it before acknowledging the write.
    pub fn write_sorted(&self, batch: SortedBatch) -> Result<()> {
        self.check_writable()?;
        let (meta, id_to_fp, fp_to_ids, delta) = (
            self.family(Family::Meta)?,
            self.family(Family::IdToFp)?,
            self.family(Family::FpToIds)?,
            self.family(Family::Delta)?,
        );
        // Online writes touch the fixed families only.
        let handle = |family: Family| match family {
            Family::Meta => Some(meta),
            Family::IdToFp => Some(id_to_fp),
            Family::FpToIds => Some(fp_to_ids),
            Family::Delta => Some(delta),
            Family::Table(_) => None,
        };
        self.db()
            .write_opt(batch.into_write_batch(handle)?, &sync_options(false))
            .map_err(storage(|| "a write batch".into()))?;
        self.group_commit.count_write();
        Ok(())
    }

    /// The place in the log of every write applied so far; taken with the
    /// writer lock held, after the caller's writes and reads.
    pub fn log_ticket(&self) -> u64 {
        self.group_commit.ticket()
    }

    /// Returns once every write up to `ticket` is durable: at once
    /// without `sync` (the log is written, which a process crash does not
    /// lose); with it, after one fsync of the log shared with every
    /// writer waiting at the same time.
    pub fn wait_durable(&self, ticket: u64) -> Result<()> {
        if !self.sync {
            return Ok(());
        }
        self.group_commit.wait_durable(ticket, || {
            self.db()
                .flush_wal(true)
                .map_err(storage(|| "syncing the write-ahead log".into()))
        })
    }

    fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        Ok(())
    }

    /// Every entry of the `delta` family.
    pub fn delta_entries(&self) -> Result<Vec<DeltaEntry>> {
        let mut entries = Vec::new();
        for entry in self.entries(Family::Delta)? {
            let (key, value) = entry?;
            match Record::decode(Family::Delta, &key, &value) {
                Ok(Record::Delta(entry)) => entries.push(entry),
                Ok(_) => return Err(Error::corrupt("delta", "an entry of another family")),
                Err(malformed) => return Err(Error::corrupt("delta", malformed.to_string())),
            }
        }
        Ok(entries)
    }

    /// Every entry of `family` in key order. RocksDB detecting damage is
    /// [`Error::Corrupt`]; the scan cannot go past it.
    pub fn entries(&self, family: Family) -> Result<impl Iterator<Item = Result<Entry>> + '_> {
        let mut read = scan_options();
        // `fp_ids` has a prefix extractor: a scan across prefixes must ask
        // for total order.
        read.set_total_order_seek(true);
        let iter = self
            .db()
            .iterator_cf_opt(self.family(family)?, read, IteratorMode::Start);
        Ok(iter.map(move |entry| entry.map_err(storage(|| family.name().into_owned()))))
    }

    /// Every stored (document id, fingerprint), in id byte order, from a
    /// consistent snapshot.
    pub fn ids(&self) -> Result<impl Iterator<Item = Result<(String, Fingerprint)>> + '_> {
        Ok(self.entries(Family::IdToFp)?.map(|entry| {
            let (key, value) = entry?;
            let id = String::from_utf8(key.into_vec())
                .map_err(|_| Error::corrupt("id_fp", "an id is not UTF-8"))?;
            let fp = fingerprint_value(&id, &value)?;
            Ok((id, fp))
        }))
    }

    /// A cursor over table `table`'s blocks in key order. It leaves
    /// RocksDB's cache alone: a scan reads each block once and fpdb keeps
    /// the blocks it wants itself. (Filling it made a merged batch of
    /// 160,000 queries at 10M half again as slow: a copy and page faults
    /// for every block of the table, docs/BENCHMARKS.md.)
    pub fn block_cursor(&self, table: usize) -> Result<BlockCursor<'_>> {
        let iterator = self
            .db()
            .raw_iterator_cf_opt(self.family(Family::Table(table))?, scan_options());
        Ok(BlockCursor::new(iterator, table))
    }

    /// A cursor over `fp_ids` across fingerprints. `whole_scan`: it will
    /// read the whole family, so it does not fill RocksDB's cache with
    /// what queries would not ask for.
    pub fn fp_ids_cursor(&self, whole_scan: bool) -> Result<FpIdsCursor<'_>> {
        let mut read = if whole_scan {
            scan_options()
        } else {
            ReadOptions::default()
        };
        // The family has a prefix extractor; a scan across fingerprints
        // must not stop at the first prefix.
        read.set_total_order_seek(true);
        let iterator = self
            .db()
            .raw_iterator_cf_opt(self.family(Family::FpToIds)?, read);
        Ok(FpIdsCursor::new(iterator))
    }

    /// Ingests finished SST files into `family`, moving (hard-linking)
    /// them rather than copying.
    pub fn ingest(&self, family: Family, files: Vec<PathBuf>) -> Result<()> {
        self.check_writable()?;
        if files.is_empty() {
            return Ok(());
        }
        if let Family::Table(_) = family {
            // RocksDB's SST writer has the kernel drop what it wrote from
            // the page cache (its C API cannot say otherwise), so the first
            // queries after a bulk load read every block from the disk:
            // 1.6 s for 10,000 queries against 10M, 0.15 s warm. The
            // tables are what queries read next: ask for them back, read
            // in the background. Advice only; a failure changes nothing.
            for file in &files {
                read_in_background(file);
            }
        }
        let mut options = IngestExternalFileOptions::default();
        options.set_move_files(true);
        self.db()
            .ingest_external_file_cf_opts(self.family(family)?, &options, files)
            .map_err(storage(|| {
                format!("ingesting files into {}", family.name())
            }))
    }

    /// Every family, fixed ones first.
    fn all_families(&self) -> Vec<&rocksdb::ColumnFamily> {
        families::all_families(self.tables)
            .filter_map(|family| self.family(family).ok())
            .collect()
    }

    /// Compacts every family's files, dropping what merges replaced.
    pub fn compact(&self) {
        for family in self.all_families() {
            self.db()
                .compact_range_cf(family, None::<&[u8]>, None::<&[u8]>);
        }
        // Idle scanners still pin the files compaction replaced.
        self.handle.drop_idle_scanners();
    }

    /// Marks a bulk load as in progress (synced): until the mark is
    /// cleared, the next writable open rolls the load back.
    pub fn mark_loading(&self) -> Result<()> {
        let mut batch = self.write_set(0);
        batch.put(Record::Loading)?;
        self.write_synced(batch)
    }

    /// Flushes the memtables and waits until RocksDB's background
    /// compactions are done.
    pub fn flush_and_wait_for_compactions(&self) -> Result<()> {
        let mut options = rocksdb::WaitForCompactOptions::default();
        options.set_flush(true);
        self.db()
            .wait_for_compact(&options)
            .map_err(storage(|| "waiting for compactions".into()))
    }

    /// What the live SST files of `family` take on disk, as RocksDB counts
    /// them; 0 if it does not say.
    pub fn live_sst_bytes(&self, family: Family) -> u64 {
        self.family(family)
            .ok()
            .and_then(|cf| {
                self.db()
                    .property_int_value_cf(cf, "rocksdb.live-sst-files-size")
                    .ok()
                    .flatten()
            })
            .unwrap_or(0)
    }

    /// Asks the kernel to read `family`'s files into the page cache in the
    /// background. From a cold page cache every block is a random read
    /// from the disk (about 35 µs each on this project's VM, two threads
    /// reading) while the four table files of a 10M database (218 MB)
    /// read in order in 0.13 s; on a warm cache the advice costs a page
    /// lookup per 4 KiB (under a millisecond for a 55 MB table). Advice
    /// only; a failure changes nothing.
    pub fn read_ahead(&self, family: Family) {
        let Ok(files) = self.db().live_files() else {
            return;
        };
        let name = family.name();
        for file in files.iter().filter(|file| file.column_family_name == *name) {
            read_in_background(&self.path.join(file.name.trim_start_matches('/')));
        }
    }

    /// Deletes whatever an interrupted bulk load may have ingested (the
    /// database was empty before it) and the mark, in one synced write.
    fn roll_back_interrupted_load(&self) -> Result<()> {
        let mut batch = self.write_set(0);
        batch.clear(Family::IdToFp)?;
        batch.clear(Family::FpToIds)?;
        for index in 0..self.tables {
            batch.clear(Family::Table(index))?;
        }
        batch.delete(Key::Loading)?;
        self.write_synced(batch)?;
        let _ = std::fs::remove_dir_all(self.path.join(BULK_SCRATCH_DIR));
        Ok(())
    }
}

impl Drop for Store {
    /// Flushes memtables so that the next open does not replay the whole
    /// write-ahead log (which made opening a freshly loaded database take
    /// as long as the load). Best effort: the WAL still has everything.
    fn drop(&mut self) {
        if !self.read_only {
            let families = self.all_families();
            let _ = self
                .db()
                .flush_cfs_opt(&families, &rocksdb::FlushOptions::default());
        }
    }
}

fn sync_options(sync: bool) -> WriteOptions {
    let mut options = WriteOptions::default();
    options.set_sync(sync);
    options
}

/// The fingerprint stored for `id` in `id_fp`.
fn fingerprint_value(id: &str, value: &[u8]) -> Result<Fingerprint> {
    decode_fingerprint(value).map_err(|malformed| {
        Error::corrupt(format!("fingerprint of id {id:?}"), malformed.to_string())
    })
}

/// Asks the kernel to read `path` into the page cache in the background.
/// Linux reads at most its readahead window (128 KiB by default, 8 MiB on
/// this project's VM) per request, so the file is asked for window by
/// window.
fn read_in_background(path: &Path) {
    const WINDOW: u64 = 128 << 10;
    let Ok(file) = File::open(path) else {
        return;
    };
    let Ok(len) = file.metadata().map(|metadata| metadata.len()) else {
        return;
    };
    let mut offset = 0;
    while offset < len {
        let advice = rustix::fs::fadvise(
            &file,
            offset,
            std::num::NonZeroU64::new(WINDOW),
            rustix::fs::Advice::WillNeed,
        );
        if advice.is_err() {
            return;
        }
        offset += WINDOW;
    }
}
