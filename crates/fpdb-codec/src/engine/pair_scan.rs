//! Every near pair among one table's keys, read once in sorted order:
//! keys sharing the table's prefix are consecutive ("runs"), and only keys
//! of one run are compared.

use crate::design::TableDesign;
use crate::error::CodecError;
use crate::match_rule::TableMatcher;
use crate::prefix_runs::{pairs_among_keys, FingerprintPairs};
use crate::run_split::PAIRWISE_MAX;

/// The pairs within `k` that one table reports (the first table in which
/// the two share the prefix), from its keys pushed in ascending order.
#[derive(Debug)]
pub struct PairScan<'a> {
    matcher: TableMatcher<'a>,
    prefix_bits: u32,
    prefix_mask: u64,
    k: u32,
    run: Vec<u64>,
    found: &'a mut FingerprintPairs,
}

impl<'a> PairScan<'a> {
    /// A scan of table `table` of `design` at distance `k` (at most the
    /// design's), appending to `found`.
    pub fn new(
        design: &'a TableDesign,
        table: usize,
        k: u32,
        found: &'a mut FingerprintPairs,
    ) -> Result<Self, CodecError> {
        if k > design.k() {
            return Err(CodecError::DistanceTooLarge { k, max: design.k() });
        }
        let no_table = || CodecError::NoSuchTable {
            table,
            tables: design.tables().len(),
        };
        let matcher = TableMatcher::new(design, table, k).ok_or_else(no_table)?;
        let shape = design.tables().get(table).ok_or_else(no_table)?;
        Ok(PairScan {
            matcher,
            prefix_bits: shape.prefix_bits(),
            prefix_mask: shape.prefix_mask(),
            k,
            run: Vec::new(),
            found,
        })
    }

    /// The next key of the table, above every key pushed before.
    #[inline]
    pub fn push(&mut self, key: u64) {
        if self
            .run
            .first()
            .is_some_and(|&head| (head ^ key) & self.prefix_mask != 0)
        {
            self.flush();
        }
        self.run.push(key);
    }

    /// Compares the last run.
    pub fn finish(mut self) {
        self.flush();
    }

    fn flush(&mut self) {
        if self.run.len() > PAIRWISE_MAX {
            // Long runs (clusters of copies, or few prefix bits) are split
            // on their remaining bits rather than compared pair by pair.
            pairs_among_keys(
                &self.matcher,
                self.prefix_bits,
                &self.run,
                self.k,
                self.found,
            );
        } else {
            // A plain loop: through an iterator adaptor the comparison was
            // not inlined (measured on the pairs bench).
            let mut rest = self.run.as_slice();
            while let Some((&x, tail)) = rest.split_first() {
                for &y in tail {
                    if let Some(pair) = self.matcher.pair(x, y) {
                        self.found.push(pair);
                    }
                }
                rest = tail;
            }
        }
        self.run.clear();
    }
}
