//! `fpdb stats`: design, counts and sizes of a database.

use anyhow::Result;
use serde_json::json;

use crate::cli::StatsArgs;

/// Keys one block holds at the default block size; a probe that has to
/// look at several times this many has outgrown the design.
const KEYS_PER_BLOCK: f64 = 170.0;
const OUTGROWN: f64 = 4.0 * KEYS_PER_BLOCK;

pub fn run(args: StatsArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let stats = db.stats();
    let block_bytes: u64 = stats.tables.iter().map(|t| t.bytes).sum();
    if args.json {
        let tables: Vec<_> = stats
            .tables
            .iter()
            .map(|t| {
                json!({
                    "prefix_bits": t.prefix_bits,
                    "blocks": t.blocks,
                    "bytes": t.bytes,
                    "bits_per_fingerprint": t.bits_per_fingerprint,
                })
            })
            .collect();
        let value = json!({
            "path": args.db.display().to_string(),
            "design": stats.design,
            "k": stats.k,
            "fingerprints": stats.fingerprints,
            "ids": stats.ids,
            "tables": tables,
            "block_bytes": block_bytes,
            "directory_bytes": stats.directory_bytes,
            "delta_added": stats.delta_added,
            "delta_removed": stats.delta_removed,
            "tokenizer": stats.simhash.tokenizer.to_string(),
            "weights": stats.simhash.weighting.to_string(),
            "candidates_per_probe": stats.candidates_per_probe,
        });
        println!("{value}");
    } else {
        println!("database       {}", args.db.display());
        println!("design         {}", db.design());
        println!("k              {}", stats.k);
        println!("fingerprints   {}", stats.fingerprints);
        println!("ids            {}", stats.ids);
        println!("simhash        {}", stats.simhash);
        println!(
            "delta          {} added, {} removed (not yet merged; `fpdb compact` merges)",
            stats.delta_added, stats.delta_removed
        );
        println!(
            "blocks         {block_bytes} bytes in {} tables",
            stats.tables.len()
        );
        println!("directory      {} bytes in memory", stats.directory_bytes);
        println!(
            "probe          {:.1} candidate keys per probe",
            stats.candidates_per_probe
        );
        println!("\ntable  prefix_bits  blocks       bytes  bits/fp");
        for (index, t) in stats.tables.iter().enumerate() {
            println!(
                "{index:>5}  {:>11}  {:>6}  {:>10}  {:>7.2}",
                t.prefix_bits, t.blocks, t.bytes, t.bits_per_fingerprint
            );
        }
    }
    if stats.candidates_per_probe > OUTGROWN {
        eprintln!(
            "fpdb: warning: the database has outgrown its design: a query probe looks at about {:.0} keys (a block holds about {KEYS_PER_BLOCK:.0}), so queries get slow. \
             Recreate it with a larger --expected (or a named --design with more tables) and reload it.",
            stats.candidates_per_probe
        );
    }
    Ok(())
}
