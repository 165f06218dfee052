//! `fpdb backup`: a consistent copy of a database, through a writable
//! handle when no one else writes, else through a reader that replays the
//! live writer's log; then the copy is verified.

use std::time::Instant;

use anyhow::{Context, Result};
use fpdb::{BackupMethod, Db, OpenOptions};

use crate::cli::{BackupArgs, VerifyArgs};

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
    let how = match backup.method {
        BackupMethod::Checkpoint => "a checkpoint, files hard-linked where possible",
        _ => "copied beside a live writer",
    };
    eprintln!(
        "fpdb: backed up {} to {} ({how}; {:.1} MB) in {:.2} s",
        args.db.display(),
        backup.path.display(),
        backup.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    if args.no_verify {
        return Ok(());
    }
    super::verify::run(VerifyArgs { db: args.dest })
}
