//! `fpdb compact`: merge the delta into the blocks, compact RocksDB.

use std::time::Instant;

use anyhow::Result;

use crate::cli::CompactArgs;
use crate::progress::Bar;

pub fn run(args: CompactArgs) -> Result<()> {
    let db = super::open_writable(&args.db, false)?;
    let before = db.stats();
    let started = Instant::now();
    // Merging and RocksDB's compaction are one call each: a spinner with
    // the time so far.
    let bar = Bar::new("merging", false);
    db.merge()?;
    bar.count("compacting", None);
    db.compact()?;
    bar.finish();
    let after = db.stats();
    let bytes: u64 = after.tables.iter().map(|t| t.bytes).sum();
    eprintln!(
        "fpdb: merged {} added and {} removed fingerprints and compacted in {:.2} s; {} fingerprints, {} ids, {bytes} bytes of blocks",
        before.delta_added,
        before.delta_removed,
        started.elapsed().as_secs_f64(),
        after.fingerprints,
        after.ids
    );
    Ok(())
}
