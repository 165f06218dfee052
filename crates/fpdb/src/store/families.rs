//! The column families: each one's RocksDB options, tuned for how it is
//! read, and looking up its handle.

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType,
    SliceTransform, DB,
};

use super::keys::{Family, FIXED_FAMILIES};
use crate::error::{Error, Result};

/// RocksDB's block cache, shared by all column families of one handle. A
/// HyperClockCache (entry size tuned automatically): its lookups take no
/// shard lock, unlike the LRU cache's, and every id lookup of a query
/// goes through it at least twice (index and data block).
const BLOCK_CACHE_BYTES: usize = 256 << 20;

/// RocksDB's block size in `id_fp`: read only to find an id's fingerprint
/// when a write names the id, never by a query, so its blocks are large
/// and zstd-compressed for size (sorted ids share prefixes and words).
const ID_FP_BLOCK_BYTES: usize = 16 << 10;

/// RocksDB's block size in `fp_ids`, where every query match reads its
/// ids: LZ4, which decompresses several times faster than zstd, over
/// 4 KiB blocks. A match reads and decompresses a whole block for a few
/// ids: 8 KiB blocks were 3 % smaller with URL-like ids but made a fresh
/// `fpdb query` of 10,000 queries 9 ms slower (docs/BENCHMARKS.md).
pub(crate) const FP_IDS_BLOCK_BYTES: usize = 4 << 10;

/// RocksDB's default window for its compression options (zstd ignores it
/// but the call sets every option at once).
const ZSTD_WINDOW_BITS: i32 = -14;

/// The database-wide options a handle's open starts from (create,
/// writable, read-only, secondary; the copies and scratch databases of
/// `backup` and `repair` keep RocksDB's defaults). An open reads each
/// table file's footer, index and filter on RocksDB's file-opening
/// threads, 16 by default and started afresh for each column family:
/// 208 threads for one fresh `fpdb query` at 100M. One a core opened
/// that database in 0.92 of the CPU time (docs/BENCHMARKS.md).
pub(crate) fn db_options() -> rocksdb::Options {
    let mut options = rocksdb::Options::default();
    let threads = i32::try_from(fpdb_parallel::cores()).unwrap_or(i32::MAX);
    options.set_max_file_opening_threads(threads);
    options
}

/// The column families of a read-only handle, named `names`: RocksDB's
/// default options, as an open by names alone would give, so that no
/// family's filters are read at open (about 250 MB of them in the id
/// families at 100M), except that `id_fp`'s index is read on its first
/// use rather than at open: a query never reads `id_fp`, and
/// decompressing its index was an eighth of a fresh open's instructions
/// at 100M (docs/BENCHMARKS.md).
pub(crate) fn reader_descriptors(names: &[String]) -> Vec<ColumnFamilyDescriptor> {
    names
        .iter()
        .map(|name| {
            let mut options = rocksdb::Options::default();
            if Family::from_name(name) == Some(Family::IdToFp) {
                let mut block_options = BlockBasedOptions::default();
                block_options.set_cache_index_and_filter_blocks(true);
                options.set_block_based_table_factory(&block_options);
            }
            ColumnFamilyDescriptor::new(name, options)
        })
        .collect()
}

/// Every family of a database with `tables` tables: the fixed ones, then
/// the tables.
pub(crate) fn all_families(tables: usize) -> impl Iterator<Item = Family> {
    FIXED_FAMILIES
        .into_iter()
        .chain((0..tables).map(Family::Table))
}

/// The column families of a database with `tables` tables, tuned for how
/// each is read: table blocks by exact key (bloom filters, no compression:
/// blocks are compressed already), ids by exact key, fingerprint → ids by
/// 8-byte prefix (prefix bloom filters, so a fingerprint without ids is
/// usually answered without touching a file).
pub(crate) fn descriptors(tables: usize) -> Vec<ColumnFamilyDescriptor> {
    let cache = Cache::new_hyper_clock_cache(BLOCK_CACHE_BYTES, 0);
    all_families(tables)
        .map(|family| ColumnFamilyDescriptor::new(family.name(), options(family, Some(&cache))))
        .collect()
}

/// The options of column family `family`; the bulk loader writes its SST
/// files with the same ones, so ingested files carry the same filters.
pub(crate) fn options(family: Family, cache: Option<&Cache>) -> rocksdb::Options {
    let mut block_options = BlockBasedOptions::default();
    if let Some(cache) = cache {
        block_options.set_block_cache(cache);
    }
    block_options.set_bloom_filter(10.0, false);
    match family {
        Family::FpToIds => {
            // Read only by fingerprint prefix: a whole-key filter would
            // never be consulted.
            block_options.set_whole_key_filtering(false);
            block_options.set_block_size(FP_IDS_BLOCK_BYTES);
        }
        Family::IdToFp => block_options.set_block_size(ID_FP_BLOCK_BYTES),
        Family::Meta | Family::Delta | Family::Table(_) => {}
    }
    let mut options = rocksdb::Options::default();
    options.set_block_based_table_factory(&block_options);
    match family {
        Family::Table(_) => {
            options.set_compression_type(DBCompressionType::None);
            // A merge of a large delta rewrites nearly every block, and the
            // blocks it replaced stay in the family's older files until a
            // compaction passes over them: compacting at the first L0 file
            // (RocksDB's default is 4) drops them after each merge instead
            // of keeping up to several old copies of the table on disk.
            options.set_level_zero_file_num_compaction_trigger(1);
            options.set_memtable_whole_key_filtering(true);
            options.set_memtable_prefix_bloom_ratio(0.05);
        }
        Family::IdToFp => {
            options.set_compression_type(DBCompressionType::Zstd);
            // Level 1, the fastest to write: level 3 was under 1 % smaller
            // on 2M URL-like ids.
            options.set_compression_options(ZSTD_WINDOW_BITS, 1, 0, 0);
            // Every write looks up each of its ids, most of them new: a
            // memtable filter answers "absent" without a skip-list search.
            options.set_memtable_whole_key_filtering(true);
            options.set_memtable_prefix_bloom_ratio(0.05);
        }
        Family::FpToIds => {
            options.set_compression_type(DBCompressionType::Lz4);
            // Every query match seeks here, and a seek visits every L0
            // file (their key ranges overlap): compacting at 2 files
            // rather than RocksDB's 4 took ~0.7 µs off the median query
            // of an online-built 10M database, at no insert cost measured.
            options.set_level_zero_file_num_compaction_trigger(2);
            options.set_prefix_extractor(SliceTransform::create_fixed_prefix(8));
            options.set_memtable_prefix_bloom_ratio(0.1);
        }
        Family::Meta | Family::Delta => {
            options.set_compression_type(DBCompressionType::Lz4);
        }
    }
    options
}

/// The handle of column family `family`.
pub(crate) fn family_handle(db: &DB, family: Family) -> Result<&ColumnFamily> {
    let name = family.name();
    db.cf_handle(&name)
        .ok_or_else(|| Error::corrupt(format!("column family {name}"), "missing"))
}
