//! `fpdb query`: near-duplicates of fingerprints or texts, `query_batch`
//! per 10,000.

use anyhow::Result;

use crate::cli::QueryArgs;
use crate::input::{fingerprints, Inputs, Role};
use crate::output::Answers;

pub fn run(args: QueryArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let k = super::query_k(&db, args.k)?;
    let mut inputs = Inputs::new(&args.input, Role::Query);
    let mut answers = Answers::new(args.format);
    inputs.stream(|records| {
        let fps = fingerprints(db.simhasher(), &records);
        let results = db.query_batch(&fps, k)?;
        for ((record, fp), matches) in records.iter().zip(&fps).zip(&results) {
            answers.write(&record.id, *fp, matches)?;
        }
        Ok(())
    })?;
    answers.flush()?;
    super::report_skipped(&inputs);
    Ok(())
}
