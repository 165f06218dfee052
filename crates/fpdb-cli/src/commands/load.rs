//! `fpdb load`: bulk load documents into an empty database.
//!
//! Documents go to a [`fpdb::BulkLoader`] as they are read: fingerprints
//! one by one, texts in batches hashed in parallel, while a thread of its
//! own reads and parses the next batches. Nothing is visible
//! before `finish`, so a bad line just returns an error: the loader is
//! dropped unfinished and the database stays empty.

use std::io::Write;
use std::time::Instant;

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
    let mut phase_started = Instant::now();
    loader.set_progress(move |progress: &BulkProgress| {
        show_phase(&phase_bar, progress, &mut phase_started);
    });

    let read = read_ahead(&mut inputs, |records| -> Result<()> {
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

/// Batches of records read (and parsed) ahead of the loader.
const READ_AHEAD: usize = 4;

/// [`Inputs::stream`], with the reading and parsing on a thread of their
/// own while this one hands each batch to `add` in order: at 100M lines
/// each is about half of the reading phase. An error of either stops
/// both and is the result (`add`'s first).
///
/// [`Inputs::stream`]: crate::input::Inputs::stream
fn read_ahead(
    inputs: &mut crate::input::Inputs,
    mut add: impl FnMut(Vec<Record>) -> Result<()>,
) -> Result<()> {
    std::thread::scope(|scope| {
        let (batches, read) = std::sync::mpsc::sync_channel::<Vec<Record>>(READ_AHEAD);
        let reader = scope.spawn(move || {
            inputs.stream(|records| -> Result<()> {
                // The loader stopped: its error is the one reported.
                batches
                    .send(records)
                    .map_err(|_| anyhow!("the load stopped"))
            })
        });
        // Ends when the reader does; dropping `read` on an error stops
        // the reader at its next batch.
        let added = read.into_iter().try_for_each(&mut add);
        let reading = reader
            .join()
            .unwrap_or_else(|_| Err(anyhow!("reading the input panicked")));
        added.and(reading)
    })
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

/// After reading, each phase of `finish` on the bar with its own time so
/// far (`started`, reset as each begins): sorting and ingesting, whose
/// length is not known beforehand, alone; writing the tables with the
/// tables written and, once one is, the time left at the pace so far. No
/// estimate is shown before there is a pace to make it from, and never
/// the reading's, long over.
fn show_phase(bar: &Bar, progress: &BulkProgress, started: &mut Instant) {
    let phase = match progress.phase {
        BulkPhase::Reading => return,
        BulkPhase::Sorting => "sorting",
        BulkPhase::Writing => "writing",
        BulkPhase::Ingesting => "ingesting",
    };
    if progress.done == 0 {
        *started = Instant::now();
    }
    let documents = progress.documents;
    let message = match (progress.done, progress.total) {
        (_, 0) => format!("{documents} documents"),
        (0, total) => format!("table 0/{total}, {documents} documents"),
        (done, total) => {
            let left =
                started.elapsed().as_secs_f64() / done as f64 * total.saturating_sub(done) as f64;
            format!("table {done}/{total}, about {left:.0} s left, {documents} documents")
        }
    };
    // A new phase's time and message first, so that no frame shows its
    // name beside the last phase's.
    bar.bar().set_message(message);
    if progress.done == 0 {
        bar.bar().reset_elapsed();
        bar.count(phase, None);
    }
}
