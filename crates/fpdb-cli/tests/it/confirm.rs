//! `fpdb create --confirm`: `check` and `query` of texts answer under the
//! two-stage rule, exactly as the library's `find` does, with each match's
//! similarity; texts without features are named and skipped. `fpdb
//! dedup --confirm` pairs a corpus under the same rule, and a batch of
//! texts is answered as the texts one at a time.

use crate::common::{fpdb, json_lines, ok, stderr};
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

    // A bare fingerprint beside the three signed texts: stats counts both.
    ok(dir, &["add", "db"], "bare\t0123456789abcdef\n");
    let stats = ok(dir, &["stats", "db"], "");
    assert!(
        stats.contains("signatures     3 documents signed, 1 bare fingerprints"),
        "{stats}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir, &["stats", "db", "--format", "json"], "")).unwrap();
    assert_eq!(
        json["signatures"],
        serde_json::json!({"signed": 3, "bare": 1})
    );
}

/// A small vocabulary: every page uses most of it.
const SMALL_VOCABULARY: [&str; 24] = [
    "crawler", "page", "copy", "mirror", "index", "table", "block", "query", "answer", "river",
    "market", "season", "harbour", "engine", "letter", "garden", "winter", "signal", "bridge",
    "forest", "ledger", "thread", "window", "marble",
];

/// A sentence of `words` words drawn from the small vocabulary.
fn sentence(rng: &mut fpdb_testkit::Rng, words: usize) -> String {
    let picked: Vec<&str> = (0..words)
        .map(|_| SMALL_VOCABULARY[usize::try_from(rng.below(24)).unwrap()])
        .collect();
    format!("{}.", picked.join(" "))
}

/// A sentence of `words` made-up words of a 3,000-word vocabulary, so that
/// words are rare and weigh differently, as in real text.
fn rare_sentence(rng: &mut fpdb_testkit::Rng, words: usize) -> String {
    let picked: Vec<String> = (0..words)
        .map(|_| {
            let mut n = rng.below(3_000);
            let mut word = String::from("w");
            for _ in 0..3 {
                word.push(char::from(b'a' + u8::try_from(n % 26).unwrap()));
                n /= 26;
            }
            word
        })
        .collect();
    format!("{}.", picked.join(" "))
}

/// Originals of a few sentences and copies with a word changed or a
/// sentence dropped, each page inside one site's `template` (may be
/// empty).
fn crawl(seed: u64, originals: usize, template: &str) -> Vec<(String, String)> {
    crawl_of(seed, originals, template, sentence)
}

/// [`crawl`] with sentences made by `sentence`.
fn crawl_of(
    seed: u64,
    originals: usize,
    template: &str,
    sentence: fn(&mut fpdb_testkit::Rng, usize) -> String,
) -> Vec<(String, String)> {
    let mut rng = fpdb_testkit::Rng::new(seed);
    let mut docs = Vec::new();
    for n in 0..originals {
        let sentences: Vec<String> = (0..6).map(|_| sentence(&mut rng, 9)).collect();
        docs.push((format!("o{n}"), sentences.join(" ")));
        if rng.chance(60) {
            let mut edited = sentences.clone();
            let drop = usize::try_from(rng.below(6)).unwrap();
            if rng.chance(50) {
                edited.remove(drop);
            } else {
                edited[drop] = sentence(&mut rng, 9);
            }
            docs.push((format!("c{n}"), edited.join(" ")));
        }
    }
    docs.into_iter()
        .map(|(id, body)| (id, format!("{template} {body} {template}")))
        .collect()
}

/// The pairs the rule matches among `docs`, one pair at a time, with the
/// default simhash options.
fn brute_force(
    docs: &[(String, String)],
    rule: &fpdb::MatchRule,
) -> std::collections::BTreeSet<(String, String, u32)> {
    brute_force_with(&fpdb::Simhasher::default(), docs, rule)
}

/// The pairs the rule matches among `docs` fingerprinted by `simhasher`.
fn brute_force_with(
    simhasher: &fpdb::Simhasher,
    docs: &[(String, String)],
    rule: &fpdb::MatchRule,
) -> std::collections::BTreeSet<(String, String, u32)> {
    let documents: Vec<fpdb::Document> = docs
        .iter()
        .map(|(_, text)| {
            fpdb::Document::of_text(simhasher, rule.confirmation.as_ref(), text).unwrap()
        })
        .collect();
    let mut pairs = std::collections::BTreeSet::new();
    for (a, x) in documents.iter().enumerate() {
        for (b, y) in documents.iter().enumerate().skip(a + 1) {
            let distance = x.fingerprint.distance(y.fingerprint);
            let xor = x.fingerprint.0 ^ y.fingerprint.0;
            if rule
                .judge(
                    xor,
                    &x.stored_bytes(rule.confirmation.as_ref()),
                    &y.stored_bytes(rule.confirmation.as_ref()),
                )
                .is_some()
            {
                pairs.insert((docs[a].0.clone(), docs[b].0.clone(), distance));
            }
        }
    }
    pairs
}

fn dedup_pairs(
    dir: &std::path::Path,
    docs: &[(String, String)],
    args: &[&str],
) -> (std::collections::BTreeSet<(String, String, u32)>, String) {
    let input: String = docs.iter().map(|(id, text)| line(id, text)).collect();
    std::fs::write(dir.join("crawl.jsonl"), input).unwrap();
    let out = fpdb(
        dir,
        &[&["dedup", "crawl.jsonl", "--format", "json"], args].concat(),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pairs = json_lines(&out.stdout)
        .iter()
        .map(|p| {
            if !args.contains(&"--no-confirm") && p["distance"].as_u64().unwrap() > 3 {
                assert!(p["similarity"].as_f64().unwrap() >= 0.5, "{p}");
            }
            (
                p["a"].as_str().unwrap().to_string(),
                p["b"].as_str().unwrap().to_string(),
                u32::try_from(p["distance"].as_u64().unwrap()).unwrap(),
            )
        })
        .collect();
    (pairs, stderr(&out))
}

#[test]
fn dedup_confirm_equals_the_rule_applied_to_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    let docs = crawl(3, 150, "");
    let rule = fpdb::MatchRule {
        k: 3,
        confirmation: Some(fpdb::Confirmation::recommended()),
    };
    let (confirmed, _) = dedup_pairs(dir.path(), &docs, &["--weights", "tfidf:8"]);
    assert_eq!(confirmed, brute_force(&docs, &rule));
    let (plain, _) = dedup_pairs(dir.path(), &docs, &["--weights", "tfidf:8", "--no-confirm"]);
    let distance_only = fpdb::MatchRule {
        k: 3,
        confirmation: None,
    };
    assert_eq!(plain, brute_force(&docs, &distance_only));
    // The second stage finds copies past k.
    assert!(confirmed.iter().any(|p| p.2 > 3), "{confirmed:?}");
}

#[test]
fn dedup_confirm_learns_a_site_template_from_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let template =
        "Home News Sports Weather Contact us Copyright Example Portal all rights reserved";
    let docs = crawl(4, 700, template);
    assert!(docs.len() >= fpdb::MIN_COMMON_SAMPLE);
    let (confirmed, stderr) = dedup_pairs(dir.path(), &docs, &["--weights", "tfidf:8"]);
    let simhasher = fpdb::Simhasher::default();
    let sample: Vec<Vec<u64>> = docs
        .iter()
        .map(|(_, text)| simhasher.feature_hashes(text))
        .collect();
    let common = fpdb::learn_common_features(&sample);
    assert!(!common.hashes().is_empty());
    assert!(
        stderr.contains(&format!(
            "{} common features left out",
            common.hashes().len()
        )),
        "{stderr}"
    );
    let rule = fpdb::MatchRule {
        k: 3,
        confirmation: Some(fpdb::Confirmation::recommended().with_common_features(common)),
    };
    assert_eq!(confirmed, brute_force(&docs, &rule));
}

/// A simhasher weighting jieba's words by their rarity in `docs`, as
/// `--weights learned` learns it from a corpus of fewer than 10,000 texts.
fn learned_from(docs: &[(String, String)]) -> fpdb::Simhasher {
    let tokens = fpdb::Simhasher::default();
    let features: Vec<Vec<u64>> = docs
        .iter()
        .map(|(_, text)| tokens.feature_hashes(text))
        .collect();
    let idf = fpdb::simhash::LearnedIdf::learn(features.iter().map(Vec::as_slice));
    fpdb::Simhasher::learned(fpdb::simhash::Tokenizer::Jieba, std::sync::Arc::new(idf))
}

#[test]
fn dedup_with_learned_weights_equals_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let template =
        "Home News Sports Weather Contact us Copyright Example Portal all rights reserved";
    let docs = crawl_of(5, 700, template, rare_sentence);
    let learned = learned_from(&docs);
    let idf = learned.learned_idf().unwrap();

    let distance_only = fpdb::MatchRule {
        k: 3,
        confirmation: None,
    };
    let (plain, stderr) = dedup_pairs(dir.path(), &docs, &["--weights", "learned", "--no-confirm"]);
    assert_eq!(plain, brute_force_with(&learned, &docs, &distance_only));
    assert!(
        stderr.contains(&format!(
            "weights learned from the first {} texts ({} weighted features)",
            docs.len(),
            idf.len()
        )),
        "{stderr}"
    );
    // The template's words are in every page and weigh nothing.
    let tokens = fpdb::Simhasher::default();
    for word in tokens.feature_hashes(template) {
        assert_eq!(idf.weight(word), 0);
    }

    let (confirmed, _) = dedup_pairs(dir.path(), &docs, &["--weights", "learned", "--confirm"]);
    // With no options, dedup learns its weights and confirms.
    assert_eq!(dedup_pairs(dir.path(), &docs, &[]).0, confirmed);
    let sample: Vec<Vec<u64>> = docs
        .iter()
        .map(|(_, text)| tokens.feature_hashes(text))
        .collect();
    let rule = fpdb::MatchRule {
        k: 3,
        confirmation: Some(
            fpdb::Confirmation::recommended()
                .with_common_features(fpdb::learn_common_features(&sample)),
        ),
    };
    assert_eq!(confirmed, brute_force_with(&learned, &docs, &rule));
    assert!(confirmed.iter().any(|p| p.2 > 3), "{confirmed:?}");
}

#[test]
fn learned_weights_are_refused_where_nothing_learns_them() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = fpdb(dir.path(), args, "");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!dir.path().join("db").exists());
    };
    refused(
        &["create", "db", "--weights", "learned"],
        "give the texts to learn the weights from with --learn-from FILE",
    );
    refused(
        &["create", "db", "--weights", "learned:00000000000000ab"],
        "only fpdb dedup and fpdb create --learn-from take --weights learned",
    );
    refused(
        &["hash", "--weights", "learned"],
        "only fpdb dedup and fpdb create --learn-from take --weights learned",
    );
    std::fs::write(dir.path().join("texts.jsonl"), line("a", ORIGINAL)).unwrap();
    refused(
        &["create", "db", "--learn-from", "texts.jsonl"],
        "nothing to learn without --weights learned or --confirm",
    );
}

/// `create --learn-from` reads only the texts it learns from, as it reads
/// only the head of a crawl's dump of any size: a line after them that is
/// not JSON is never reached, where reading on would stop at it. From
/// standard input (`--learn-input jsonl`) it learns the same tables.
#[test]
fn create_learns_from_the_first_texts_without_reading_on() {
    let dir = tempfile::tempdir().unwrap();
    let texts: String = (0..2 * fpdb::LEARN_SAMPLE)
        .map(|i| {
            line(
                &format!("p{i}"),
                &format!("page {i} of the crawl, about topic {}", i % 97),
            )
        })
        .collect();
    let texts = texts + "not json\n";
    std::fs::write(dir.path().join("crawl.jsonl"), &texts).unwrap();
    let out = fpdb(
        dir.path(),
        &[
            "create",
            "db",
            "--weights",
            "learned",
            "--learn-from",
            "crawl.jsonl",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "weights learned from {} texts",
            fpdb::LEARN_SAMPLE
        )),
        "{}",
        stderr(&out)
    );
    let piped = ok(
        dir.path(),
        &[
            "create",
            "piped",
            "--weights",
            "learned",
            "--learn-from",
            "-",
            "--learn-input",
            "jsonl",
        ],
        &texts,
    );
    let weights = |created: &str| {
        created
            .split_whitespace()
            .find(|word| word.starts_with("weights=learned:"))
            .map(str::to_string)
    };
    let from_file = String::from_utf8(out.stdout).unwrap();
    assert!(weights(&from_file).is_some(), "{from_file}");
    assert_eq!(weights(&piped), weights(&from_file), "{piped}");
}

/// The JSON answers of `fpdb query` to the first `n` texts of `docs`, and
/// the database opened read-only to compare them with.
fn query_first(
    dir: &std::path::Path,
    docs: &[(String, String)],
    n: usize,
) -> (Vec<serde_json::Value>, fpdb::Db) {
    let queries: String = docs
        .iter()
        .take(n)
        .map(|(id, text)| line(&format!("q-{id}"), text))
        .collect();
    std::fs::write(dir.join("q.jsonl"), queries).unwrap();
    let printed = json_lines(ok(dir, &["query", "db", "q.jsonl", "--format", "json"], ""));
    let db = OpenOptions::new()
        .read_only(true)
        .open(dir.join("db"))
        .unwrap();
    (printed, db)
}

/// `create --weights learned --learn-from` keeps the weights learned from
/// the texts (and with `--confirm` their common features); `add` and
/// `query` of texts then answer as the library's rule over documents made
/// with those tables.
#[test]
fn create_learns_its_tables_from_texts() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let template =
        "Home News Sports Weather Contact us Copyright Example Portal all rights reserved";
    let docs = crawl_of(6, 400, template, rare_sentence);
    let input: String = docs.iter().map(|(id, text)| line(id, text)).collect();
    std::fs::write(dir.join("crawl.jsonl"), input).unwrap();
    let out = fpdb(
        dir,
        &[
            "create",
            "db",
            "--weights",
            "learned",
            "--learn-from",
            "crawl.jsonl",
            "--confirm",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let learned = learned_from(&docs);
    let idf = learned.learned_idf().unwrap();
    assert!(
        stderr(&out).contains(&format!(
            "weights learned from {} texts: {} weighted features",
            docs.len(),
            idf.len()
        )),
        "{}",
        stderr(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("weights=learned:{:016x}", idf.digest())),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    ok(dir, &["add", "db", "crawl.jsonl"], "");
    let stats = ok(dir, &["stats", "db"], "");
    assert!(
        stats.contains(&format!("learned        {} weighted features", idf.len())),
        "{stats}"
    );
    assert!(
        stats.contains("confirming     minhash:64x4/shingle:2 within 14 bits"),
        "{stats}"
    );

    let tokens = fpdb::Simhasher::default();
    let sample: Vec<Vec<u64>> = docs
        .iter()
        .map(|(_, text)| tokens.feature_hashes(text))
        .collect();
    let confirmation = fpdb::Confirmation::recommended()
        .with_common_features(fpdb::learn_common_features(&sample));
    let (printed, db) = query_first(dir, &docs, 60);
    assert_eq!(db.confirmation(), Some(&confirmation));
    let confirmed_past_k = assert_answers_are_finds(&printed, &docs, &db, |text| {
        fpdb::Document::of_text(&learned, Some(&confirmation), text).unwrap()
    });
    assert!(confirmed_past_k > 0);
}

/// Asserts that each printed answer (of `fpdb query --format json`) is
/// what `Db::find` under the database's rule gives for the document
/// `document_of` makes of the same text, ids, distances and similarities;
/// returns how many matches were past k.
fn assert_answers_are_finds(
    printed: &[serde_json::Value],
    docs: &[(String, String)],
    db: &fpdb::Db,
    document_of: impl Fn(&str) -> fpdb::Document,
) -> usize {
    let rule = db.match_rule(db.k());
    let mut past_k = 0;
    for (answer, (_, text)) in printed.iter().zip(docs) {
        let near = db.find(&document_of(text), &rule).unwrap();
        past_k += near.iter().filter(|n| n.distance > rule.k).count();
        let expected: Vec<(String, u64, Option<f64>)> = near
            .iter()
            .map(|n| (n.id.clone(), u64::from(n.distance), n.similarity))
            .collect();
        let got: Vec<(String, u64, Option<f64>)> = answer["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["ids"][0].as_str().unwrap().to_string(),
                    m["distance"].as_u64().unwrap(),
                    m["similarity"].as_f64(),
                )
            })
            .collect();
        assert_eq!(got, expected, "{text}");
    }
    past_k
}

/// `fpdb load` of texts into a confirming database keeps their signatures:
/// its answers are the library's rule over the documents, matches past k
/// among them; a text without features is left out and counted.
#[test]
fn load_keeps_signatures() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--confirm"], "");
    let docs = crawl_of(7, 300, "", rare_sentence);
    let mut input: String = docs.iter().map(|(id, text)| line(id, text)).collect();
    input.push_str(&line("empty", "，。！"));
    std::fs::write(dir.join("crawl.jsonl"), input).unwrap();
    let out = fpdb(dir, &["load", "db", "crawl.jsonl"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 text without features left out"),
        "{}",
        stderr(&out)
    );
    let (printed, db) = query_first(dir, &docs, 80);
    assert_eq!(db.get("empty").unwrap(), None);
    let confirmed_past_k =
        assert_answers_are_finds(&printed, &docs, &db, |text| db.document_text(text).unwrap());
    assert!(confirmed_past_k > 0);
}

/// `fpdb pairs` of a confirming database pairs its documents under the
/// rule, as brute force applies it to every pair of the texts loaded, and
/// its clusters are the connected components of those pairs.
#[test]
fn pairs_of_a_confirming_database_apply_the_rule() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--confirm"], "");
    let docs = crawl_of(8, 250, "", rare_sentence);
    let input: String = docs.iter().map(|(id, text)| line(id, text)).collect();
    std::fs::write(dir.join("crawl.jsonl"), input).unwrap();
    ok(dir, &["load", "db", "crawl.jsonl"], "");
    let out = fpdb(dir, &["pairs", "db", "--format", "json"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let unordered = |(a, b, distance): (String, String, u32)| {
        if a < b {
            (a, b, distance)
        } else {
            (b, a, distance)
        }
    };
    let printed: std::collections::BTreeSet<(String, String, u32)> = json_lines(&out.stdout)
        .iter()
        .map(|p| {
            unordered((
                p["a"].as_str().unwrap().to_string(),
                p["b"].as_str().unwrap().to_string(),
                u32::try_from(p["distance"].as_u64().unwrap()).unwrap(),
            ))
        })
        .collect();
    let rule = fpdb::MatchRule {
        k: 3,
        confirmation: Some(fpdb::Confirmation::recommended()),
    };
    let expected: std::collections::BTreeSet<(String, String, u32)> = brute_force(&docs, &rule)
        .into_iter()
        .map(unordered)
        .collect();
    assert_eq!(printed, expected);
    assert!(printed.iter().any(|p| p.2 > 3), "{printed:?}");
    assert!(
        stderr(&out).contains(&format!("{} pairs within 14 bits", expected.len())),
        "{}",
        stderr(&out)
    );

    // Clusters: the connected components of the pairs.
    let clusters = json_lines(ok(
        dir,
        &["pairs", "db", "--clusters", "--format", "json"],
        "",
    ));
    let clustered: usize = clusters
        .iter()
        .map(|c| c["ids"].as_array().unwrap().len())
        .sum();
    let mut in_pairs: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for (a, b, _) in &expected {
        in_pairs.insert(a.clone());
        in_pairs.insert(b.clone());
    }
    assert_eq!(clustered, in_pairs.len());
}

/// `fpdb query` of a confirming database merges a large batch of texts
/// against the tables (`Db::find_batch`): its answers are those of the
/// same texts queried one at a time, and those of the library's `find`.
#[test]
fn a_batch_of_texts_answers_as_texts_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let docs = crawl_of(21, 800, "", rare_sentence);
    assert!(docs.len() >= 1_100, "{} documents", docs.len());
    let lines: String = docs.iter().map(|(id, text)| line(id, text)).collect();
    std::fs::write(dir.join("docs.jsonl"), lines).unwrap();
    ok(dir, &["create", "db", "--confirm"], "");
    ok(dir, &["load", "db", "docs.jsonl"], "");
    let batch = ok(dir, &["query", "db", "docs.jsonl", "--format", "json"], "");
    let one_at_a_time = ok(
        dir,
        &[
            "query",
            "db",
            "docs.jsonl",
            "--format",
            "json",
            "--batch",
            "1",
        ],
        "",
    );
    assert_eq!(batch, one_at_a_time);
    let answers = json_lines(batch.as_bytes());
    assert_eq!(answers.len(), docs.len());
    let db = OpenOptions::new()
        .read_only(true)
        .open(dir.join("db"))
        .unwrap();
    let rule = db.match_rule(db.k());
    let mut copies_found = 0;
    for ((id, text), answer) in docs.iter().zip(&answers) {
        assert_eq!(answer["query"], id.as_str());
        let found = db.find(&db.document_text(text).unwrap(), &rule).unwrap();
        let ids: Vec<&str> = answer["matches"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| {
                m["ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_str().unwrap())
            })
            .collect();
        let expected: Vec<&str> = found.iter().map(|near| near.id.as_str()).collect();
        assert_eq!(ids, expected, "{id}");
        copies_found += usize::from(id.starts_with('c') && ids.len() > 1);
    }
    assert!(copies_found > 100, "{copies_found} copies found");
}

/// Two listings of one site that differ only in their numbers are
/// different pages: numbers count in the signature of a text that is
/// mostly digits, unless `--confirm-numbers-from 0`; a page whose date
/// alone changed stays a copy either way.
#[test]
fn numbers_count_where_a_text_is_mostly_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let listing = |n: [&str; 6]| {
        format!(
            "出售本地移动靓号，全部实名登记，没有最低消费：号码{}售价{}元，号码{}售价{}元，号码{}售价{}元，欢迎来电咨询。",
            n[0], n[1], n[2], n[3], n[4], n[5]
        )
    };
    let docs: Vec<(String, String)> = [
        (
            "a",
            listing([
                "13812345678",
                "800",
                "13912345678",
                "1200",
                "13712345678",
                "650",
            ]),
        ),
        (
            "b",
            listing([
                "15011112222",
                "900",
                "15133334444",
                "1500",
                "15255556666",
                "700",
            ]),
        ),
        ("c", format!("{ORIGINAL}发布于 2024-04-29。")),
        ("d", format!("{ORIGINAL}发布于 2024-04-30。")),
    ]
    .into_iter()
    .map(|(id, text)| (id.to_string(), text))
    .collect();
    let ids = |pairs: &std::collections::BTreeSet<(String, String, u32)>| -> Vec<String> {
        pairs.iter().map(|(a, b, _)| format!("{a}{b}")).collect()
    };
    let (by_default, _) = dedup_pairs(dir, &docs, &[]);
    assert_eq!(ids(&by_default), ["cd"]);
    let (words_only, _) = dedup_pairs(dir, &docs, &["--confirm-numbers-from", "0"]);
    assert_eq!(ids(&words_only), ["ab", "cd"]);

    ok(dir, &["create", "db", "--confirm"], "");
    let stats = ok(dir, &["stats", "db"], "");
    assert!(stats.contains("numbers count from 20% digits"), "{stats}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir, &["stats", "db", "--format", "json"], "")).unwrap();
    assert_eq!(json["confirmation"]["numbers_from_permille"], 200);
    let out = fpdb(
        dir,
        &[
            "create",
            "db2",
            "--confirm",
            "--confirm-numbers-from",
            "101",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("db2").exists());
}
