//! Old databases must keep opening: `data/golden/db/` is a small database
//! of format 1, `data/golden/db-v2/` and `db-v3/` the same one written in
//! formats 2 and 3 (merged blocks, a delta of inserts and removes, text
//! documents), and
//! `data/golden/db-answers.tsv` what their queries answer. The test opens
//! a copy of each (never the committed files) and compares. A format
//! change that cannot read them fails here.
//!
//! So this is also the test of the upgrades to the current format: opened read-only
//! each is read as it is, opened for writing it is upgraded in place and
//! must answer and verify the same.
//!
//! Regenerate only together with a new format version, keeping the old
//! directories (`db-v<N>`) with their upgrade test:
//! `FPDB_BLESS_GOLDEN=1 cargo test --release -p fpdb --test it golden_db::`
//! writes the current format into `db-v<FORMAT_VERSION>`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use fpdb::DesignChoice;
use fpdb::{Db, Fingerprint, Match, Options};
use fpdb_testkit::{brute_force, copy_dir, ids_by_fingerprint, Model, Rng};

fn golden_dir() -> PathBuf {
    fpdb_testkit::repo_dir().join("data/golden")
}

const TEXTS: &[(&str, &str)] = &[
    (
        "text-zh",
        "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。",
    ),
    (
        "text-zh-edited",
        "网络爬虫每天抓取大量网页，其中很多网页内容几乎相同，只是广告、日期或计数器有所不同。",
    ),
    (
        "text-en",
        "A web crawler fetches millions of pages a day; many are near-duplicates of each other.",
    ),
];

/// The queries the answers file records: every stored fingerprint, a
/// neighbour of each, and some random ones, at k = 0 and k = 3.
fn queries(model: &Model) -> Vec<(Fingerprint, u32)> {
    let mut rng = Rng::new(99);
    let stored: Vec<Fingerprint> = ids_by_fingerprint(model).into_keys().collect();
    let mut queries = Vec::new();
    for fp in stored {
        queries.push((fp, 0));
        queries.push((rng.near(fp, 3), 3));
    }
    queries.extend((0..20).map(|_| (Fingerprint(rng.next_u64()), 3)));
    queries
}

/// One answer per line: `query k fingerprint/distance/id|id ...`.
fn format_answer(query: Fingerprint, k: u32, matches: &[Match]) -> String {
    let mut line = format!("{query}\t{k}\t");
    for m in matches {
        write!(
            line,
            "{}/{}/{} ",
            m.fingerprint,
            m.distance,
            m.ids.join("|")
        )
        .unwrap();
    }
    line.trim_end().to_string()
}

fn bless(db_dir: &Path, answers: &Path) {
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("db");
    let options = Options::default()
        .k(3)
        .expected_size(10_000)
        .design(DesignChoice::Named("4x16".into()))
        .block_bytes(256);
    let db = Db::create(&path, options).unwrap();
    let mut rng = Rng::new(2026);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 360);
    let mut model: Model = Model::new();
    db.insert_batch(&documents[..300]).unwrap();
    model.extend(documents[..300].iter().cloned());
    db.merge().unwrap();
    // Left in the delta: inserts, re-inserts with a new fingerprint,
    // removes of merged documents, text documents.
    db.insert_batch(&documents[300..]).unwrap();
    model.extend(documents[300..].iter().cloned());
    for i in (0..300).step_by(15) {
        let id = format!("doc-{i}");
        db.remove(&id).unwrap();
        model.remove(&id);
    }
    db.insert("doc-1", Fingerprint(0x0123_4567_89ab_cdef))
        .unwrap();
    model.insert("doc-1".into(), Fingerprint(0x0123_4567_89ab_cdef));
    for (id, text) in TEXTS {
        let fp = db.insert_text(id, text).unwrap();
        model.insert((*id).to_string(), fp);
    }
    let by_fp = ids_by_fingerprint(&model);
    let mut lines = String::new();
    for (query, k) in queries(&model) {
        let matches = db.query(query, k).unwrap();
        assert_eq!(matches, brute_force(&by_fp, query, k));
        writeln!(lines, "{}", format_answer(query, k, &matches)).unwrap();
    }
    drop(db);
    fpdb_testkit::bless_golden_copy(&path, db_dir);
    std::fs::write(answers, lines).unwrap();
}

#[test]
fn the_golden_databases_open_and_answer_as_recorded() {
    let answers = golden_dir().join("db-answers.tsv");
    if std::env::var_os("FPDB_BLESS_GOLDEN").is_some() {
        let current = format!("db-v{}", fpdb::FORMAT_VERSION);
        bless(&golden_dir().join(current), &answers);
    }
    for (dir, format) in [("db", 1), ("db-v2", 2), ("db-v3", 3)] {
        opens_and_answers_as_recorded(&golden_dir().join(dir), format, &answers);
    }
}

/// Golden database `db_dir`, of format `stored`: read as it is, then
/// upgraded by a writable open and read again, answering as recorded.
fn opens_and_answers_as_recorded(db_dir: &Path, stored: u32, answers: &Path) {
    let expected = std::fs::read_to_string(answers).unwrap();
    let copy = tempfile::tempdir().unwrap();
    let path = copy.path().join("db");
    copy_dir(db_dir, &path);
    let current = fpdb::FORMAT_VERSION;
    for (read_only, format) in [(true, stored), (false, current), (true, current)] {
        let db = if read_only {
            fpdb::OpenOptions::new()
                .read_only(true)
                .open(&path)
                .unwrap()
        } else {
            Db::open(&path).unwrap()
        };
        assert_eq!(db.format_version(), format);
        fpdb_testkit::assert_verifies(&db);
        let model: Model = fpdb_testkit::export(&db);
        let stats = db.stats();
        assert_eq!(stats.ids, model.len() as u64);
        assert!(
            stats.delta_added > 0 && stats.delta_removed > 0,
            "{stats:?}"
        );
        let mut checked = 0;
        for line in expected.lines() {
            let mut fields = line.split('\t');
            let query: Fingerprint = fields.next().unwrap().parse().unwrap();
            let k: u32 = fields.next().unwrap().parse().unwrap();
            let matches = db.query(query, k).unwrap();
            assert_eq!(format_answer(query, k, &matches), line);
            checked += 1;
        }
        assert!(checked > 300, "only {checked} recorded answers");
        // Text is hashed with the options stored in the golden manifest.
        for (id, text) in TEXTS {
            let matches = db.query_text(text, 0).unwrap();
            assert!(matches.iter().any(|m| m.ids.iter().any(|i| i == id)));
        }
    }
    assert_eq!(stored_format(&path), fpdb::FORMAT_VERSION);
    // Opening the copy for writing and writing must work too.
    let db = Db::open(&path).unwrap();
    db.insert("new", Fingerprint(42)).unwrap();
    db.merge().unwrap();
    fpdb_testkit::assert_verifies(&db);
}

/// The database format of the manifest stored in `path`, read from its
/// bytes (docs/FORMAT.md): `fpdbMAN\x01` then a u32 in format 1; a frame
/// (`fpdb`, kind 1, version byte) from format 2 on.
fn stored_format(path: &Path) -> u32 {
    let rocks = fpdb_testkit::open_raw_read_only(path);
    let meta = rocks.cf_handle("meta").unwrap();
    let bytes = rocks.get_cf(meta, "manifest").unwrap().unwrap();
    if bytes.starts_with(b"fpdbMAN\x01") {
        return u32::from_be_bytes(bytes[8..12].try_into().unwrap());
    }
    assert_eq!(&bytes[..5], b"fpdb\x01");
    u32::from(bytes[5])
}
