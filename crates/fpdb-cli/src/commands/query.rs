//! `fpdb query`: near-duplicates of fingerprints or texts, `query_batch`
//! per `--batch` queries (1,000,000 by default).

use anyhow::Result;

use crate::cli::QueryArgs;
use crate::input::{self, fingerprints, Role};
use crate::output::Answers;
use crate::progress::Reading;
use crate::target::Target;

pub fn run(mut args: QueryArgs) -> Result<()> {
    let db = Target::read_only(&args.target, &mut args.input.inputs)?;
    let k = db.query_k(args.k)?;
    let mut inputs = input::inputs(&args.input, Role::Query)
        .with_chunk(args.batch as usize)
        .with_extract(db.extract());
    // A confirming database's texts are matched in two stages; a server
    // that confirms or has learned weights is sent the texts.
    let local = db.local().filter(|local| local.confirmation().is_some());
    let rule = local.map(|local| local.match_rule(k));
    let remote = db.remote_texts();
    let mut answers = Answers::new(args.format).with_similarity(db.confirming());
    let mut reading = Reading::new("querying", &inputs, true);
    inputs.stream(|records| -> Result<()> {
        reading.handled(records.len());
        if let (Some(local), Some(rule)) = (local, &rule) {
            // Two stages: each text with its signature (signed on every
            // core, skipped texts reported in order), under the rule, the
            // batch's probes merged against the tables.
            let signed = fpdb_parallel::map(&records, |record| super::signed(local, record));
            let mut ids = Vec::with_capacity(records.len());
            let mut documents = Vec::with_capacity(records.len());
            for (record, signed) in records.iter().zip(signed) {
                if let Some(document) = super::skipping_featureless(record, signed)? {
                    ids.push(&record.id);
                    documents.push(document);
                }
            }
            let found = local.find_batch(&documents, rule)?;
            for ((id, document), near) in ids.into_iter().zip(&documents).zip(&found) {
                answers.write_near(id, document.fingerprint, near)?;
            }
            return answers.flush();
        }
        if let Some(remote) = remote {
            for (record, answer) in records.iter().zip(remote.query_records(&records, k)?) {
                if let Some(answer) = answer {
                    answers.write_query_answer(&record.id, &answer)?;
                }
            }
            return answers.flush();
        }
        let fps = fingerprints(db.simhasher(), &records);
        let results = db.query(&fps, k)?;
        for ((record, fp), matches) in records.iter().zip(&fps).zip(&results) {
            answers.write(&record.id, *fp, matches)?;
        }
        // A batch's answers go out when it is done (with `--batch 1`, each
        // line of a stream is answered before the next is read).
        answers.flush()
    })?;
    answers.flush()?;
    reading.finish();
    super::report_skipped(&inputs);
    Ok(())
}
