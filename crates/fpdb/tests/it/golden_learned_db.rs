//! A confirming database with learned word weights must keep opening and
//! answering: `data/golden/db-learned/` is a small one of format 4
//! (weights and common features learned from the repository's articles,
//! documents bulk loaded with their signatures, then more inserted online,
//! some removed) and `data/golden/db-learned-answers.tsv` what `find`
//! answered for texts of it and edited copies; `db-learned-v5/` and its
//! answers are the same made in format 5 (weak bits and shingle counts
//! beside the signatures), `db-learned-v6/` in format 6 (numbers counted
//! in the signatures of texts of many digits), `db-learned-v7/` in format 7
//! (6 weak bits a quarter, at most 2 of them flipped where a document
//! reaches another). The test opens a copy of each (never the
//! committed files) read-only and for writing, and compares: a change to
//! the learned weights' bytes, the signatures' or the weighting that
//! cannot read them fails here.
//!
//! Add one only together with a new format version, keeping the old:
//! `FPDB_BLESS_GOLDEN=1 cargo test --release -p fpdb --test it golden_learned_db::`
//! writes the current format into `db-learned-v<FORMAT_VERSION>`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use fpdb::{BulkOptions, Confirmation, Db, DesignChoice, Options, Simhasher};
use fpdb_testkit::copy_dir;

fn golden_dir() -> PathBuf {
    fpdb_testkit::repo_dir().join("data/golden")
}

fn paragraphs() -> Vec<(String, String)> {
    fpdb_testkit::article_paragraphs(20)
}

/// A copy without its first clause: often found past k and confirmed.
fn edited(text: &str) -> String {
    text.split_once('，')
        .map_or_else(|| text.to_string(), |(_, rest)| rest.to_string())
}

/// One line per query text: its name, then `id/distance/similarity` of
/// each document `find` returns (`-` for distance alone).
fn answers(db: &Db, texts: &[(String, String)]) -> String {
    let rule = db.match_rule(db.k());
    let mut lines = String::new();
    for (name, text) in texts {
        for (query, label) in [
            (text.clone(), name.clone()),
            (edited(text), format!("{name}+")),
        ] {
            let document = db.document_text(&query).unwrap();
            let mut line = format!("{label}\t{}", document.fingerprint);
            for near in db.find(&document, &rule).unwrap() {
                let similarity = near
                    .similarity
                    .map_or_else(|| "-".to_string(), |s| format!("{s:.4}"));
                write!(line, "\t{}/{}/{similarity}", near.id, near.distance).unwrap();
            }
            writeln!(lines, "{line}").unwrap();
        }
    }
    lines
}

fn bless(db_dir: &Path, answers_file: &Path) {
    let texts = paragraphs();
    let tokens = Simhasher::default();
    let sample: Vec<Vec<u64>> = texts
        .iter()
        .map(|(_, t)| tokens.feature_hashes(t))
        .collect();
    let options = Options::default()
        .expected_size(10_000)
        .design(DesignChoice::Named("4x16".into()))
        .block_bytes(256)
        .confirmation(Some(Confirmation::recommended()))
        .learned_from(&sample, true);
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("db");
    let mut db = Db::create(&path, options).unwrap();
    let (loaded, online) = texts.split_at(texts.len() / 2);
    let pairs: Vec<(&str, &str)> = loaded
        .iter()
        .map(|(i, t)| (i.as_str(), t.as_str()))
        .collect();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader.add_texts(&pairs).unwrap();
    loader.finish().unwrap();
    for (id, text) in online {
        db.insert_document(id, &db.document_text(text).unwrap())
            .unwrap();
    }
    for (id, _) in texts.iter().step_by(7) {
        db.remove(id).unwrap();
    }
    std::fs::write(answers_file, answers(&db, &texts)).unwrap();
    drop(db);
    fpdb_testkit::bless_golden_copy(&path, db_dir);
}

/// The golden databases of each format, with their answers.
const GOLDEN: [(&str, &str, u32); 4] = [
    ("db-learned", "db-learned-answers.tsv", 4),
    ("db-learned-v5", "db-learned-v5-answers.tsv", 5),
    ("db-learned-v6", "db-learned-v6-answers.tsv", 6),
    ("db-learned-v7", "db-learned-v7-answers.tsv", 7),
];

#[test]
fn the_golden_learned_databases_open_and_answer_as_recorded() {
    if std::env::var_os("FPDB_BLESS_GOLDEN").is_some() {
        let current = format!("db-learned-v{}", fpdb::FORMAT_VERSION);
        bless(
            &golden_dir().join(&current),
            &golden_dir().join(format!("{current}-answers.tsv")),
        );
    }
    for (db, answers, format) in GOLDEN {
        opens_and_answers_as_recorded(&golden_dir().join(db), format, &golden_dir().join(answers));
    }
}

/// Golden database `db_dir`, of format `stored`: read as it is, then
/// upgraded by a writable open, answering as `answers_file` says.
fn opens_and_answers_as_recorded(db_dir: &Path, stored: u32, answers_file: &Path) {
    let expected = std::fs::read_to_string(answers_file).unwrap();
    let confirmed = expected
        .lines()
        .flat_map(|line| line.split('\t').skip(2))
        .filter(|near| !near.ends_with("/-") && !near.contains("/0/"))
        .count();
    assert!(
        confirmed > 10,
        "the answers confirm too little: {confirmed}"
    );
    let copy = tempfile::tempdir().unwrap();
    let path = copy.path().join("db");
    copy_dir(db_dir, &path);
    let texts = paragraphs();
    for read_only in [true, false] {
        let db = fpdb::OpenOptions::new()
            .read_only(read_only)
            .open(&path)
            .unwrap();
        let format = if read_only {
            stored
        } else {
            fpdb::FORMAT_VERSION
        };
        assert_eq!(db.format_version(), format, "{}", db_dir.display());
        assert!(matches!(
            db.simhasher().options().weighting,
            fpdb::simhash::Weighting::Learned { .. }
        ));
        fpdb_testkit::assert_verifies(&db);
        assert_eq!(answers(&db, &texts), expected);
    }
}
