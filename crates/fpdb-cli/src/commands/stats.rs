//! `fpdb stats`: design, counts and sizes of a database.

use std::io::{self, Write};

use anyhow::Result;

use crate::cli::{ReportFormat, StatsArgs};

pub fn run(args: StatsArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let stats = db.stats();
    let mut out = io::stdout().lock();
    // Only a confirming database has signatures to count (a read of
    // the whole id map).
    let signatures = match &stats.confirmation {
        Some(_) => Some(db.signature_counts()?),
        None => None,
    };
    if args.format.get() == ReportFormat::Json {
        let mut json = serde_json::to_value(&stats)?;
        if let (Some(counts), Some(object)) = (signatures, json.as_object_mut()) {
            object.insert("signatures".into(), serde_json::to_value(counts)?);
        }
        writeln!(out, "{json}")?;
    } else {
        writeln!(out, "database       {}", args.db.display())?;
        writeln!(out, "design         {}", db.design_description())?;
        writeln!(out, "k              {}", stats.k)?;
        writeln!(out, "fingerprints   {}", stats.fingerprints)?;
        writeln!(out, "ids            {}", stats.ids)?;
        writeln!(out, "simhash        {}", stats.simhash)?;
        if let Some(features) = stats.learned_features {
            writeln!(out, "learned        {features} weighted features")?;
        }
        if let Some(confirmation) = &stats.confirmation {
            writeln!(
                out,
                "confirming     {} within {} bits at resemblance >= {}, {} common features left out, {} weak bits a quarter{}, at least {} shingles shared, {}",
                confirmation.layout(),
                confirmation.radius(),
                confirmation.threshold(),
                confirmation.common_features().hashes().len(),
                confirmation.weak_bits(),
                match confirmation.weak_flips() {
                    flips if flips < fpdb::simhash::EVERY_SUBSET => format!(" (at most {flips} flipped)"),
                    _ => String::new(),
                },
                confirmation.min_shared(),
                match confirmation.numbers_from_permille() {
                    0 => "numbers never count".to_string(),
                    permille => format!("numbers count from {}% digits", f64::from(permille) / 10.0),
                }
            )?;
        }
        if let Some(counts) = signatures {
            writeln!(
                out,
                "signatures     {} documents signed, {} bare fingerprints (matched by distance alone)",
                counts.signed, counts.bare
            )?;
        }
        writeln!(out, "html extract   {}", stats.extract)?;
        writeln!(
            out,
            "delta          {} added, {} removed (not yet merged; `fpdb compact` merges)",
            stats.delta_added, stats.delta_removed
        )?;
        let block_bytes: u64 = stats.tables.iter().map(|t| t.bytes).sum();
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
