//! `fpdb backup`: a consistent copy of a database, through a writable
//! handle when no one else writes, else through a reader that replays the
//! live writer's log; then the copy is verified.

use std::io::{self, Write};
use std::time::Instant;

use anyhow::{Context, Result};
use fpdb::{BackupMethod, Db, OpenOptions};
use serde_json::json;

use crate::cli::{BackupArgs, ReportFormat};

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
    let backup = db.backup(&args.dest).with_context(|| {
        format!(
            "cannot back up {} to {}",
            args.db.display(),
            args.dest.display()
        )
    })?;
    drop(db);
    let seconds = started.elapsed().as_secs_f64();
    let format = args.format.get();
    if format == ReportFormat::Json {
        // One object: the copy, and its verify report unless --no-verify.
        let verified = if args.no_verify {
            None
        } else {
            Some(
                Db::verify_at(&backup.path)
                    .with_context(|| format!("cannot open {}", backup.path.display()))?,
            )
        };
        let method = match backup.method {
            BackupMethod::Checkpoint => "checkpoint",
            _ => "copy",
        };
        let value = json!({
            "source": args.db.display().to_string(),
            "path": backup.path.display().to_string(),
            "method": method,
            "bytes": backup.bytes,
            "seconds": seconds,
            "verify": verified
                .as_ref()
                .map(|report| super::verify::to_json(&backup.path, report)),
        });
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
