//! `fpdb export`: every stored document as `<id>\t<hex>` lines or
//! `{"id", "fp"}` JSON Lines, which `fpdb add` and `fpdb load` read back.

use std::io::{self, BufWriter, Write};

use anyhow::{Context, Result};

use crate::cli::ExportArgs;

pub fn run(args: ExportArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut count = 0u64;
    for entry in db.export()? {
        let (id, fp) = entry.with_context(|| format!("reading {}", args.db.display()))?;
        super::write_document(&mut out, args.format, &id, fp)?;
        count += 1;
    }
    out.flush()?;
    eprintln!("exported {count} documents");
    Ok(())
}
