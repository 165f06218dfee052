//! `fpdb hash`: fingerprints of texts, without a database.

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use fpdb::Simhasher;

use crate::cli::HashArgs;
use crate::input::{self, fingerprints, Role};
use crate::progress::Reading;

pub fn run(args: HashArgs) -> Result<()> {
    let simhasher = Simhasher::new(super::simhash_options(&args.simhash)?);
    let mut inputs = input::from_parts(args.input, &args.inputs, args.skip_bad, Role::Hash)
        .with_extract(args.simhash.extract);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut reading = Reading::new("hashing", &inputs, true);
    inputs.stream(|records| -> Result<()> {
        reading.handled(records.len());
        for (record, fp) in records.iter().zip(fingerprints(&simhasher, &records)) {
            super::write_document(&mut out, args.format, &record.id, fp)?;
        }
        Ok(())
    })?;
    out.flush()?;
    reading.finish();
    super::report_skipped(&inputs);
    Ok(())
}
