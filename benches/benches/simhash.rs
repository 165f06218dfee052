//! Fingerprinting throughput (MB/s of UTF-8 input) for each tokenizer and
//! weighting, on Chinese and English text.
//!
//! Chinese: the paragraphs of data/text/, repeated to 1 MiB. English: text
//! composed from a fixed vocabulary by a seeded generator, 1 MiB. The
//! baseline in the same run is the bare cost of reading the text once
//! (counting its characters), which no tokenizer can beat, and jieba-rs's
//! segmentation alone (`Jieba::cut` without HMM), the floor for the jieba
//! tokenizer.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench and harness code: a broken setup should panic loudly"
)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fpdb_benches::articles::{article_paragraphs, default_articles_dir};
use fpdb_benches::rng::Rng;
use fpdb_simhash::{SimhashOptions, Simhasher, Tokenizer, Weighting};
use std::hint::black_box;
use std::time::Duration;

const DOCUMENT_BYTES: usize = 4 * 1024;
const INPUT_BYTES: usize = 1024 * 1024;

/// Documents of about 4 KiB each (a web page's text), 1 MiB in all.
fn chinese_documents() -> Vec<String> {
    let paragraphs =
        article_paragraphs(&default_articles_dir(), 50, 2000).expect("articles in data/text");
    assert!(!paragraphs.is_empty(), "no paragraphs in data/text");
    compose(paragraphs.iter().cycle().map(String::as_str))
}

fn english_documents() -> Vec<String> {
    const WORDS: &[&str] = &[
        "crawler",
        "page",
        "duplicate",
        "fingerprint",
        "index",
        "table",
        "block",
        "search",
        "query",
        "engine",
        "web",
        "server",
        "content",
        "article",
        "news",
        "market",
        "city",
        "water",
        "energy",
        "system",
        "data",
        "network",
        "people",
        "report",
        "policy",
        "science",
        "music",
        "history",
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "for",
        "with",
        "on",
        "that",
        "by",
        "as",
        "from",
        "large",
        "small",
        "new",
        "old",
        "quickly",
        "slowly",
        "found",
        "shows",
        "stores",
        "reads",
    ];
    let mut rng = Rng::new(42);
    let sentences = std::iter::repeat_with(move || {
        let n = 8 + rng.below(12);
        let mut s: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        s.push(".");
        s.join(" ")
    });
    let owned: Vec<String> = sentences.take(INPUT_BYTES / 40).collect();
    compose(owned.iter().map(String::as_str))
}

fn compose<'a>(pieces: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut documents = Vec::new();
    let mut current = String::new();
    let mut total = 0;
    for piece in pieces {
        current.push_str(piece);
        current.push('\n');
        if current.len() >= DOCUMENT_BYTES {
            total += current.len();
            documents.push(std::mem::take(&mut current));
            if total >= INPUT_BYTES {
                break;
            }
        }
    }
    documents
}

fn throughput(c: &mut Criterion) {
    let corpora = [
        ("chinese", chinese_documents()),
        ("english", english_documents()),
    ];
    let configs = [
        (Tokenizer::Jieba, Weighting::Tf),
        (Tokenizer::Jieba, Weighting::TfIdf { top_n: Some(8) }),
        (Tokenizer::Jieba, Weighting::TfIdf { top_n: None }),
        (Tokenizer::Chars(4), Weighting::Tf),
        (Tokenizer::Words, Weighting::Tf),
    ];
    for (language, documents) in &corpora {
        let bytes: usize = documents.iter().map(String::len).sum();
        let mut group = c.benchmark_group(format!("fingerprint/{language}"));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(3));
        group.warm_up_time(Duration::from_secs(1));
        group.bench_function("baseline: count chars", |b| {
            b.iter(|| {
                documents
                    .iter()
                    .map(|d| black_box(d).chars().count())
                    .sum::<usize>()
            })
        });
        let jieba = jieba_rs::Jieba::new();
        group.bench_function("baseline: jieba-rs cut alone", |b| {
            b.iter(|| {
                documents
                    .iter()
                    .map(|d| jieba.cut(black_box(d), false).len())
                    .sum::<usize>()
            })
        });
        for (tokenizer, weighting) in configs {
            let simhasher = Simhasher::new(SimhashOptions {
                tokenizer,
                weighting,
            });
            let name = format!("{tokenizer}/{weighting}");
            group.bench_with_input(BenchmarkId::from_parameter(name), documents, |b, docs| {
                b.iter(|| {
                    docs.iter()
                        .map(|d| simhasher.fingerprint(black_box(d)).0)
                        .fold(0, |a, f| a ^ f)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
