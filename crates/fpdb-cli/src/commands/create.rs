//! `fpdb create`: a new, empty database.

use std::io::Write;

use anyhow::{Context, Result};
use fpdb::{Db, DesignChoice, Options};

use crate::cli::CreateArgs;

pub fn run(args: CreateArgs) -> Result<()> {
    let design: DesignChoice = args.design.parse().context("--design")?;
    let options = Options::default()
        .k(args.k)
        .expected_size(args.expected)
        .design(design)
        .block_bytes(args.block_bytes)
        .simhash(super::simhash_options(&args.simhash)?)
        .extract(args.simhash.extract)
        .confirmation(super::confirmation(&args.confirm)?);
    let db = Db::create(&args.db, options)
        .with_context(|| format!("cannot create a database in {}", args.db.display()))?;
    writeln!(
        std::io::stdout(),
        "created {}: design {}, {} extract={}",
        args.db.display(),
        db.design_description(),
        db.simhasher().options(),
        db.extract()
    )?;
    if let Some(confirmation) = db.confirmation() {
        writeln!(
            std::io::stdout(),
            "confirming: {} within {} bits at resemblance >= {}",
            confirmation.layout(),
            confirmation.radius(),
            confirmation.threshold()
        )?;
    }
    Ok(())
}
