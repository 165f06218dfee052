//! Where the engine finds a table's keys: the one seam between the match
//! logic and the storage of blocks.

use std::ops::Range;

use crate::directory::BlockDirectory;
use crate::error::CodecError;

/// The tables of one design as the engine reads them: a directory per
/// table, and the keys of a range of blocks. [`crate::MemIndex`] is one
/// (blocks in one buffer); the database is another (blocks kept in memory
/// or read from storage, plus the keys added since the last merge).
///
/// The `touch_*` methods start loading what the next step reads, so that
/// the cache misses of the design's tables overlap; they return any value
/// (it only feeds `black_box`) and may do nothing.
pub trait BlockSource {
    /// What reading blocks can fail with.
    type Error: From<CodecError>;

    /// The directory of table `table` (`None` if the source has no such
    /// table, which the engine reports as corruption).
    fn directory(&self, table: usize) -> Option<&BlockDirectory>;

    /// `false` only when table `table` surely holds no key sharing the
    /// prefix of `permuted` (a prefix bitmap says so); the engine then
    /// skips the table.
    #[inline]
    fn may_hold_prefix(&self, _table: usize, _permuted: u64) -> bool {
        true
    }

    /// Starts loading what [`BlockSource::locate_in_group`] reads.
    #[inline]
    fn touch_group(&self, table: usize, group: usize) -> u64 {
        self.directory(table)
            .map_or(0, |directory| directory.touch_group(group))
    }

    /// The blocks of table `table` that can hold keys in `[lo, hi]`,
    /// searching from directory group `group`
    /// ([`BlockDirectory::locate_in_group`]).
    #[inline]
    fn locate_in_group(&self, table: usize, group: usize, lo: u64, hi: u64) -> Range<usize> {
        self.directory(table)
            .map_or(0..0, |directory| directory.locate_in_group(group, lo, hi))
    }

    /// Starts loading where decoding block `block` of table `table` from
    /// `lo` begins (its header, its sync points).
    #[inline]
    fn touch_block(&self, _table: usize, _block: usize, _lo: u64) -> u64 {
        0
    }

    /// Starts loading the bytes decoding block `block` for keys in
    /// `[lo, hi]` reads.
    #[inline]
    fn touch_bytes(&self, _table: usize, _block: usize, _lo: u64, _hi: u64) -> u64 {
        0
    }

    /// Passes to `visit` every key of table `table` in `[lo, hi]` held by
    /// `blocks` (possibly empty), and any the source holds outside blocks.
    /// Keys come in no particular order.
    fn for_each_in_range<F: FnMut(u64)>(
        &mut self,
        table: usize,
        blocks: Range<usize>,
        lo: u64,
        hi: u64,
        visit: &mut F,
    ) -> Result<(), Self::Error>;
}
