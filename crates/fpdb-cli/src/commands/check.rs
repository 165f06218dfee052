//! `fpdb check`: for each document, its stored near-duplicates (never the
//! document's own id) and the fingerprint its id had before, then it is
//! stored (`check_and_insert`), so later documents of the same input see
//! earlier ones. Streaming (`--apply stream`, the default on a pipe), each
//! answer is printed and flushed before more input is awaited.

use anyhow::Result;

use crate::cli::CheckArgs;
use crate::input::{self, fingerprints, Record, Role};
use crate::output::Answers;
use crate::progress::Reading;

pub fn run(args: CheckArgs) -> Result<()> {
    let db = super::open_writable(&args.db, args.sync)?;
    let k = super::query_k(&db, args.k)?;
    let mut inputs = input::inputs(&args.input, Role::Store).with_extract(db.extract());
    let mut answers = Answers::new(args.format);
    let streaming = input::streams(&inputs, args.apply);
    let mut reading = Reading::new("checking", &inputs, true);
    let mut apply = |records: Vec<Record>| -> Result<()> {
        reading.handled(records.len());
        let fps = fingerprints(db.simhasher(), &records);
        for (record, fp) in records.iter().zip(fps) {
            let checked = db.check_and_insert(&record.id, fp, k)?;
            answers.write_checked(&record.id, fp, &checked)?;
        }
        if streaming {
            answers.flush()?;
        }
        Ok(())
    };
    if streaming {
        inputs.stream_eagerly(&mut apply)?;
    } else {
        inputs.validated(&mut apply)?;
    }
    answers.flush()?;
    reading.finish();
    super::report_skipped(&inputs);
    Ok(())
}
