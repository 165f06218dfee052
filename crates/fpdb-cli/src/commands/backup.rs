//! `fpdb backup`: a consistent copy of a database, through a writable
//! handle when no one else writes, else through a reader that replays the
//! live writer's log; then the copy is verified.

use std::io::{self, Write};
use std::time::Instant;

use anyhow::{Context, Result};
use fpdb::{BackupMethod, Db, OpenOptions};
use serde_json::{json, Value};

use crate::cli::{BackupArgs, ReportFormat};
use crate::progress::Bar;

pub fn run(args: BackupArgs) -> Result<()> {
    let started = Instant::now();
    let db = match Db::open(&args.db) {
        Err(fpdb::Error::Locked { .. }) => OpenOptions::new()
            .read_only(true)
            .replay_log(true)
            .open(&args.db),
        opened => opened,
    }
    .with_context(|| format!("cannot open {}", args.db.display()))?;
    let bar = Bar::new("copying", false);
    let backup = db.backup_with_progress(&args.dest, &bar).with_context(|| {
        format!(
            "cannot back up {} to {}",
            args.db.display(),
            args.dest.display()
        )
    })?;
    bar.finish();
    drop(db);
    let seconds = started.elapsed().as_secs_f64();
    let format = args.format.get();
    if format == ReportFormat::Json {
        // One object: the copy, and its verify report unless --no-verify.
        let verified = if args.no_verify {
            None
        } else {
            let bar = Bar::new("verify", false);
            let report = Db::verify_at_with_progress(&backup.path, &bar)
                .with_context(|| format!("cannot open {}", backup.path.display()))?;
            bar.finish();
            Some(report)
        };
        let verify = match &verified {
            Some(report) => super::verify::to_json(&backup.path, report)?,
            None => Value::Null,
        };
        let value = super::json_with(
            &backup,
            [
                ("source", json!(args.db.display().to_string())),
                ("seconds", json!(seconds)),
                ("verify", verify),
            ],
        )?;
        let mut out = io::stdout().lock();
        writeln!(out, "{value}")?;
        out.flush()?;
        return match verified {
            Some(report) if !report.is_clean() => Err(super::FindingsReported.into()),
            _ => Ok(()),
        };
    }
    let how = match backup.method {
        BackupMethod::Checkpoint => "a checkpoint, files hard-linked where possible",
        _ => "copied beside a live writer",
    };
    eprintln!(
        "fpdb: backed up {} to {} ({how}; {:.1} MB) in {seconds:.2} s",
        args.db.display(),
        backup.path.display(),
        backup.bytes as f64 / 1e6,
    );
    if args.no_verify {
        return Ok(());
    }
    super::verify::check(&args.dest, format)
}
