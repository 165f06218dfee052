//! A database with learned word weights keeps the table, fingerprints text
//! with it on every path (online inserts, queries, bulk loads, after
//! reopening and after a repair), answers exactly as brute force over the
//! learned fingerprints, and refuses options that name a table it lacks.

use std::collections::BTreeSet;
use std::sync::Arc;

use fpdb::simhash::{LearnedIdf, Tokenizer, Weighting};
use fpdb::{BulkOptions, Db, Error, OpenOptions, Options, Simhasher};

/// The paragraphs of the repository's articles and a copy of each with a
/// reporter's line added, or its last sentence dropped when it has four or
/// more.
fn texts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (id, paragraph) in fpdb_testkit::article_paragraphs(40) {
        let sentences: Vec<&str> = paragraph.split_inclusive('。').collect();
        let copy = if sentences.len() >= 4 {
            sentences[..sentences.len() - 1].concat()
        } else {
            format!("{paragraph}（本报记者报道）")
        };
        out.push((id.clone(), paragraph));
        out.push((format!("c{id}"), copy));
    }
    out
}

fn learned(docs: &[(String, String)]) -> Arc<LearnedIdf> {
    let tokens = Simhasher::default();
    let features: Vec<Vec<u64>> = docs.iter().map(|(_, t)| tokens.feature_hashes(t)).collect();
    Arc::new(LearnedIdf::learn(features.iter().map(Vec::as_slice)))
}

/// Every stored id within `k` of `text`'s learned fingerprint.
fn brute_force(
    simhasher: &Simhasher,
    docs: &[(String, String)],
    text: &str,
    k: u32,
) -> BTreeSet<String> {
    let fp = simhasher.fingerprint(text);
    docs.iter()
        .filter(|(_, t)| simhasher.fingerprint(t).distance(fp) <= k)
        .map(|(id, _)| id.clone())
        .collect()
}

fn answers(db: &Db, text: &str, k: u32) -> BTreeSet<String> {
    db.query_text(text, k)
        .unwrap()
        .into_iter()
        .flat_map(|m| m.ids)
        .collect()
}

fn assert_answers_are_brute_force(db: &Db, simhasher: &Simhasher, docs: &[(String, String)]) {
    let mut matched_past_itself = 0;
    for (_, text) in docs {
        for k in [3, 8] {
            let expected = brute_force(simhasher, docs, text, k);
            matched_past_itself += usize::from(expected.len() > 1);
            assert_eq!(answers(db, text, k), expected, "k {k}: {text}");
        }
    }
    assert!(matched_past_itself > 0, "no copy was found at all");
}

#[test]
fn every_path_fingerprints_with_the_kept_weights() {
    let docs = texts();
    let idf = learned(&docs);
    let simhasher = Simhasher::learned(Tokenizer::Jieba, idf.clone());
    let dir = tempfile::tempdir().unwrap();
    let online = dir.path().join("online");
    {
        let db = Db::create(&online, Options::default().learned_weights(idf.clone())).unwrap();
        assert_eq!(db.simhasher().options(), simhasher.options());
        for (id, text) in &docs {
            assert_eq!(
                db.insert_text(id, text).unwrap(),
                simhasher.fingerprint(text)
            );
        }
        assert_answers_are_brute_force(&db, &simhasher, &docs);
    }
    // Reopened, read-only: the table comes from the database.
    let db = OpenOptions::new().read_only(true).open(&online).unwrap();
    assert_eq!(
        db.simhasher().learned_idf().map(|t| t.digest()),
        Some(idf.digest())
    );
    assert_answers_are_brute_force(&db, &simhasher, &docs);
    assert!(db.verify().unwrap().is_clean());
    drop(db);

    // A bulk load of the same texts gives the same database answers.
    let bulk = dir.path().join("bulk");
    let mut db = Db::create(&bulk, Options::default().learned_weights(idf.clone())).unwrap();
    let pairs: Vec<(&str, &str)> = docs.iter().map(|(i, t)| (i.as_str(), t.as_str())).collect();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader.add_texts(&pairs).unwrap();
    loader.finish().unwrap();
    assert_answers_are_brute_force(&db, &simhasher, &docs);
    db.flush().unwrap();
    drop(db);

    // A repair rebuilds the database with its table.
    fpdb_testkit::damage_a_table_file(&bulk);
    assert!(!Db::repair(&bulk).unwrap().damage.is_empty());
    let db = Db::open(&bulk).unwrap();
    assert_eq!(db.simhasher().options(), simhasher.options());
    assert_answers_are_brute_force(&db, &simhasher, &docs);
}

#[test]
fn options_naming_a_table_they_lack_are_refused() {
    let docs = texts();
    let idf = learned(&docs);
    let dir = tempfile::tempdir().unwrap();
    let mut without_table = Options::default();
    without_table.simhash.weighting = Weighting::Learned {
        digest: idf.digest(),
    };
    let mut other_table = Options::default().learned_weights(idf.clone());
    other_table.simhash.weighting = Weighting::Learned {
        digest: idf.digest() ^ 1,
    };
    let mut table_without_weighting = Options::default().learned_weights(idf);
    table_without_weighting.simhash.weighting = Weighting::Tf;
    for (name, options) in [
        ("without", without_table),
        ("other", other_table),
        ("unused", table_without_weighting),
    ] {
        let path = dir.path().join(name);
        assert!(
            matches!(Db::create(&path, options), Err(Error::InvalidOptions(_))),
            "{name}"
        );
    }
}
