//! Fingerprints are persisted data: they must never change silently.
//!
//! `data/golden/simhash.jsonl` holds (text, options, expected fingerprint)
//! vectors. This test fails if any fingerprint changes. After an intended
//! change of the fingerprint definition (which also needs a new database
//! format version), regenerate the file with
//! `FPDB_BLESS_GOLDEN=1 cargo test --release -p fpdb-simhash --test it golden::`
//! and say why in the commit.

use std::path::PathBuf;

use crate::common::{data_dir, golden_vectors};
use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Vector {
    name: String,
    tokenizer: String,
    weights: String,
    text: String,
    fingerprint: String,
}

fn golden_path() -> PathBuf {
    data_dir().join("golden/simhash.jsonl")
}

/// The inputs the golden file covers: Chinese, English, mixed, full-width,
/// empty, whitespace-only and punctuation-only text.
const TEXTS: &[(&str, &str)] = &[
    ("empty", ""),
    ("whitespace", " \t\n\u{3000}\r\n  "),
    ("punctuation", "，。！？、；：“”‘’（）《》——……!?.,;:"),
    ("chinese", "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。指纹数据库可以快速判断一个新网页是否与已经见过的网页近似重复。"),
    ("chinese_edited", "网络爬虫每天抓取大量网页，其中很多网页内容几乎相同，只是广告、日期或计数器有所不同。指纹数据库可以快速判断一个新网页是否与已经见过的网页近似重复。"),
    ("english", "A web crawler fetches millions of pages a day. Many of them are near-duplicates: the same article with different ads, dates or counters."),
    ("mixed", "Rust 编写的 fpdb 使用 64 位 simhash 指纹，在 RocksDB 中保存排序后的置换表，查询时只解压一个数据块。"),
    ("full_width", "ＦＰＤＢ　指纹数据库　ＶＥＲＳＩＯＮ　１"),
    ("single_word", "数据库"),
];

const OPTIONS: &[&str] = &[
    "jieba/tfidf:8",
    "jieba/tf",
    "jieba/tfidf",
    "chars:4/tf",
    "chars:4/tfidf:20",
    "words/tf",
    "words/tfidf:5",
];

fn parse_options(spec: &str) -> SimhashOptions {
    let (tokenizer, weights) = spec.split_once('/').unwrap();
    SimhashOptions {
        tokenizer: tokenizer.parse().unwrap(),
        weighting: weights.parse().unwrap(),
    }
}

fn compute_all() -> Vec<Vector> {
    let mut vectors = Vec::new();
    for spec in OPTIONS {
        let options = parse_options(spec);
        let simhasher = Simhasher::new(options);
        for (name, text) in TEXTS {
            vectors.push(Vector {
                name: (*name).to_string(),
                tokenizer: options.tokenizer.to_string(),
                weights: options.weighting.to_string(),
                text: (*text).to_string(),
                fingerprint: simhasher.fingerprint(text).to_string(),
            });
        }
    }
    vectors
}

#[test]
fn fingerprints_match_golden_vectors() {
    let path = golden_path();
    let Some(stored) = golden_vectors::<Vector>(&path, compute_all) else {
        return;
    };
    assert_eq!(
        stored.len(),
        TEXTS.len() * OPTIONS.len(),
        "golden file is incomplete"
    );
    let mut changed = Vec::new();
    for vector in &stored {
        let options = parse_options(&format!("{}/{}", vector.tokenizer, vector.weights));
        let expected: Fingerprint = vector.fingerprint.parse().unwrap();
        let got = Simhasher::new(options).fingerprint(&vector.text);
        if got != expected {
            changed.push(format!(
                "{} [{options}]: expected {expected}, got {got}",
                vector.name
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "fingerprints changed:\n{}",
        changed.join("\n")
    );
}

#[test]
fn text_without_features_has_fingerprint_zero() {
    for spec in OPTIONS {
        let simhasher = Simhasher::new(parse_options(spec));
        for text in ["", "   \n\t", "，。！？…"] {
            assert_eq!(
                simhasher.fingerprint(text),
                Fingerprint(0),
                "{spec} {text:?}"
            );
        }
        // Word tokenizers drop stop words; character shingles keep them.
        if !spec.starts_with("chars") {
            assert_eq!(simhasher.fingerprint("的了是在"), Fingerprint(0), "{spec}");
        }
    }
}
