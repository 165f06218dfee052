//! `fpdb export`: every stored document as `<id>\t<hex>` lines or
//! `{"id", "fp"}` JSON Lines, which `fpdb add` and `fpdb load` read back.

use std::io::{self, BufWriter, Write};

use anyhow::{Context, Result};

use crate::cli::ExportArgs;
use crate::progress::Bar;

/// Documents between updates of the bar.
const PROGRESS_STEP: u64 = 4096;

pub fn run(args: ExportArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let bar = Bar::new("export", true);
    // The ids counter is the total; a damaged database may hold more or
    // fewer.
    bar.count("ids", Some(db.stats().ids));
    let mut count = 0u64;
    for entry in db.export()? {
        let (id, fp) = entry.with_context(|| format!("reading {}", args.db.display()))?;
        super::write_document(&mut out, args.format, &id, fp)?;
        count += 1;
        if count.is_multiple_of(PROGRESS_STEP) {
            bar.bar().set_position(count);
        }
    }
    out.flush()?;
    bar.finish();
    eprintln!("exported {count} documents");
    Ok(())
}
