//! `fpdb hash`: fingerprints of texts, without a database.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use crate::cli::HashArgs;
use crate::input::for_each_document;

pub fn run(args: HashArgs) -> Result<()> {
    let simhasher = super::simhasher(&args.simhash)?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for_each_document(args.input, &args.inputs, |document| {
        let fingerprint = simhasher.fingerprint(&document.text);
        writeln!(out, "{}\t{fingerprint}", document.id)?;
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}
