//! `fpdb tune`: every setting a database can be created with, measured on
//! copies planted into the user's own sample (the library's
//! [`fpdb::measure_settings`]), a recommendation, and a picture.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use fpdb::tune::{recall_against_false_matches, Curve, CurvePoint, EditKind, Lang, Planted};
use fpdb::{SettingScore, SimhashOptions, Simhasher};
use serde_json::json;

use crate::cli::{ReportFormat, TuneArgs};
use crate::input::{self, Payload, Role};
use crate::progress::Reading;

pub fn run(args: TuneArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&args.min_precision) {
        bail!("--min-precision {} is outside 0 ..= 1", args.min_precision);
    }
    let mut options = SimhashOptions::default();
    if let Some(tokenizer) = &args.tokenizer {
        options.tokenizer = tokenizer.parse().context("--tokenizer")?;
    }
    let simhasher = Simhasher::new(options);
    let sample = read_sample(&args)?;
    if sample.len() < 2 {
        bail!(
            "the sample has {} texts; tune needs at least 2",
            sample.len()
        );
    }
    let planted = Planted::from_sample(&sample, args.originals, args.seed);
    let originals = planted.copies.len() / EditKind::ALL.len();
    let chinese = planted
        .texts
        .iter()
        .filter(|t| Lang::of(t) == Lang::Zh)
        .count();
    eprintln!(
        "fpdb: {} planted with {} copies each, {} as a crawl, {} left out as reposts: {} ({} Chinese)",
        super::count(originals as u64, "original"),
        EditKind::ALL.len(),
        super::count((planted.texts.len() - originals * (1 + EditKind::ALL.len())) as u64, "text"),
        planted.reposts,
        super::count(planted.texts.len() as u64, "text"),
        chinese,
    );
    let scores = fpdb::measure_settings(&simhasher, &planted, args.confirm_threshold)
        .context("--confirm-threshold")?;
    let given = options.weighting.to_string();
    let best = fpdb::recommend(&scores, args.min_precision);
    if let Some(path) = &args.figure {
        let title = format!(
            "Recall against false matches on {} ({} originals)",
            super::count(planted.texts.len() as u64, "text"),
            originals
        );
        let svg = recall_against_false_matches(&title, &curves(&scores, &given))?;
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
    }
    match args.format.get() {
        ReportFormat::Text => print_text(&args, &scores, best, &given, &planted),
        ReportFormat::Json => {
            let json = to_json(&args, &scores, best, &given, &planted);
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

/// One curve per setting through its radii.
fn curves(scores: &[SettingScore], given: &str) -> Vec<Curve> {
    scores
        .chunk_by(|a, b| {
            (a.setting.learned, a.setting.confirmed) == (b.setting.learned, b.setting.confirmed)
        })
        .filter_map(|run| {
            let first = run.first()?;
            Some(Curve {
                name: first.setting.name(given),
                points: run
                    .iter()
                    .map(|s| CurvePoint {
                        radius: s.setting.radius,
                        recall: s.score.recall(),
                        false_per_query: s.score.false_per_query(),
                    })
                    .collect(),
            })
        })
        .collect()
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
    if s.setting.confirmed {
        let _ = write!(
            flags,
            " --confirm --confirm-radius {} --confirm-threshold {}",
            s.setting.radius, args.confirm_threshold
        );
    } else {
        let _ = write!(flags, " --k {}", s.setting.radius);
    }
    format!("fpdb create DB{flags}")
}

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn print_text(
    args: &TuneArgs,
    scores: &[SettingScore],
    best: Option<&SettingScore>,
    given: &str,
    planted: &Planted,
) -> Result<()> {
    let kinds: Vec<&str> = EditKind::ALL.iter().map(|k| k.name()).collect();
    outln!(
        "{:<16} {:>6} {:>7}  {:>8} {:>14} {:>14} {:>13} {:>6}  {:>9} {:>11} {:>11} {:>11}",
        "setting",
        "radius",
        "recall",
        kinds.first().copied().unwrap_or_default(),
        kinds.get(1).copied().unwrap_or_default(),
        kinds.get(2).copied().unwrap_or_default(),
        kinds.get(3).copied().unwrap_or_default(),
        kinds.get(4).copied().unwrap_or_default(),
        "precision",
        "false pairs",
        "false/query",
        format!("at {}", args.expected),
    );
    for s in scores {
        let kind = |k: EditKind| percent(s.score.kind_recall(k));
        outln!(
            "{:<16} {:>6} {:>7}  {:>8} {:>14} {:>14} {:>13} {:>6}  {:>9} {:>11} {:>11.5} {:>11.3}",
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
    match best {
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

fn to_json(
    args: &TuneArgs,
    scores: &[SettingScore],
    best: Option<&SettingScore>,
    given: &str,
    planted: &Planted,
) -> serde_json::Value {
    let row = |s: &SettingScore| {
        let kinds: serde_json::Map<String, serde_json::Value> = EditKind::ALL
            .iter()
            .map(|&k| (k.name().to_string(), json!(s.score.kind_recall(k))))
            .collect();
        json!({
            "setting": s.setting.name(given),
            "learned_weights": s.setting.learned,
            "confirmed": s.setting.confirmed,
            "radius": s.setting.radius,
            "recall": s.score.recall(),
            "recall_by_edit": kinds,
            "precision": s.score.precision(),
            "true_pairs": s.score.true_pairs,
            "false_pairs": s.score.false_pairs,
            "false_per_query": s.score.false_per_query(),
            "false_per_query_at_expected": s.score.false_per_query_at(args.expected),
        })
    };
    json!({
        "texts": planted.texts.len(),
        "originals": planted.copies.len() / EditKind::ALL.len(),
        "expected": args.expected,
        "min_precision": args.min_precision,
        "settings": scores.iter().map(row).collect::<Vec<_>>(),
        "recommended": best.map(|b| {
            let mut value = row(b);
            if let Some(object) = value.as_object_mut() {
                object.insert("create".to_string(), json!(create_flags(args, b)));
            }
            value
        }),
        "figure": args.figure.as_ref().map(|p| p.display().to_string()),
    })
}
