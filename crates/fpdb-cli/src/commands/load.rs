//! `fpdb load`: bulk load documents into an empty database.
//!
//! Documents go to a [`fpdb::BulkLoader`] as they are read: fingerprints
//! one by one, texts in batches hashed in parallel. Nothing is visible
//! before `finish`, so a bad line just returns an error: the loader is
//! dropped unfinished and the database stays empty.

use std::io::Write;

use anyhow::{anyhow, Context, Result};
use fpdb::{BulkOptions, BulkPhase, BulkProgress};
use serde_json::json;

use crate::cli::{LoadArgs, ReportFormat};
use crate::input::{self, Payload, Record, Role};
use crate::progress::{Bar, Reading};

pub fn run(args: LoadArgs) -> Result<()> {
    let mut db = super::open_writable(&args.db, false)?;
    let mut options = BulkOptions::default();
    if let Some(mib) = args.memory_mib {
        options = options.memory_bytes(mib.saturating_mul(1 << 20));
    }
    if let Some(dir) = &args.temp_dir {
        options = options.temp_dir(dir);
    }
    let mut inputs = input::inputs(&args.input, Role::Store).with_extract(db.extract());
    let mut reading = Reading::new("reading", &inputs, false);
    let mut loader = db
        .bulk_loader(options)
        .with_context(|| format!("cannot load into {}", args.db.display()))?;
    let phase_bar = reading.bar().clone();
    loader.set_progress(move |progress: &BulkProgress| show_phase(&phase_bar, progress));

    let read = inputs.stream(|records| -> Result<()> {
        add_records(&mut loader, &records)?;
        reading.handled(records.len());
        Ok(())
    });
    if let Err(error) = read {
        reading.finish();
        // `loader` is dropped unfinished: nothing of the load is stored.
        return Err(anyhow!("{error:#}; nothing was loaded"));
    }
    let summary = loader
        .finish()
        .with_context(|| format!("loading {} failed; nothing was loaded", args.db.display()))?;
    reading.finish();
    if args.format.get() == ReportFormat::Json {
        let value = super::json_with(
            &summary,
            [
                ("path", json!(args.db.display().to_string())),
                ("skipped_bad_lines", json!(inputs.skipped())),
                ("skipped_warc_records", json!(inputs.warc_skipped())),
            ],
        )?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{value}")?;
        return Ok(out.flush()?);
    }
    let skipped = match inputs.skipped() {
        0 => String::new(),
        n => format!(", {} skipped", super::count(n, "bad line")),
    };
    let skipped = match inputs.warc_skipped() {
        0 => skipped,
        n => format!("{skipped}, {} skipped", super::count(n, "WARC record")),
    };
    let skipped = match summary.featureless {
        0 => skipped,
        n => format!(
            "{skipped}, {} without features left out",
            super::count(n, "text")
        ),
    };
    eprintln!(
        "fpdb: loaded {} ({}, {}) in {:.2} s ({:.0} docs/s; reading {:.2} s, \
         sorting and writing {:.2} s, ingesting {:.2} s){skipped}",
        super::count(summary.documents, "document"),
        super::count(summary.ids, "id"),
        super::count(summary.fingerprints, "distinct fingerprint"),
        summary.elapsed.as_secs_f64(),
        super::rate(summary.documents, summary.elapsed),
        summary.reading.as_secs_f64(),
        summary.writing.as_secs_f64(),
        summary.ingesting.as_secs_f64(),
    );
    Ok(())
}

/// Hands `records` to the loader in input order (so that of a repeated id
/// the last wins): runs of texts are hashed together, in parallel.
fn add_records(loader: &mut fpdb::BulkLoader<'_>, records: &[Record]) -> Result<()> {
    let mut texts: Vec<(&str, &str)> = Vec::new();
    for record in records {
        match &record.payload {
            Payload::Text(text) => texts.push((&record.id, text)),
            Payload::Fingerprint(fp) => {
                if !texts.is_empty() {
                    loader.add_texts(&texts)?;
                    texts.clear();
                }
                loader.add(&record.id, *fp)?;
            }
        }
    }
    if !texts.is_empty() {
        loader.add_texts(&texts)?;
    }
    Ok(())
}

/// After reading, each phase of `finish` on the bar: sorting and
/// ingesting as a spinner with their time so far (how long they take
/// is not known beforehand), writing the tables as a bar of tables
/// written with its own estimate of the time left, so that the estimate
/// shown is never the reading's, long over.
fn show_phase(bar: &Bar, progress: &BulkProgress) {
    let (phase, total) = match progress.phase {
        BulkPhase::Reading => return,
        BulkPhase::Sorting => ("sorting", None),
        BulkPhase::Writing => ("writing", Some(progress.total)),
        BulkPhase::Ingesting => ("ingesting", None),
    };
    if progress.done == 0 {
        bar.count(phase, total.filter(|&total| total > 0));
    }
    let bar = bar.bar();
    if progress.total > 0 {
        bar.set_position(progress.done);
        bar.set_message(format!("tables, {} documents", progress.documents));
    } else {
        bar.set_message(format!("{} documents", progress.documents));
    }
}
