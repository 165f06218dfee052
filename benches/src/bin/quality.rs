//! Detection-quality report: how many planted near-duplicates each
//! tokenizer/weighting finds at k = 3..6, and how many of the pairs it
//! reports are real.
//!
//! Usage: `cargo run --release -p fpdb-benches --bin quality -- [SEED_DIR] [--copies N] [--max-k K] [--configs jieba/tf,chars:4/tfidf:20,...]`
//!
//! Every paragraph of 150–600 characters of the articles (data/text/, or a
//! directory named on the command line) is an
//! original. For each original and each edit kind, `--copies` edited copies
//! are planted (default 3). Recall per kind is the share of (original, copy)
//! pairs within k bits. Precision is over all pairs of all documents
//! (originals and copies): a reported pair is real when both documents come
//! from the same original.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench and harness code: a broken setup should panic loudly"
)]

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use fpdb_benches::articles::{article_paragraphs, default_articles_dir};
use fpdb_benches::edits::EditKind;
use fpdb_benches::rng::Rng;
use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher, Tokenizer, Weighting};

struct Document {
    origin: usize,
    edit: Option<EditKind>,
    text: String,
}

fn main() -> Result<()> {
    let mut seed_dir = default_articles_dir();
    let mut copies = 3usize;
    let mut configs_arg: Option<String> = None;
    let mut max_k = 6u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--copies" => copies = args.next().context("--copies N")?.parse()?,
            "--max-k" => max_k = args.next().context("--max-k K")?.parse()?,
            "--configs" => configs_arg = Some(args.next().context("--configs LIST")?),
            _ if arg.starts_with('-') => bail!("unknown option {arg}"),
            _ => seed_dir = PathBuf::from(arg),
        }
    }
    let originals = article_paragraphs(&seed_dir, 150, 600)
        .with_context(|| format!("reading articles in {}", seed_dir.display()))?;
    if originals.len() < 2 {
        bail!(
            "found {} paragraphs in {}",
            originals.len(),
            seed_dir.display()
        );
    }
    let documents = plant_edits(&originals, copies);
    let configs = match configs_arg {
        Some(list) => list
            .split(',')
            .map(parse_config)
            .collect::<Result<Vec<_>>>()?,
        None => default_configs(),
    };

    let chars: usize = originals.iter().map(|p| p.chars().count()).sum();
    println!(
        "corpus: {} paragraphs ({} chars, mean {}) from {}, {} edited copies per kind, {} documents, {} pairs",
        originals.len(),
        chars,
        chars / originals.len(),
        seed_dir.display(),
        copies,
        documents.len(),
        documents.len() * (documents.len() - 1) / 2
    );
    print!("\n| options | k |");
    for kind in EditKind::ALL {
        print!(" {} |", kind.name());
    }
    println!(" recall | precision | false pairs |");
    print!("|---|---|");
    for _ in EditKind::ALL {
        print!("---|");
    }
    println!("---|---|---|");
    for options in configs {
        let simhasher = Simhasher::new(options);
        let fingerprints: Vec<Fingerprint> = documents
            .iter()
            .map(|d| simhasher.fingerprint(&d.text))
            .collect();
        for k in 3..=max_k {
            print_row(options, k, &documents, &fingerprints);
        }
    }
    Ok(())
}

fn parse_config(text: &str) -> Result<SimhashOptions> {
    let (tokenizer, weighting) = text
        .split_once('/')
        .with_context(|| format!("config {text:?} is not TOKENIZER/WEIGHTS"))?;
    Ok(SimhashOptions {
        tokenizer: tokenizer.parse()?,
        weighting: weighting.parse()?,
    })
}

fn default_configs() -> Vec<SimhashOptions> {
    let mut configs = Vec::new();
    for tokenizer in [Tokenizer::Jieba, Tokenizer::Chars(4), Tokenizer::Words] {
        for weighting in [
            Weighting::Tf,
            Weighting::TfIdf { top_n: None },
            Weighting::TfIdf { top_n: Some(20) },
        ] {
            configs.push(SimhashOptions {
                tokenizer,
                weighting,
            });
        }
    }
    configs
}

fn plant_edits(originals: &[String], copies: usize) -> Vec<Document> {
    let mut rng = Rng::new(0x5eed_2007);
    let mut documents = Vec::new();
    for (origin, text) in originals.iter().enumerate() {
        documents.push(Document {
            origin,
            edit: None,
            text: text.clone(),
        });
        for kind in EditKind::ALL {
            for _ in 0..copies {
                documents.push(Document {
                    origin,
                    edit: Some(kind),
                    text: kind.apply(text, &mut rng),
                });
            }
        }
    }
    documents
}

fn print_row(
    options: SimhashOptions,
    k: u32,
    documents: &[Document],
    fingerprints: &[Fingerprint],
) {
    let mut found = [0usize; EditKind::ALL.len()];
    let mut planted = [0usize; EditKind::ALL.len()];
    let mut reported = 0usize;
    let mut false_pairs = 0usize;
    for (i, a) in documents.iter().enumerate() {
        for (j, b) in documents.iter().enumerate().skip(i + 1) {
            let near = fingerprints[i].distance(fingerprints[j]) <= k;
            if near {
                reported += 1;
                if a.origin != b.origin {
                    false_pairs += 1;
                }
            }
            if let (None, Some(kind)) = (a.edit, b.edit) {
                if a.origin == b.origin {
                    let slot = EditKind::ALL.iter().position(|&e| e == kind).unwrap_or(0);
                    planted[slot] += 1;
                    found[slot] += usize::from(near);
                }
            }
        }
    }
    let percent = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    print!("| {}/{} | {k} |", options.tokenizer, options.weighting);
    for (f, p) in found.iter().zip(planted) {
        print!(" {:.1}% |", percent(*f, p));
    }
    let total_found: usize = found.iter().sum();
    let total_planted: usize = planted.iter().sum();
    let precision = if reported == 0 {
        100.0
    } else {
        percent(reported - false_pairs, reported)
    };
    println!(
        " {:.1}% | {:.2}% | {} |",
        percent(total_found, total_planted),
        precision,
        false_pairs
    );
}
