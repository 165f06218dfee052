//! `fpdb add`: store documents, `insert_batch` per 10,000 (streaming, per
//! whatever has arrived when the input pauses); with `--server`, one
//! `insert_many` request per batch.

use std::io::IsTerminal;
use std::time::Instant;

use anyhow::Result;

use crate::cli::AddArgs;
use crate::input::{fingerprints, Inputs, Record, Role};
use crate::target::Target;

pub fn run(mut args: AddArgs) -> Result<()> {
    let db = Target::writable(&args.target, &mut args.input.inputs, args.sync)?;
    let mut inputs = Inputs::new(&args.input, Role::Store).with_extract(db.extract());
    let started = Instant::now();
    let progress = std::io::stderr().is_terminal();
    let mut added = 0u64;
    let streaming = inputs.streams(args.apply);
    let apply = |records: Vec<Record>| -> Result<()> {
        let fps = fingerprints(db.simhasher(), &records);
        let batch: Vec<(&str, fpdb::Fingerprint)> =
            records.iter().map(|r| r.id.as_str()).zip(fps).collect();
        db.insert(&batch)?;
        added += batch.len() as u64;
        if progress {
            eprint!("\rfpdb: added {added} documents…");
        }
        Ok(())
    };
    if streaming {
        inputs.stream_eagerly(apply)?;
    } else {
        inputs.validated(apply)?;
    }
    if progress && added > 0 {
        eprint!("\r");
    }
    let elapsed = started.elapsed();
    let skipped = match inputs.skipped() {
        0 => String::new(),
        n => format!(", {} skipped", super::count(n, "bad line")),
    };
    let skipped = match inputs.warc_skipped() {
        0 => skipped,
        n => format!("{skipped}, {} skipped", super::count(n, "WARC record")),
    };
    eprintln!(
        "fpdb: added {} in {:.2} s ({:.0} docs/s){skipped}",
        super::count(added, "document"),
        elapsed.as_secs_f64(),
        super::rate(added, elapsed)
    );
    Ok(())
}
