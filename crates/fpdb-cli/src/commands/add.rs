//! `fpdb add`: store documents, `insert_batch` per 10,000 (streaming, per
//! whatever has arrived when the input pauses); with `--server`, one
//! `insert_many` request per batch.

use std::time::Instant;

use anyhow::Result;

use crate::cli::AddArgs;
use crate::input::{self, fingerprints, Record, Role};
use crate::progress::Reading;
use crate::target::Target;

pub fn run(mut args: AddArgs) -> Result<()> {
    let db = Target::writable(&args.target, &mut args.input.inputs, args.sync)?;
    let mut inputs = input::inputs(&args.input, Role::Store).with_extract(db.extract());
    // A confirming database keeps each text's signature; a server that
    // confirms or has learned weights is sent the texts.
    let local = db.local().filter(|local| local.confirmation().is_some());
    let remote = db.remote_texts();
    let started = Instant::now();
    let mut reading = Reading::new("adding", &inputs, false);
    let mut added = 0u64;
    let streaming = input::streams(&inputs, args.apply);
    let apply = |records: Vec<Record>| -> Result<()> {
        if let Some(local) = local {
            for record in &records {
                if let Some(document) = super::document(local, record)? {
                    local.insert_document(&record.id, &document)?;
                    added += 1;
                }
            }
            reading.handled(records.len());
            return Ok(());
        }
        if let Some(remote) = remote {
            added += remote.insert_records(&records)? as u64;
            reading.handled(records.len());
            return Ok(());
        }
        let fps = fingerprints(db.simhasher(), &records);
        let batch: Vec<(&str, fpdb::Fingerprint)> =
            records.iter().map(|r| r.id.as_str()).zip(fps).collect();
        db.insert(&batch)?;
        added += batch.len() as u64;
        reading.handled(batch.len());
        Ok(())
    };
    if streaming {
        inputs.stream_eagerly(apply)?;
    } else {
        inputs.validated(apply)?;
    }
    reading.finish();
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
