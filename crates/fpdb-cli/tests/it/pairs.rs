//! `fpdb dedup` and `fpdb pairs`, run as the real binary on a generated
//! corpus and compared with brute force.

use std::collections::BTreeSet;

use crate::common::corpus::{brute_clusters, brute_pairs, corpus, fps_text};
use crate::common::{fpdb, ok};
use serde_json::Value;

fn json_pairs(stdout: &str) -> BTreeSet<(String, String, u32)> {
    let mut pairs = BTreeSet::new();
    let mut lines = 0;
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 3, "{line}");
        let (a, b) = (v["a"].as_str().unwrap(), v["b"].as_str().unwrap());
        let distance = v["distance"].as_u64().unwrap() as u32;
        pairs.insert((a.min(b).to_string(), a.max(b).to_string(), distance));
        lines += 1;
    }
    assert_eq!(lines, pairs.len(), "a pair was printed twice");
    pairs
}

/// Clusters as sorted id lists; checks numbering and representatives.
fn json_clusters(
    stdout: &str,
    representative: impl Fn(&[String]) -> String,
) -> BTreeSet<Vec<String>> {
    let mut clusters = BTreeSet::new();
    for (number, line) in stdout.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["cluster"].as_u64().unwrap(), number as u64);
        let ids: Vec<String> = v["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap().to_string())
            .collect();
        assert_eq!(v["representative"].as_str().unwrap(), representative(&ids));
        let mut sorted = ids;
        sorted.sort();
        clusters.insert(sorted);
    }
    clusters
}

#[test]
fn dedup_prints_the_brute_force_pairs_and_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(7, 400);
    let input = fps_text(&docs);
    std::fs::write(dir.path().join("docs.fps"), &input).unwrap();
    let position = |id: &str| docs.iter().position(|(d, _)| d == id).unwrap();
    for k in [0, 1, 3, 5] {
        let ks = k.to_string();
        let expected = brute_pairs(&docs, k);
        assert!(k == 0 || !expected.is_empty());
        let stdout = ok(dir.path(), &["dedup", "--k", &ks, "docs.fps"], "");
        assert_eq!(json_pairs(&stdout), expected, "k = {k}");
        // Standard input and TSV give the same pairs.
        let tsv = ok(
            dir.path(),
            &["dedup", "--k", &ks, "--format", "tsv"],
            &input,
        );
        let mut rows = tsv.lines();
        assert_eq!(rows.next(), Some("a\tb\tdistance"));
        let from_tsv: BTreeSet<_> = rows
            .map(|row| {
                let f: Vec<&str> = row.split('\t').collect();
                (
                    f[0].min(f[1]).to_string(),
                    f[0].max(f[1]).to_string(),
                    f[2].parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(from_tsv, expected);

        let clusters = brute_clusters(&docs, k);
        let first = ok(
            dir.path(),
            &["dedup", "--k", &ks, "--clusters", "docs.fps"],
            "",
        );
        let first_seen = |ids: &[String]| ids.iter().min_by_key(|id| position(id)).unwrap().clone();
        assert_eq!(json_clusters(&first, first_seen), clusters);
        let smallest = ok(
            dir.path(),
            &[
                "dedup",
                "--k",
                &ks,
                "--clusters",
                "--representative",
                "smallest",
                "docs.fps",
            ],
            "",
        );
        let smallest_id = |ids: &[String]| ids.iter().min().unwrap().clone();
        assert_eq!(json_clusters(&smallest, smallest_id), clusters);
    }
}

#[test]
fn pairs_in_a_database_equal_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(11, 400);
    std::fs::write(dir.path().join("docs.fps"), fps_text(&docs)).unwrap();
    ok(dir.path(), &["create", "db", "--k", "4"], "");
    ok(dir.path(), &["add", "db", "docs.fps"], "");
    for k in [0, 2, 4] {
        let ks = k.to_string();
        let stdout = ok(dir.path(), &["pairs", "db", "--k", &ks], "");
        assert_eq!(json_pairs(&stdout), brute_pairs(&docs, k), "k = {k}");
        let clusters = ok(dir.path(), &["pairs", "db", "--k", &ks, "--clusters"], "");
        let smallest_id = |ids: &[String]| ids.iter().min().unwrap().clone();
        assert_eq!(
            json_clusters(&clusters, smallest_id),
            brute_clusters(&docs, k)
        );
    }
    // The database's k by default; a larger one is refused.
    let stdout = ok(dir.path(), &["pairs", "db"], "");
    assert_eq!(json_pairs(&stdout), brute_pairs(&docs, 4));
    let refused = fpdb(dir.path(), &["pairs", "db", "--k", "5"], "");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("k = 5"));
}

#[test]
fn dedup_hashes_texts_and_names_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let text = "the quick brown fox jumps over the lazy dog near the river bank today";
    let input = format!(
        "{{\"id\": \"a\", \"text\": \"{text}\"}}\n{{\"id\": \"b\", \"text\": \"{text}\"}}\n{{\"id\": \"c\", \"text\": \"something else entirely different\"}}\n"
    );
    std::fs::write(dir.path().join("docs.jsonl"), input).unwrap();
    let stdout = ok(
        dir.path(),
        &[
            "dedup",
            "--no-confirm",
            "--tokenizer",
            "words",
            "docs.jsonl",
        ],
        "",
    );
    let pairs = json_pairs(&stdout);
    assert!(
        pairs.contains(&("a".to_string(), "b".to_string(), 0)),
        "{stdout}"
    );
    // In two stages, the default, the pair is confirmed.
    let stdout = ok(
        dir.path(),
        &["dedup", "--tokenizer", "words", "docs.jsonl"],
        "",
    );
    let confirmed: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(confirmed["similarity"], 1.0, "{stdout}");

    let bad = fpdb(dir.path(), &["dedup"], "a\t0123\n");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("<stdin>:1"));
    let too_far = fpdb(dir.path(), &["dedup", "--k", "17"], "");
    assert!(!too_far.status.success());
}
