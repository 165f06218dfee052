//! Fingerprinting throughput (MB/s of UTF-8 input) for each tokenizer and
//! weighting, on Chinese and English text; and of HTML pages (MB/s of
//! HTML), from bytes to text to fingerprint.
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
use fpdb_html::{page_text, Extract};
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

/// Ten samples over three seconds: the inputs are 1 MiB, so each sample
/// is long enough.
fn short_runs(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
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
        short_runs(&mut group);
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

/// The articles of data/text inside two site templates (navigation, a
/// sidebar of headlines, a footer, a script), repeated to 1 MiB of HTML.
fn html_pages() -> Vec<Vec<u8>> {
    let paragraphs =
        article_paragraphs(&default_articles_dir(), 50, 2000).expect("articles in data/text");
    let headlines: String = paragraphs
        .iter()
        .take(8)
        .enumerate()
        .map(|(i, p)| {
            format!(
                "<li><a href=\"/news/{i}.html\">{}</a></li>",
                p.chars().take(14).collect::<String>()
            )
        })
        .collect();
    let mut pages = Vec::new();
    let mut total = 0;
    for (i, chunk) in paragraphs.chunks(4).cycle().enumerate() {
        let body: String = chunk.iter().map(|p| format!("<p>{p}</p>\n")).collect();
        let page = if i % 2 == 0 {
            format!(
                "<!doctype html><html><head><meta charset=\"utf-8\"><title>新闻</title><style>.nav{{float:left}}</style></head><body>\
                 <div class=\"nav\"><a href=\"/\">首页</a> <a href=\"/city\">城市</a> <a href=\"/sport\">体育</a></div>\
                 <div class=\"article-content\"><h1>新闻</h1>{body}</div><div class=\"sidebar\"><ul>{headlines}</ul></div>\
                 <div class=\"footer\">版权所有</div><script>var views = {i};</script></body></html>"
            )
        } else {
            format!(
                "<html><body><nav><a href=\"/\">门户首页</a></nav><aside><ol>{headlines}</ol></aside>\
                 <article><h2>新闻</h2>{body}</article><footer>阅读次数：{i}</footer></body></html>"
            )
        };
        total += page.len();
        pages.push(page.into_bytes());
        if total >= INPUT_BYTES {
            break;
        }
    }
    pages
}

fn html(c: &mut Criterion) {
    let pages = html_pages();
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("html");
    group.throughput(Throughput::Bytes(bytes as u64));
    short_runs(&mut group);
    group.bench_function("baseline: html5ever parse alone", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|page| {
                    dom_query::Document::from(std::str::from_utf8(page).unwrap())
                        .select("p")
                        .length()
                })
                .sum::<usize>()
        })
    });
    for extract in [Extract::Main, Extract::All] {
        group.bench_function(format!("page_text {extract}"), |b| {
            b.iter(|| {
                pages
                    .iter()
                    .map(|page| {
                        page_text(black_box(page), None, extract)
                            .unwrap()
                            .text
                            .len()
                    })
                    .sum::<usize>()
            })
        });
    }
    let simhasher = Simhasher::default();
    group.bench_function("page → fingerprint (main, default simhash)", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|page| {
                    simhasher
                        .fingerprint(
                            &page_text(black_box(page), None, Extract::Main)
                                .unwrap()
                                .text,
                        )
                        .0
                })
                .fold(0, |a, f| a ^ f)
        })
    });
    group.finish();
}

criterion_group!(benches, throughput, html);
criterion_main!(benches);
