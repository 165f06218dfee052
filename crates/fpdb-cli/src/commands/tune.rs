//! `fpdb tune`: every setting a database can be created with, measured on
//! copies planted into the user's own sample (the library's
//! [`fpdb::measure_settings`]), a recommendation, and a picture.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use fpdb::tune::{recall_against_false_matches, EditKind, Lang};
use fpdb::{PairCheck, SettingScore, SimhashOptions, Simhasher, TuneOptions, Tuning};
use serde_json::json;

use crate::cli::{ReportFormat, TuneArgs};
use crate::input::{self, Payload, Role};
use crate::progress::Reading;

pub fn run(args: TuneArgs) -> Result<()> {
    let mut options = SimhashOptions::default();
    if let Some(tokenizer) = &args.tokenizer {
        options.tokenizer = tokenizer.parse().context("--tokenizer")?;
    }
    let simhasher = Simhasher::new(options);
    let tune_options = TuneOptions {
        originals: args.originals,
        seed: args.seed,
        confirm_threshold: args.confirm_threshold,
        min_precision: args.min_precision,
        expected: args.expected,
    };
    tune_options.check()?;
    let sample = read_sample(&args)?;
    if sample.len() < 2 {
        bail!(
            "the sample has {} texts; tune needs at least 2",
            sample.len()
        );
    }
    let tuning = fpdb::tune(&simhasher, &sample, tune_options).context("fpdb tune")?;
    let planted = &tuning.planted;
    let chinese = planted
        .texts
        .iter()
        .filter(|t| Lang::of(t) == Lang::Zh)
        .count();
    let originals = tuning.originals();
    eprintln!(
        "fpdb: {} planted with {} copies each, {} as a crawl, {} left out as reposts: {} ({} Chinese)",
        super::count(originals as u64, "original"),
        EditKind::ALL.len(),
        super::count((planted.texts.len() - originals * (1 + EditKind::ALL.len())) as u64, "text"),
        planted.reposts,
        super::count(planted.texts.len() as u64, "text"),
        chinese,
    );
    if let Some(path) = &args.figure {
        let title = format!(
            "Recall against false matches on {} ({} originals)",
            super::count(planted.texts.len() as u64, "text"),
            originals
        );
        let svg = recall_against_false_matches(&title, &tuning.curves())?;
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
    }
    match args.format.get() {
        ReportFormat::Text => print_text(&args, &tuning),
        ReportFormat::Json => {
            let create = tuning.best().map(|best| create_flags(&args, best));
            let figure = args.figure.as_ref().map(|p| p.display().to_string());
            let json = super::json_with(
                &tuning,
                [("create", json!(create)), ("figure", json!(figure))],
            )?;
            outln!("{}", serde_json::to_string_pretty(&json)?);
            Ok(())
        }
    }
}

/// The texts of the sample, in order; bare fingerprints are refused (there
/// is nothing to edit).
fn read_sample(args: &TuneArgs) -> Result<Vec<String>> {
    let mut inputs = input::inputs(&args.input, Role::Query).with_extract(args.extract);
    let mut reading = Reading::new("reading", &inputs, false);
    let mut sample = Vec::new();
    inputs.stream(|records| -> Result<()> {
        reading.handled(records.len());
        for record in records {
            match record.payload {
                Payload::Text(text) => sample.push(text),
                Payload::Fingerprint(_) => bail!(
                    "{}: a fingerprint; fpdb tune plants edits into texts (give texts, lines, HTML or WARC)",
                    record.id
                ),
            }
        }
        Ok(())
    })?;
    reading.finish();
    super::report_skipped(&inputs);
    Ok(sample)
}

/// The `fpdb create` flags that give `setting`.
fn create_flags(args: &TuneArgs, s: &SettingScore) -> String {
    let mut flags = String::new();
    if let Some(tokenizer) = &args.tokenizer {
        let _ = write!(flags, " --tokenizer {tokenizer}");
    }
    if s.setting.learned {
        flags.push_str(" --weights learned --learn-from SAMPLE");
    }
    let threshold = args
        .confirm_threshold
        .map(|share| format!(" --confirm-threshold {share}"))
        .unwrap_or_default();
    match s.setting.check {
        PairCheck::Distance => {
            let _ = write!(flags, " --k {}", s.setting.radius);
        }
        PairCheck::WeakBits => {
            let _ = write!(
                flags,
                " --confirm --confirm-radius {}{threshold}",
                s.setting.radius
            );
        }
        PairCheck::EveryCandidate => {
            let threshold = args
                .confirm_threshold
                .unwrap_or_else(|| fpdb::Confirmation::signatures_alone().threshold());
            let _ = write!(
                flags,
                // What was measured: every candidate within the radius,
                // judged by the signatures alone.
                " --confirm --confirm-radius {} --confirm-threshold {threshold} --confirm-weak-bits 0 --confirm-min-shared 0",
                s.setting.radius
            );
        }
    }
    format!("fpdb create DB{flags}")
}

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn print_text(args: &TuneArgs, tuning: &Tuning) -> Result<()> {
    let given = tuning.given_weights.as_str();
    let planted = &tuning.planted;
    outln!(
        "{:<22} {:>6} {:>7}  {:>8} {:>14} {:>14} {:>13} {:>6}  {:>9} {:>11} {:>11} {:>11}",
        "setting",
        "radius",
        "recall",
        EditKind::Typos.name(),
        EditKind::HeaderFooter.name(),
        EditKind::DatesCounters.name(),
        EditKind::DropSentence.name(),
        EditKind::Mirror.name(),
        "precision",
        "false pairs",
        "false/query",
        format!("at {}", args.expected),
    );
    for s in &tuning.scores {
        let kind = |k: EditKind| percent(s.score.kind_recall(k));
        outln!(
            "{:<22} {:>6} {:>7}  {:>8} {:>14} {:>14} {:>13} {:>6}  {:>9} {:>11} {:>11.5} {:>11.3}",
            s.setting.name(given),
            s.setting.radius,
            percent(s.score.recall()),
            kind(EditKind::Typos),
            kind(EditKind::HeaderFooter),
            kind(EditKind::DatesCounters),
            kind(EditKind::DropSentence),
            kind(EditKind::Mirror),
            format!("{:.2}%", s.score.precision() * 100.0),
            s.score.false_pairs,
            s.score.false_per_query(),
            s.score.false_per_query_at(args.expected),
        );
    }
    match tuning.best() {
        None => outln!(
            "no setting keeps precision {} on this sample; see the table",
            args.min_precision
        ),
        Some(best) => {
            outln!(
                "recommended: {} within {} bits: recall {}, precision {:.2}%, {} false pairs",
                best.setting.name(given),
                best.setting.radius,
                percent(best.score.recall()),
                best.score.precision() * 100.0,
                best.score.false_pairs
            );
            outln!("  {}", create_flags(args, best));
        }
    }
    if tuning.too_short_to_confirm > 0 {
        outln!(
            "{} too short for +confirm: fewer than {} distinct shingles, so none of their copies is confirmed (+confirm-every and distance alone can)",
            super::count(tuning.too_short_to_confirm as u64, "text"),
            fpdb::Confirmation::recommended().min_shared()
        );
    }
    // One false pair in n texts is 2N/n² false matches per query at N.
    let n = planted.texts.len() as f64;
    outln!(
        "one false pair in this sample is {:.3} false matches per query at {} documents; a sample of {} texts resolves rates down to that",
        2.0 * args.expected as f64 / (n * n),
        args.expected,
        planted.texts.len()
    );
    if let Some(path) = &args.figure {
        outln!("figure: {}", path.display());
    }
    Ok(())
}
