//! `fpdb stats`: design, counts and sizes of a database.

use std::io::{self, Write};

use anyhow::Result;
use serde_json::json;

use crate::cli::{ReportFormat, StatsArgs};

pub fn run(args: StatsArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let stats = db.stats();
    let block_bytes: u64 = stats.tables.iter().map(|t| t.bytes).sum();
    let mut out = io::stdout().lock();
    if args.format.get() == ReportFormat::Json {
        let tables: Vec<_> = stats
            .tables
            .iter()
            .map(|t| {
                json!({
                    "prefix_bits": t.prefix_bits,
                    "blocks": t.blocks,
                    "bytes": t.bytes,
                    "bits_per_fingerprint": t.bits_per_fingerprint,
                    "disk_bytes": t.disk_bytes,
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
            "extract": stats.extract.to_string(),
            "candidates_per_probe": stats.candidates_per_probe,
            "keys_per_block": stats.keys_per_block,
            "ids_disk_bytes": stats.ids_disk_bytes,
            "warnings": stats.warnings,
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(out, "database       {}", args.db.display())?;
        writeln!(out, "design         {}", db.design_description())?;
        writeln!(out, "k              {}", stats.k)?;
        writeln!(out, "fingerprints   {}", stats.fingerprints)?;
        writeln!(out, "ids            {}", stats.ids)?;
        writeln!(out, "simhash        {}", stats.simhash)?;
        writeln!(out, "html extract   {}", stats.extract)?;
        writeln!(
            out,
            "delta          {} added, {} removed (not yet merged; `fpdb compact` merges)",
            stats.delta_added, stats.delta_removed
        )?;
        writeln!(
            out,
            "blocks         {block_bytes} bytes in {} tables",
            stats.tables.len()
        )?;
        writeln!(
            out,
            "ids on disk    {} bytes of RocksDB SST files (id_fp and fp_ids)",
            stats.ids_disk_bytes
        )?;
        writeln!(
            out,
            "directory      {} bytes in memory",
            stats.directory_bytes
        )?;
        writeln!(
            out,
            "probe          {:.1} candidate keys per probe",
            stats.candidates_per_probe
        )?;
        writeln!(
            out,
            "\ntable  prefix_bits  blocks       bytes  bits/fp  RocksDB SST bytes"
        )?;
        for (index, t) in stats.tables.iter().enumerate() {
            writeln!(
                out,
                "{index:>5}  {:>11}  {:>6}  {:>10}  {:>7.2}  {:>17}",
                t.prefix_bits, t.blocks, t.bytes, t.bits_per_fingerprint, t.disk_bytes
            )?;
        }
    }
    out.flush()?;
    for warning in &stats.warnings {
        eprintln!("fpdb: warning: {warning}");
    }
    Ok(())
}
