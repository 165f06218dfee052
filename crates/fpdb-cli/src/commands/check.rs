//! `fpdb check`: for each document, its stored near-duplicates (never the
//! document's own id) and the fingerprint its id had before, then it is
//! stored (`check_and_insert`), so later documents of the same input see
//! earlier ones. Streaming (`--apply stream`, the default on a pipe), each
//! answer is printed and flushed before more input is awaited. With
//! `--server`, each batch read is one request.

use anyhow::Result;

use crate::cli::CheckArgs;
use crate::input::{self, fingerprints, Record, Role};
use crate::output::Answers;
use crate::progress::Reading;
use crate::target::Target;

pub fn run(mut args: CheckArgs) -> Result<()> {
    let db = Target::writable(&args.target, &mut args.input.inputs, args.sync)?;
    let k = db.query_k(args.k)?;
    let mut inputs = input::inputs(&args.input, Role::Store).with_extract(db.extract());
    // A confirming database's texts are matched in two stages; a server
    // that confirms or has learned weights is sent the texts.
    let local = db.local().filter(|local| local.confirmation().is_some());
    let rule = local.map(|local| local.match_rule(k));
    let remote = db.remote_texts();
    let mut answers = Answers::new(args.format).with_similarity(db.confirming());
    let streaming = input::streams(&inputs, args.apply);
    let mut reading = Reading::new("checking", &inputs, true);
    let mut apply = |records: Vec<Record>| -> Result<()> {
        reading.handled(records.len());
        if let (Some(local), Some(rule)) = (local, &rule) {
            // Two stages: each text with its signature, under the rule.
            for record in &records {
                if let Some(document) = super::document(local, record)? {
                    let checked = local.check_and_insert_document(&record.id, &document, rule)?;
                    answers.write_checked_document(&record.id, document.fingerprint, &checked)?;
                }
            }
        } else if let Some(remote) = remote {
            remote.check_and_insert_records(&records, k, |id, checked| {
                answers.write_checked_answer(id, &checked)
            })?;
        } else {
            let fps = fingerprints(db.simhasher(), &records);
            let documents: Vec<(&str, fpdb::Fingerprint)> =
                records.iter().map(|r| r.id.as_str()).zip(fps).collect();
            db.check_and_insert(&documents, k, |id, fp, previous, matches| {
                answers.write_checked(id, fp, previous, &matches)
            })?;
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
