//! Reading a table block, one policy for every reader: a block kept in
//! memory is decoded from there (its checksum passed when it was read,
//! so it is not hashed again); any other is read from the store, its
//! checksum verified, and kept when the cache admits it
//! ([`BlockCache::admit`](crate::block_cache::BlockCache::admit)): then it
//! is decoded whole, for its sync points. The readers — a query, a merged
//! batch, a merge — differ only in how far they need a block ([`Need`]).

use fpdb_codec::{BlockDecoder, ChecksumPolicy, CodecError, HuffmanCode};

use crate::block_cache::KeptBlock;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::tables::State;

/// How far a reader needs a block: the stopping rule, the one thing in
/// which the readers of table blocks differ.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Need {
    /// The keys in `lo..=hi` (a query's or a batch's range): a kept
    /// block is decoded from its sync point nearest `lo`, one read from
    /// the store (and not kept) up to the first key past `hi`.
    Range { lo: u64, hi: u64 },
    /// Every key, the block never admitted to the cache: a merge, which
    /// replaces the blocks it reads (the cache is rebuilt after it).
    Whole,
}

impl Need {
    #[inline]
    fn range(self) -> (u64, u64) {
        match self {
            Need::Range { lo, hi } => (lo, hi),
            Need::Whole => (0, u64::MAX),
        }
    }
}

/// What [`fetch`] found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fetched {
    /// The block's encoded size.
    pub bytes: usize,
    /// Whether the block holds a key past the range: later blocks then
    /// hold none in it either. (A decode that stopped at `hi` says
    /// nothing about later blocks.)
    pub past_range: bool,
}

/// Passes the keys of block `block` of table `table` that `need` asks
/// for to `visit`, ascending: from memory when the block is kept, else
/// read from the store ([`read_block`]) and decoded into `keys` by
/// [`decode_read`].
#[inline]
pub(crate) fn fetch<F: FnMut(u64)>(
    store: &Store,
    state: &State,
    code: &HuffmanCode,
    (table, block): (usize, usize),
    need: Need,
    keys: &mut Vec<u64>,
    visit: &mut F,
) -> Result<Fetched> {
    let (lo, hi) = need.range();
    if let Some(kept) = state.blocks.get(table, block) {
        let past_range = kept_range(kept, code, (table, block), lo, hi, visit)?;
        return Ok(Fetched {
            bytes: kept.bytes.len(),
            past_range,
        });
    }
    let bytes = read_block(store, state, table, block)?;
    decode_read(state, code, (table, block), &bytes, need, keys)?;
    keys.iter()
        .filter(|&&key| key >= lo && key <= hi)
        .for_each(|&key| visit(key));
    Ok(Fetched {
        bytes: bytes.len(),
        past_range: keys.last().is_some_and(|&last| last > hi),
    })
}

/// Passes the keys of a kept block in `lo..=hi` to `visit`, decoding from
/// its sync point nearest `lo` without checking its checksum again;
/// returns whether it holds a key past `hi`.
#[inline]
pub(crate) fn kept_range<F: FnMut(u64)>(
    kept: &KeptBlock,
    code: &HuffmanCode,
    (table, block): (usize, usize),
    lo: u64,
    hi: u64,
    visit: &mut F,
) -> Result<bool> {
    BlockDecoder::new(code, ChecksumPolicy::Skip)
        .for_each_in_range(&kept.bytes, &kept.sync, lo, hi, visit)
        .map_err(|e| block_damage(table, block, &e))
}

/// Decodes `bytes`, block `block` of table `table` just read from the
/// store, into `keys` with its checksum verified: whole and kept when the
/// cache admits it, else as far as `need` asks.
#[inline]
pub(crate) fn decode_read(
    state: &State,
    code: &HuffmanCode,
    (table, block): (usize, usize),
    bytes: &[u8],
    need: Need,
    keys: &mut Vec<u64>,
) -> Result<()> {
    let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
    let decoded = match need {
        Need::Whole => decoder.decode(bytes, keys),
        Need::Range { hi, .. } => {
            if state.blocks.admit(table, block, bytes.len()) {
                decoder.decode(bytes, keys).inspect(|()| {
                    state.blocks.keep(table, block, bytes, keys, code);
                })
            } else {
                decoder.decode_until(bytes, hi, keys)
            }
        }
    };
    decoded.map_err(|e| block_damage(table, block, &e))
}

/// Whether a read of a table block should fill RocksDB's cache: not
/// while fpdb keeps the blocks it reads itself (1 KiB is a block's usual
/// size), where a second copy would cost memory and page faults.
pub(crate) fn fill_rocksdb_cache(state: &State) -> bool {
    !state.blocks.has_room_for(1 << 10)
}

/// The stored bytes of block `block` of table `index`, as its directory
/// names it; a block the directory lists that is not stored is damage.
pub(crate) fn read_block<'s>(
    store: &'s Store,
    state: &State,
    index: usize,
    block: usize,
) -> Result<impl std::ops::Deref<Target = [u8]> + 's> {
    let last_key = state
        .directory(index)?
        .last_keys()
        .get(block)
        .copied()
        .ok_or_else(|| {
            Error::corrupt(
                format!("table {index}, block {block}"),
                "past the end of its directory",
            )
        })?;
    store
        .block(index, last_key, fill_rocksdb_cache(state))?
        .ok_or_else(|| {
            Error::corrupt(
                format!("table {index}, block {block}"),
                "missing from the store",
            )
        })
}

/// A block that fails to decode.
pub(crate) fn block_damage(index: usize, block: usize, error: &CodecError) -> Error {
    Error::corrupt(format!("table {index}, block {block}"), error.to_string())
}
