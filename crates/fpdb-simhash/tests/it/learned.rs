//! Learned weights: the table learned from fixed text and the fingerprints
//! it gives are persisted data, pinned by golden vectors; the fingerprint
//! from a text's feature hashes equals the text's own.
//!
//! After an intended change of how weights are learned (a database keeps
//! the table it learned, so its fingerprints stay; a change in how a
//! stored table weighs a text needs a new database format version instead),
//! regenerate the golden file with
//! `FPDB_BLESS_GOLDEN=1 cargo test --release -p fpdb-simhash --test it learned::`
//! and say why in the commit.

use std::path::PathBuf;
use std::sync::Arc;

use crate::common::{data_dir, golden_vectors};
use fpdb_simhash::{Fingerprint, LearnedIdf, SimhashOptions, Simhasher, Tokenizer, Weighting};
use serde::{Deserialize, Serialize};

/// The paragraphs of the repository's articles, sorted by file name, and
/// an English site's pages that share its navigation and footer.
fn learning_texts() -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir().join("text"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut texts: Vec<String> = files
        .iter()
        .flat_map(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    texts.extend(ENGLISH_TOPICS.iter().map(|topic| english_page(topic)));
    texts
}

const ENGLISH_TOPICS: &[&str] = &[
    "The river flooded the lower town after three days of rain, and volunteers filled sandbags.",
    "A new railway line links the harbour with the airport in forty minutes.",
    "The museum reopened its gallery of maps with a collection of sea charts.",
    "Farmers in the hills began the tea harvest early because of a warm spring.",
    "The city library now lends tools, seeds and musical instruments.",
    "Charging stations for electric buses were installed at every depot.",
];

fn english_page(topic: &str) -> String {
    format!("Home | World | Business | Sport | Weather. {topic} Share this story. Subscribe to our newsletter. Copyright Daily Example.")
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Vector {
    tokenizer: String,
    /// `digest` for the table line, else the text's name.
    name: String,
    value: String,
}

const TEXTS: &[(&str, &str)] = &[
    ("empty", ""),
    ("punctuation", "，。！？、；：“”‘’（）《》——……!?.,;:"),
    ("chinese", "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。"),
    ("english", "Volunteers filled sandbags when the river flooded the harbour; the railway to the airport closed for a day."),
    ("mixed", "Rust 编写的 fpdb 使用 64 位 simhash 指纹，在 RocksDB 中保存排序后的置换表。"),
    ("unseen", "zyxwv qutsr ponml"),
];

const TOKENIZERS: &[Tokenizer] = &[Tokenizer::Jieba, Tokenizer::Words, Tokenizer::Chars(3)];

fn learned(tokenizer: Tokenizer) -> Simhasher {
    let plain = Simhasher::new(SimhashOptions {
        tokenizer,
        weighting: Weighting::Tf,
    });
    let features: Vec<Vec<u64>> = learning_texts()
        .iter()
        .map(|text| plain.feature_hashes(text))
        .collect();
    let idf = LearnedIdf::learn(features.iter().map(Vec::as_slice));
    Simhasher::learned(tokenizer, Arc::new(idf))
}

fn compute_all() -> Vec<Vector> {
    let mut vectors = Vec::new();
    for &tokenizer in TOKENIZERS {
        let simhasher = learned(tokenizer);
        let idf = simhasher.learned_idf().unwrap();
        vectors.push(Vector {
            tokenizer: tokenizer.to_string(),
            name: "digest".into(),
            value: format!(
                "{:016x} from {} documents, {} features",
                idf.digest(),
                idf.documents(),
                idf.len()
            ),
        });
        for (name, text) in TEXTS {
            vectors.push(Vector {
                tokenizer: tokenizer.to_string(),
                name: (*name).into(),
                value: simhasher.fingerprint(text).to_string(),
            });
        }
    }
    vectors
}

#[test]
fn learned_tables_and_fingerprints_match_golden_vectors() {
    let path = data_dir().join("golden/learned.jsonl");
    let Some(stored) = golden_vectors::<Vector>(&path, compute_all) else {
        return;
    };
    assert_eq!(stored, compute_all());
}

#[test]
fn the_fingerprint_of_feature_hashes_is_the_texts() {
    for &tokenizer in TOKENIZERS {
        let simhasher = learned(tokenizer);
        let idf = simhasher.learned_idf().unwrap();
        let mut texts = learning_texts();
        texts.extend(TEXTS.iter().map(|(_, text)| (*text).to_string()));
        for text in &texts {
            assert_eq!(
                idf.fingerprint(&simhasher.feature_hashes(text)),
                simhasher.fingerprint(text),
                "{tokenizer}: {text}"
            );
        }
    }
}

#[test]
fn template_words_weigh_little_and_unseen_words_nothing() {
    let simhasher = learned(Tokenizer::Words);
    let features = simhasher.features(&english_page(ENGLISH_TOPICS[0]));
    let weight = |word: &str| {
        features
            .iter()
            .find(|f| f.text == word)
            .map_or(0, |f| f.weight)
    };
    // "subscribe" is on every English page (6 of the learned documents),
    // "sandbags" on one.
    assert!(weight("subscribe") > 0);
    assert!(weight("sandbags") > 3 * weight("subscribe"));
    assert_eq!(simhasher.fingerprint("zyxwv qutsr ponml"), Fingerprint(0));
    // The options name the table, and parse back.
    let options = simhasher.options();
    let digest = simhasher.learned_idf().unwrap().digest();
    assert_eq!(options.weighting, Weighting::Learned { digest });
    assert_eq!(
        options.weighting.to_string().parse::<Weighting>().unwrap(),
        options.weighting
    );
}

#[test]
fn learned_options_without_the_table_weigh_nothing() {
    let simhasher = learned(Tokenizer::Jieba);
    let bare = Simhasher::new(simhasher.options());
    assert_eq!(bare.fingerprint(TEXTS[2].1), Fingerprint(0));
    assert_ne!(simhasher.fingerprint(TEXTS[2].1), Fingerprint(0));
}
