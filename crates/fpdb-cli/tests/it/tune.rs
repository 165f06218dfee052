//! `fpdb tune`: the settings it prints are the library's measurements of
//! copies planted into the sample given, its recommendation is the
//! library's, its figure draws every setting, and what it cannot tune on
//! is refused with the reason.

use crate::common::{fpdb, stderr};
use fpdb::tune::Planted;
use fpdb_testkit::article_paragraphs;

/// The repository's paragraphs as JSON Lines, and the texts.
fn sample(dir: &std::path::Path) -> Vec<String> {
    let texts: Vec<String> = article_paragraphs(40).into_iter().map(|(_, t)| t).collect();
    let lines: String = texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            format!(
                "{}\n",
                serde_json::json!({ "id": format!("p{i}"), "text": text })
            )
        })
        .collect();
    std::fs::write(dir.join("sample.jsonl"), lines).unwrap();
    texts
}

#[test]
fn prints_the_library_s_scores_recommendation_and_figure() {
    let dir = tempfile::tempdir().unwrap();
    let texts = sample(dir.path());
    let out = fpdb(
        dir.path(),
        &[
            "tune",
            "--originals",
            "12",
            "--seed",
            "9",
            "--format",
            "json",
            "--figure",
            "s.svg",
            "sample.jsonl",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let planted = Planted::from_sample(&texts, 12, 9);
    let scores = fpdb::measure_settings(&fpdb::Simhasher::default(), &planted, None).unwrap();
    let tuning = fpdb::tune(
        &fpdb::Simhasher::default(),
        &texts,
        fpdb::TuneOptions {
            originals: 12,
            seed: 9,
            ..fpdb::TuneOptions::default()
        },
    )
    .unwrap();
    assert_eq!(report["too_short_to_confirm"], tuning.too_short_to_confirm);
    assert_eq!(report["reposts"], planted.reposts);
    assert_eq!(report["texts"], planted.texts.len());
    assert_eq!(report["originals"], 12);
    let rows = report["settings"].as_array().unwrap();
    assert_eq!(rows.len(), scores.len());
    for (row, measured) in rows.iter().zip(&scores) {
        assert_eq!(row["radius"], measured.setting.radius);
        assert_eq!(row["learned_weights"], measured.setting.learned);
        assert_eq!(row["confirmed"], measured.setting.confirmed());
        assert_eq!(row["check"], measured.setting.check.name());
        assert_eq!(row["true_pairs"], measured.score.true_pairs);
        assert_eq!(row["false_pairs"], measured.score.false_pairs);
        assert!((row["recall"].as_f64().unwrap() - measured.score.recall()).abs() < 1e-12);
    }
    let best = &scores[fpdb::recommend(&scores, 0.99).unwrap()];
    let recommended = &report["recommended"];
    assert_eq!(recommended["radius"], best.setting.radius);
    assert_eq!(recommended["check"], best.setting.check.name());
    assert_eq!(recommended["learned_weights"], best.setting.learned);
    let create = report["create"].as_str().unwrap();
    assert!(create.starts_with("fpdb create DB"), "{create}");
    if best.setting.confirmed() {
        assert!(
            create.contains(&format!("--confirm-radius {}", best.setting.radius)),
            "{create}"
        );
    }
    // Every candidate is asked for explicitly; weak bits are --confirm's own.
    let every = best.setting.check == fpdb::PairCheck::EveryCandidate;
    assert_eq!(create.contains("--confirm-weak-bits 0"), every, "{create}");

    let svg = std::fs::read_to_string(dir.path().join("s.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    for name in [
        "tfidf:8",
        "tfidf:8+confirm",
        "tfidf:8+confirm-every",
        "learned",
        "learned+confirm",
        "learned+confirm-every",
    ] {
        assert!(
            svg.contains(&format!(">\n{name}\n<")),
            "{name} not in the legend"
        );
    }
}

#[test]
fn the_text_report_names_the_recommended_create_command() {
    let dir = tempfile::tempdir().unwrap();
    sample(dir.path());
    let out = fpdb(
        dir.path(),
        &["tune", "--originals", "12", "sample.jsonl"],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        text.lines().next().unwrap().starts_with("setting"),
        "{text}"
    );
    assert!(text.contains("recommended: "), "{text}");
    assert!(text.contains("  fpdb create DB"), "{text}");
    assert!(
        stderr(&out).contains("12 originals planted with 5 copies each"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn refuses_fingerprints_and_impossible_options() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], stdin: &str, says: &str| {
        let out = fpdb(dir.path(), args, stdin);
        assert_ne!(out.status.code(), Some(0));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    };
    refused(
        &["tune", "--input", "fps"],
        "a\t0123456789abcdef\n",
        "a: a fingerprint; fpdb tune plants edits into texts",
    );
    refused(
        &["tune", "--min-precision", "1.5", "--input", "lines"],
        "one text\n",
        "minimum precision 1.5 is outside 0 ..= 1",
    );
    refused(
        &["tune", "--confirm-threshold", "1.5", "--input", "lines"],
        "one text\n",
        "confirmation threshold 1.5 is outside 0 ..= 1",
    );
    refused(
        &["tune", "--input", "lines"],
        "only one text\n",
        "the sample has 1 texts; tune needs at least 2",
    );
}
