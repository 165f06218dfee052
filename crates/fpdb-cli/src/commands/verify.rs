//! `fpdb verify`: the deep check, its report, and exit status 1 when
//! anything is damaged, also when the database does not open.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::cli::{ReportFormat, VerifyArgs};
use crate::progress::Bar;

pub fn run(args: VerifyArgs) -> Result<()> {
    check(&args.db, args.format.get())
}

/// Checks the database at `path` and prints the report in `format`;
/// `FindingsReported` (exit 1) when anything is damaged.
pub fn check(path: &Path, format: ReportFormat) -> Result<()> {
    // By path: a database that does not open is still checked, in a
    // recovered scratch copy, and its damage listed.
    let bar = Bar::new("verify", false);
    let report = fpdb::Db::verify_at_with_progress(path, &bar)
        .with_context(|| format!("cannot open {}", path.display()))?;
    bar.finish();
    let mut out = io::stdout().lock();
    match format {
        ReportFormat::Json => writeln!(out, "{}", to_json(path, &report)?)?,
        ReportFormat::Text => write_text(&mut out, path, &report)?,
    }
    out.flush()?;
    if report.is_clean() {
        Ok(())
    } else {
        Err(super::FindingsReported.into())
    }
}

/// The report as one JSON object: the library's (`clean`, the counts,
/// `problems`, one string each naming where, `unlisted_problems`) and the
/// database's `path`.
pub fn to_json(path: &Path, report: &fpdb::VerifyReport) -> Result<Value> {
    super::json_with(report, [("path", json!(path.display().to_string()))])
}

fn write_text(out: &mut impl Write, path: &Path, report: &fpdb::VerifyReport) -> Result<()> {
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
        path.display(),
        report.tables,
        super::count(report.blocks, "block"),
        super::count(report.fingerprints, "fingerprint"),
        super::count(report.ids, "id"),
    );
    if report.is_clean() {
        writeln!(out, "ok: {checked}")?;
    } else {
        let problems = report.problems.len() as u64 + report.unlisted_problems;
        writeln!(
            out,
            "DAMAGED: {checked}; {}",
            super::count(problems, "problem")
        )?;
    }
    Ok(())
}
