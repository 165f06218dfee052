//! `fpdb demo`: the main job on the bundled corpus in `data/`.
//!
//! Fingerprints every document, finds every pair within k bits, shows a
//! few of them side by side, and checks the result against the list of
//! near-duplicates planted when the corpus was made. Until the database
//! lands, pairs are found by comparing every pair (brute force).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fpdb::{Fingerprint, Simhasher};

use crate::cli::{DemoArgs, InputFormat};
use crate::input::{for_each_document, Document};

pub fn run(args: DemoArgs) -> Result<()> {
    let corpus = match args.corpus {
        Some(path) => path,
        None => default_corpus()?,
    };
    let mut documents = Vec::new();
    for_each_document(
        Some(InputFormat::Jsonl),
        std::slice::from_ref(&corpus),
        |d| {
            documents.push(d);
            Ok(())
        },
    )?;
    if documents.is_empty() {
        bail!("{} holds no documents", corpus.display());
    }
    let simhasher = Simhasher::default();
    let bytes: usize = documents.iter().map(|d| d.text.len()).sum();
    println!(
        "fpdb demo: near-duplicate detection on {}",
        corpus.display()
    );
    println!(
        "  {} documents, {:.1} KiB of text, simhash options: {}",
        documents.len(),
        bytes as f64 / 1024.0,
        simhasher.options()
    );

    let started = Instant::now();
    let fingerprints: Vec<Fingerprint> = documents
        .iter()
        .map(|d| simhasher.fingerprint(&d.text))
        .collect();
    let elapsed = started.elapsed();
    println!(
        "  fingerprinted in {:.1} ms ({:.1} MB/s on one core)",
        elapsed.as_secs_f64() * 1e3,
        bytes as f64 / elapsed.as_secs_f64().max(1e-9) / 1e6
    );

    let started = Instant::now();
    let hashed: Vec<(&Document, Fingerprint)> = documents.iter().zip(fingerprints).collect();
    let mut pairs: Vec<Pair> = Vec::new();
    for (i, &(a, fa)) in hashed.iter().enumerate() {
        for &(b, fb) in hashed.iter().skip(i + 1) {
            let distance = fa.distance(fb);
            if distance <= args.k {
                pairs.push(Pair {
                    a,
                    b,
                    fa,
                    fb,
                    distance,
                });
            }
        }
    }
    // The subtle pairs (largest distance still within k) are the interesting ones.
    pairs.sort_by_key(|p| std::cmp::Reverse(p.distance));
    let compared = documents.len() * (documents.len() - 1) / 2;
    println!(
        "  compared all {compared} pairs in {:.1} ms: {} within k = {} bits\n",
        started.elapsed().as_secs_f64() * 1e3,
        pairs.len(),
        args.k
    );

    for pair in pairs.iter().take(args.show) {
        pair.show();
    }
    if pairs.len() > args.show {
        println!(
            "  ... and {} more pairs (--show N to see more)\n",
            pairs.len() - args.show
        );
    }

    let truth_path = corpus.with_file_name("corpus-truth.tsv");
    if let Ok(truth) = read_truth(&truth_path) {
        let found: HashSet<(&str, &str)> =
            pairs.iter().map(|p| ordered(&p.a.id, &p.b.id)).collect();
        let planted: HashSet<(&str, &str)> = truth.iter().map(|(a, b)| ordered(a, b)).collect();
        let hits = planted.intersection(&found).count();
        let other = found.len() - hits;
        println!(
            "planted near-duplicates found: {hits} of {} ({:.0}%); pairs reported that were not planted: {other}",
            planted.len(),
            100.0 * hits as f64 / planted.len().max(1) as f64
        );
        println!("(the edits are: 1% of characters replaced, a site header and footer, new dates and counters, one sentence dropped)");
    }
    Ok(())
}

/// Two documents within k bits of each other.
struct Pair<'a> {
    a: &'a Document,
    b: &'a Document,
    fa: Fingerprint,
    fb: Fingerprint,
    distance: u32,
}

impl Pair<'_> {
    fn show(&self) {
        println!("  distance {}: {} vs {}", self.distance, self.fa, self.fb);
        println!("    {}\n      {}", self.a.id, snippet(&self.a.text));
        println!("    {}\n      {}\n", self.b.id, snippet(&self.b.text));
    }
}

fn snippet(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    let mut out: String = flat.chars().take(48).collect();
    if flat.chars().count() > 48 {
        out.push('…');
    }
    out
}

fn ordered<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn read_truth(path: &Path) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut fields = l.split('\t');
            Some((fields.next()?.to_string(), fields.next()?.to_string()))
        })
        .collect())
}

/// `data/corpus.jsonl` of the current directory, else of the source tree
/// this binary was built from.
fn default_corpus() -> Result<PathBuf> {
    let here = PathBuf::from("data/corpus.jsonl");
    if here.exists() {
        return Ok(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/corpus.jsonl");
    if built.exists() {
        return Ok(built);
    }
    Err(anyhow::anyhow!(
        "no data/corpus.jsonl here or in {}",
        built.display()
    ))
    .context("pass --corpus PATH")
}
