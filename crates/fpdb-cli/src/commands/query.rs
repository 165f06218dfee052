//! `fpdb query`: near-duplicates of fingerprints or texts, `query_batch`
//! per `--batch` queries (1,000,000 by default).

use anyhow::Result;

use crate::cli::QueryArgs;
use crate::input::{self, fingerprints, Role};
use crate::output::Answers;
use crate::progress::Reading;

pub fn run(args: QueryArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let k = super::query_k(&db, args.k)?;
    let mut inputs = input::inputs(&args.input, Role::Query)
        .with_chunk(args.batch as usize)
        .with_extract(db.extract());
    let mut answers = Answers::new(args.format);
    let mut reading = Reading::new("querying", &inputs, true);
    inputs.stream(|records| -> Result<()> {
        reading.handled(records.len());
        let fps = fingerprints(db.simhasher(), &records);
        let results = db.query_batch(&fps, k)?;
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
