//! `fpdb create --confirm`: `check` and `query` of texts answer under the
//! two-stage rule, exactly as the library's `find` does, with each match's
//! similarity; texts without features are named and skipped.

mod common;

use common::{fpdb, json_lines, ok, stderr};
use fpdb::OpenOptions;

const ORIGINAL: &str = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们，爬虫因此少存很多副本。";
const COPY: &str = "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们，爬虫因此少存很多副本。";
const OTHER: &str =
    "The quick brown fox jumps over the lazy dog near the river bank every morning.";

fn line(id: &str, text: &str) -> String {
    format!("{}\n", serde_json::json!({ "id": id, "text": text }))
}

#[test]
fn check_and_query_apply_the_rule_and_report_similarity() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let created = ok(
        dir,
        &["create", "db", "--confirm", "--confirm-radius", "10"],
        "",
    );
    assert!(
        created.contains("confirming: minhash:64x4/shingle:2 within 10 bits"),
        "{created}"
    );

    let input = [
        line("orig", ORIGINAL),
        line("copy", COPY),
        line("other", OTHER),
        line("empty", "，。！……"),
    ]
    .concat();
    std::fs::write(dir.join("docs.jsonl"), &input).unwrap();
    let out = fpdb(dir, &["check", "db", "docs.jsonl", "--format", "json"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("empty: the text has no features"),
        "{}",
        stderr(&out)
    );
    let answers = json_lines(&out.stdout);
    let queries: Vec<&str> = answers
        .iter()
        .map(|a| a["query"].as_str().unwrap())
        .collect();
    assert_eq!(
        queries,
        ["orig", "copy", "other"],
        "the featureless text is not stored"
    );
    let matched = &answers[1]["matches"][0];
    assert_eq!(matched["ids"][0], "orig");
    assert!(matched["similarity"].as_f64().unwrap() >= 0.5, "{matched}");
    assert!(answers[2]["matches"].as_array().unwrap().is_empty());

    // `query` prints what the library's rule finds, document by document.
    std::fs::write(dir.join("q.jsonl"), line("q", COPY)).unwrap();
    let printed = json_lines(ok(dir, &["query", "db", "q.jsonl", "--format", "json"], ""));
    let db = OpenOptions::new()
        .read_only(true)
        .open(dir.join("db"))
        .unwrap();
    let near = db
        .find(&db.document_text(COPY).unwrap(), &db.match_rule(db.k()))
        .unwrap();
    let printed: Vec<(String, u32, f64)> = printed[0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["ids"][0].as_str().unwrap().to_string(),
                u32::try_from(m["distance"].as_u64().unwrap()).unwrap(),
                m["similarity"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, u32, f64)> = near
        .iter()
        .map(|n| (n.id.clone(), n.distance, n.similarity.unwrap()))
        .collect();
    assert_eq!(printed, expected);
    assert!(printed.iter().any(|(id, _, _)| id == "copy"));
    drop(db);

    // TSV rows end with the similarity.
    let tsv = ok(dir, &["query", "db", "q.jsonl", "--format", "tsv"], "");
    let mut rows = tsv.lines();
    assert_eq!(
        rows.next(),
        Some("query\tfp\tmatch_fp\tdistance\tid\tsimilarity")
    );
    assert!(rows.all(|row| row.split('\t').count() == 6));
}
