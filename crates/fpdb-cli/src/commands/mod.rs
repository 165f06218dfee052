//! One module per subcommand, each with a `run` that calls the library.

/// `println!` that returns an error instead of panicking when standard
/// output is closed (`fpdb demo | head`), so the command ends quietly.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)?;
    }};
}

mod add;
mod backup;
mod check;
mod compact;
mod create;
mod dedup;
mod demo;
mod demo_pages;
mod demo_planted;
mod demo_two_stages;
mod export;
mod hash;
mod load;
mod pairs;
mod query;
mod remove;
mod repair;
mod report;
mod serve;
mod stats;
mod tune;
mod verify;

use std::time::Duration;

use anyhow::{Context, Result};
use fpdb::{Db, Document, SimhashOptions};

use crate::input::{Payload, Record};

use crate::cli::{Command, SimhashArgs};
pub use crate::target::{open_read_only, open_writable};

pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(args),
        Command::Load(args) => load::run(args),
        Command::Add(args) => add::run(args),
        Command::Query(args) => query::run(args),
        Command::Check(args) => check::run(args),
        Command::Remove(args) => remove::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Compact(args) => compact::run(args),
        Command::Backup(args) => backup::run(args),
        Command::Repair(args) => repair::run(args),
        Command::Export(args) => export::run(args),
        Command::Hash(args) => hash::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Pairs(args) => pairs::run(args),
        Command::Report(args) => report::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Tune(args) => tune::run(args),
    }
}

/// Returned by a command that printed findings (`verify` found damage):
/// the process exits with 1, without an error message.
#[derive(Debug)]
pub struct FindingsReported;

impl std::fmt::Display for FindingsReported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("findings reported")
    }
}

impl std::error::Error for FindingsReported {}

/// The two-stage rule the flags describe, if asked for.
fn confirmation(args: &crate::cli::ConfirmArgs) -> Result<Option<fpdb::Confirmation>> {
    if !args.confirm {
        return Ok(None);
    }
    let confirmation = fpdb::Confirmation::recommended()
        .with_threshold_and_radius(args.confirm_threshold, args.confirm_radius)
        .context("--confirm")?
        .with_weak_bits(args.confirm_weak_bits)
        .context("--confirm-weak-bits")?
        .with_weak_flips(args.confirm_weak_flips)
        .context("--confirm-weak-flips")?
        .with_min_shared(args.confirm_min_shared)
        .with_numbers_from(args.confirm_numbers_from * 10)
        .context("--confirm-numbers-from")?;
    Ok(Some(confirmation))
}

/// The simhash options the flags describe (the library's defaults for
/// flags not given). Learned weights are refused: they need a table, which
/// only `fpdb dedup` and `fpdb create` learn (see [`learning_options`]).
fn simhash_options(args: &SimhashArgs) -> Result<SimhashOptions> {
    let mut options = SimhashOptions::default();
    if let Some(tokenizer) = &args.tokenizer {
        options.tokenizer = tokenizer.parse().context("--tokenizer")?;
    }
    if let Some(weights) = &args.weights {
        if weights.starts_with("learned") {
            anyhow::bail!(
                "--weights {weights}: learned weights are learned from texts; only fpdb dedup and fpdb create --learn-from take --weights learned"
            );
        }
        options.weighting = weights.parse().context("--weights")?;
    }
    Ok(options)
}

/// The options of a command that may learn its weights: when it learns
/// them, the tokenizer alone (term counts until the weights are learned);
/// otherwise [`simhash_options`].
fn learning_options(args: &SimhashArgs, learns_weights: bool) -> Result<SimhashOptions> {
    if !learns_weights {
        return simhash_options(args);
    }
    let mut options = SimhashOptions {
        weighting: fpdb::simhash::Weighting::Tf,
        ..SimhashOptions::default()
    };
    if let Some(tokenizer) = &args.tokenizer {
        options.tokenizer = tokenizer.parse().context("--tokenizer")?;
    }
    Ok(options)
}

/// The distance to find near pairs at: the asked one, else the
/// database's, which is also the most its tables pair in one pass.
fn pairs_k(db: &Db, asked: Option<u32>) -> Result<u32> {
    let k = asked.unwrap_or_else(|| db.k());
    db.check_k(k).context("--k")?;
    Ok(k)
}

/// A library report as JSON, with fields only the command knows (the
/// path it was given, how long it took) added beside the report's own.
fn json_with<const N: usize>(
    report: &impl serde::Serialize,
    fields: [(&str, serde_json::Value); N],
) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(report)?;
    if let Some(object) = value.as_object_mut() {
        for (name, field) in fields {
            object.insert(name.to_string(), field);
        }
    }
    Ok(value)
}

/// `n` things per second over `elapsed`.
fn rate(n: u64, elapsed: Duration) -> f64 {
    n as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// `n` and `noun`, plural when `n` is not 1 ("1 document", "2 documents").
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Tells standard error how many bad lines `--skip-bad` skipped, if any.
fn report_skipped(inputs: &crate::input::Inputs) {
    if inputs.skipped() > 0 {
        eprintln!("fpdb: {} skipped", count(inputs.skipped(), "bad line"));
    }
    if inputs.warc_skipped() > 0 {
        eprintln!(
            "fpdb: {} skipped (not HTML responses)",
            count(inputs.warc_skipped(), "WARC record")
        );
    }
}

/// The first 48 characters of a text on one line, for side-by-side views.
fn snippet(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    let mut out: String = flat.chars().take(48).collect();
    if flat.chars().count() > 48 {
        out.push('…');
    }
    out
}

/// One document as `format` prints it: `<id>\t<hex>`, or a JSON line
/// `{"id", "fp"}` that `--input jsonl` reads back.
fn write_document(
    out: &mut impl std::io::Write,
    format: crate::cli::DocumentFormat,
    id: &str,
    fp: fpdb::Fingerprint,
) -> std::io::Result<()> {
    match format {
        crate::cli::DocumentFormat::Tsv => writeln!(out, "{id}\t{fp}"),
        crate::cli::DocumentFormat::Json => writeln!(
            out,
            "{}",
            serde_json::json!({"id": id, "fp": fp.to_string()})
        ),
    }
}

/// What `record` is under the database's match rule: a text's fingerprint
/// and signature, or a bare fingerprint. `None`, reported on standard
/// error, for a text without features: it has nothing to compare and is
/// neither matched nor stored.
fn document(db: &Db, record: &Record) -> Result<Option<Document>> {
    skipping_featureless(record, signed(db, record))
}

/// What `record` is under the database's match rule, without reporting
/// anything: [`document`]'s work, which may run on any thread.
fn signed(db: &Db, record: &Record) -> fpdb::Result<Document> {
    match &record.payload {
        Payload::Fingerprint(fp) => Ok(Document::from(*fp)),
        Payload::Text(text) => db.document_text(text),
    }
}

/// [`document`]'s answer from what [`signed`] gave `record`: a text
/// without features reported on standard error and skipped.
fn skipping_featureless(
    record: &Record,
    signed: fpdb::Result<Document>,
) -> Result<Option<Document>> {
    match signed {
        Ok(document) => Ok(Some(document)),
        Err(fpdb::Error::NoFeatures) => {
            eprintln!("fpdb: {}: {}; skipped", record.id, fpdb::Error::NoFeatures);
            Ok(None)
        }
        Err(error) => Err(error.into()),
    }
}
