//! `fpdb verify`: the deep check, its report, and exit status 1 when
//! anything is damaged, also when the database does not open.

use std::io::{self, Write};

use anyhow::{Context, Result};

use crate::cli::VerifyArgs;

pub fn run(args: VerifyArgs) -> Result<()> {
    // By path: a database that does not open is still checked, in a
    // recovered scratch copy, and its damage listed.
    let report = fpdb::Db::verify_at(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    let mut out = io::stdout().lock();
    for problem in &report.problems {
        writeln!(out, "damaged: {problem}")?;
    }
    if report.unlisted_problems > 0 {
        writeln!(
            out,
            "damaged: {} more problems not listed",
            report.unlisted_problems
        )?;
    }
    let checked = format!(
        "{}: {} tables, {}, {}, {}",
        args.db.display(),
        report.tables,
        super::count(report.blocks, "block"),
        super::count(report.fingerprints, "fingerprint"),
        super::count(report.ids, "id"),
    );
    if report.is_clean() {
        writeln!(out, "ok: {checked}")?;
        Ok(())
    } else {
        let problems = report.problems.len() as u64 + report.unlisted_problems;
        writeln!(
            out,
            "DAMAGED: {checked}; {}",
            super::count(problems, "problem")
        )?;
        out.flush()?;
        Err(super::FindingsReported.into())
    }
}
