//! `fpdb repair`: rebuild a damaged database from the copies that
//! survived, report what came from where and what was lost.

use std::io::{self, Write};
use std::time::Instant;

use anyhow::{Context, Result};
use fpdb::Db;
use serde_json::json;

use crate::cli::{RepairArgs, ReportFormat};
use crate::progress::Bar;

/// Problems found before repairing that are printed.
const DAMAGE_SHOWN: usize = 3;

/// Lost fingerprints listed before the rest are only counted. Exit 1
/// when something was lost or may have been.
const LISTED: usize = 20;

pub fn run(args: RepairArgs) -> Result<()> {
    let started = Instant::now();
    let bar = Bar::new("check", false);
    let report = Db::repair_with_progress(&args.db, &bar)
        .with_context(|| format!("cannot repair {}", args.db.display()))?;
    bar.finish();
    let mut out = io::stdout().lock();
    if args.format.get() == ReportFormat::Json {
        let value = super::json_with(
            &report,
            [
                ("path", json!(args.db.display().to_string())),
                ("seconds", json!(started.elapsed().as_secs_f64())),
            ],
        )?;
        writeln!(out, "{value}")?;
        out.flush()?;
        return if report.lost_fingerprints.is_empty() && !report.partial {
            Ok(())
        } else {
            Err(super::FindingsReported.into())
        };
    }
    if report.damage.is_empty() {
        writeln!(out, "ok: {}: nothing to repair", args.db.display())?;
        return Ok(());
    }
    // `fpdb verify` lists the damage; the first few say what kind it was.
    for problem in report.damage.iter().take(DAMAGE_SHOWN) {
        writeln!(out, "damaged: {problem}")?;
    }
    let more = report.damage.len().saturating_sub(DAMAGE_SHOWN) as u64 + report.unlisted_damage;
    if more > 0 {
        writeln!(
            out,
            "damaged: … and {} more (`fpdb verify` on the damaged copy lists them)",
            super::count(more, "problem")
        )?;
    }
    for range in &report.unreadable {
        writeln!(out, "unreadable: {range}")?;
    }
    for file in &report.left_out {
        writeln!(out, "left out: file {file}")?;
    }
    for file in &report.placed_by_content {
        writeln!(
            out,
            "placed: file {file} (it records no column family; told by what it holds)"
        )?;
    }
    if report.stale_entries > 0 {
        writeln!(
            out,
            "stale: {} of a half of the id map that lost a file, not restored (the lost file \
             held their removal or change)",
            super::count(report.stale_entries, "record")
        )?;
    }
    if report.partial {
        writeln!(
            out,
            "partial: both halves of the id map lost data, or a lost file's column family is \
             unknown: a removed document may be back, or an id's older fingerprint kept"
        )?;
    }
    writeln!(
        out,
        "restored: {} from fp_ids, {} from id_fp; every table rebuilt",
        super::count(report.restored_from_fp_ids, "id"),
        super::count(report.restored_from_id_fp, "id"),
    )?;
    for id in report.conflicting_ids.iter().take(LISTED) {
        writeln!(
            out,
            "conflict: id {id:?}: id_fp and fp_ids disagreed; kept id_fp's"
        )?;
    }
    for fp in report.lost_fingerprints.iter().take(LISTED) {
        writeln!(
            out,
            "lost: fingerprint {fp}: its ids were in no readable copy"
        )?;
    }
    if report.lost_fingerprints.len() > LISTED {
        writeln!(
            out,
            "lost: {} more fingerprints",
            report.lost_fingerprints.len() - LISTED
        )?;
    }
    let kept = report
        .damaged_copy
        .as_ref()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    writeln!(
        out,
        "repaired: {}: {} in {:.2} s; the damaged database is kept in {kept}",
        args.db.display(),
        super::count(report.documents, "document"),
        started.elapsed().as_secs_f64()
    )?;
    out.flush()?;
    if report.lost_fingerprints.is_empty() && !report.partial {
        Ok(())
    } else {
        Err(super::FindingsReported.into())
    }
}
