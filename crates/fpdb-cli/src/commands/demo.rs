//! `fpdb demo`: the main job on the bundled corpus in `data/`.
//!
//! Creates a database in a temporary directory, stores every document,
//! then asks the database for the near-duplicates of every document and
//! shows a few pairs side by side. The pairs are checked against the
//! near-duplicates planted when the corpus was made, and against comparing
//! every pair directly (brute force), which the database must agree with.
//! Then the same corpus in two stages (`demo_two_stages`), and web pages:
//! one article under two site templates and charsets.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fpdb::{Db, Fingerprint, Options};

use super::demo_planted::{ordered, read_truth, Planted};
use crate::cli::{DemoArgs, InputFormat};
use crate::input::{self, Payload, Role};

pub fn run(args: DemoArgs) -> Result<()> {
    let corpus = match args.corpus {
        Some(path) => path,
        None => default_corpus()?,
    };
    let documents = read_corpus(&corpus)?;
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let options = Options::default()
        .k(args.k)
        .expected_size(documents.len() as u64);
    let mut db = Db::create(dir.path().join("demo.fpdb"), options)?;
    let text_bytes: usize = documents.iter().map(|d| d.text.len()).sum();
    outln!(
        "fpdb demo: near-duplicate detection on {}",
        corpus.display()
    );
    outln!(
        "  {} documents, {:.1} KiB of text, simhash options: {}",
        documents.len(),
        text_bytes as f64 / 1024.0,
        db.simhasher().options()
    );
    outln!(
        "  a temporary database with design {}\n",
        db.design_description()
    );

    let (fingerprints, mut timings) = fingerprint_and_load(&mut db, &documents)?;
    // Ask the database for every document's near-duplicates.
    let started = Instant::now();
    let answers = db.query_batch(&fingerprints, args.k)?;
    timings.query = started.elapsed();
    let found = found_pairs(&documents, &answers);
    show_pairs(&db, &documents, &found, (args.k, args.show))?;
    // The near-duplicates planted when the corpus was made, when
    // `corpus-truth.tsv` is beside it.
    let planted = read_truth(&corpus.with_file_name("corpus-truth.tsv")).unwrap_or_default();
    show_planted(&planted, &found)?;
    check_brute_force(&fingerprints, args.k, found.len())?;
    show_database(&db)?;
    timings.show(documents.len() as u64, text_bytes, args.k)?;
    outln!("");
    let texts: Vec<(&str, &str)> = documents
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let one_stage: HashSet<(&str, &str)> = found.keys().copied().collect();
    super::demo_two_stages::show(dir.path(), &texts, &planted, &one_stage)?;
    // Pages beside the corpus (data/golden/html), when they are there.
    if let Some(golden) = corpus.parent().map(|data| data.join("golden")) {
        if golden.join("html").is_dir() {
            outln!("");
            super::demo_pages::show(&golden)?;
        }
    }
    Ok(())
}

/// The documents of the corpus at `path`, JSON Lines with a text each and
/// unique ids.
fn read_corpus(corpus: &Path) -> Result<Vec<Document>> {
    let mut documents: Vec<Document> = Vec::new();
    input::from_parts(
        Some(InputFormat::Jsonl),
        std::slice::from_ref(&corpus.to_path_buf()),
        false,
        Role::Store,
    )
    .stream(|records| -> Result<()> {
        for record in records {
            let Payload::Text(text) = record.payload else {
                bail!("{}: document {} has no text", corpus.display(), record.id);
            };
            documents.push(Document {
                id: record.id,
                text,
            });
        }
        Ok(())
    })?;
    if documents.is_empty() {
        bail!("{} holds no documents", corpus.display());
    }
    let ids: HashSet<&str> = documents.iter().map(|d| d.id.as_str()).collect();
    if ids.len() != documents.len() {
        bail!("{}: document ids are not unique", corpus.display());
    }
    Ok(documents)
}

/// What the demo timed.
#[derive(Debug)]
struct Timings {
    fingerprinting: Duration,
    load: Duration,
    load_summary: fpdb::BulkSummary,
    query: Duration,
}

impl Timings {
    fn show(&self, n: u64, text_bytes: usize, k: u32) -> Result<()> {
        outln!("timings:");
        outln!(
            "  fingerprinting  {:>9.0} docs/s ({:.1} MB/s of text, one core)",
            super::rate(n, self.fingerprinting),
            text_bytes as f64 / self.fingerprinting.as_secs_f64().max(1e-9) / 1e6
        );
        outln!(
            "  bulk load       {:>9.0} docs/s ({} ids, {} distinct fingerprints, {:.1} ms)",
            super::rate(n, self.load),
            self.load_summary.ids,
            self.load_summary.fingerprints,
            self.load.as_secs_f64() * 1e3
        );
        outln!(
            "  query           {:>9.1} µs per query (k = {k}, batch of {n})",
            self.query.as_secs_f64() * 1e6 / n as f64,
        );
        Ok(())
    }
}

/// Fingerprints every document with the database's own simhash options
/// and bulk loads them: the offline path, sorted tables with code books
/// fitted to the data, written as SST files and ingested in one step.
fn fingerprint_and_load(
    db: &mut Db,
    documents: &[Document],
) -> Result<(Vec<Fingerprint>, Timings)> {
    // The first text loads jieba's dictionary, which is not timed.
    db.fingerprint_text("预热");
    let started = Instant::now();
    let fingerprints: Vec<Fingerprint> = documents
        .iter()
        .map(|d| db.fingerprint_text(&d.text))
        .collect();
    let fingerprinting = started.elapsed();
    let started = Instant::now();
    let mut loader = db.bulk_loader(fpdb::BulkOptions::default())?;
    loader.add_all(
        documents
            .iter()
            .map(|d| d.id.as_str())
            .zip(fingerprints.iter().copied()),
    )?;
    let load_summary = loader.finish()?;
    let timings = Timings {
        fingerprinting,
        load: started.elapsed(),
        load_summary,
        query: Duration::ZERO,
    };
    Ok((fingerprints, timings))
}

/// The pairs of documents the answers name, each once with its distance.
fn found_pairs<'a>(
    documents: &'a [Document],
    answers: &'a [Vec<fpdb::Match>],
) -> BTreeMap<(&'a str, &'a str), u32> {
    let mut found: BTreeMap<(&str, &str), u32> = BTreeMap::new();
    for (document, matches) in documents.iter().zip(answers) {
        for m in matches {
            for other in &m.ids {
                if *other != document.id {
                    found.insert(ordered(&document.id, other), m.distance);
                }
            }
        }
    }
    found
}

/// The pairs found within `k`, the most subtle first, `show` of them side
/// by side.
fn show_pairs(
    db: &Db,
    documents: &[Document],
    found: &BTreeMap<(&str, &str), u32>,
    (k, show): (u32, usize),
) -> Result<()> {
    let by_id: HashMap<&str, &Document> = documents.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut pairs: Vec<Pair<'_>> = Vec::with_capacity(found.len());
    for (&(a, b), &distance) in found {
        let (Some(&a), Some(&b)) = (by_id.get(a), by_id.get(b)) else {
            bail!("the database returned an id that is not in the corpus");
        };
        pairs.push(Pair {
            fa: db.fingerprint_text(&a.text),
            fb: db.fingerprint_text(&b.text),
            a,
            b,
            distance,
        });
    }
    // The subtle pairs (largest distance still within k) are the interesting ones.
    pairs.sort_by_key(|p| std::cmp::Reverse(p.distance));
    outln!(
        "near-duplicates: {} pairs of documents whose fingerprints differ in at most k = {} of 64 bits",
        pairs.len(),
        k
    );
    outln!("(the most subtle first; distance = number of differing bits)\n");
    for pair in pairs.iter().take(show) {
        pair.show()?;
    }
    if pairs.len() > show {
        outln!(
            "  ... and {} more pairs (--show N to see more)\n",
            pairs.len() - show
        );
    }
    Ok(())
}

/// How many of the near-duplicates planted when the corpus was made were
/// found.
fn show_planted(planted: &[Planted], found: &BTreeMap<(&str, &str), u32>) -> Result<()> {
    if planted.is_empty() {
        return Ok(());
    }
    let found: HashSet<(&str, &str)> = found.keys().copied().collect();
    let planted: HashSet<(&str, &str)> = planted.iter().map(Planted::pair).collect();
    let hits = planted.intersection(&found).count();
    let other = found.len() - hits;
    outln!(
        "planted near-duplicates found: {hits} of {} ({:.0}%); pairs reported that were not planted: {other}",
        planted.len(),
        100.0 * hits as f64 / planted.len().max(1) as f64
    );
    outln!("(the edits are: 1% of characters replaced, a site header and footer, new dates and counters, one sentence dropped)");
    Ok(())
}

/// The database must find exactly the `found` pairs comparing every pair
/// of `fingerprints` finds.
fn check_brute_force(fingerprints: &[Fingerprint], k: u32, found: usize) -> Result<()> {
    let mut brute = 0usize;
    for (i, fa) in fingerprints.iter().enumerate() {
        brute += fingerprints
            .iter()
            .skip(i + 1)
            .filter(|fb| fa.distance(**fb) <= k)
            .count();
    }
    let compared = fingerprints.len() * (fingerprints.len() - 1) / 2;
    if brute != found {
        bail!("the database found {found} pairs but comparing all {compared} pairs finds {brute}");
    }
    outln!("checked against comparing all {compared} pairs directly: the same {brute} pairs\n");
    Ok(())
}

/// What the database holds and what it takes.
fn show_database(db: &Db) -> Result<()> {
    let stats = db.stats();
    let block_bytes: u64 = stats.tables.iter().map(|t| t.bytes).sum();
    let bits: Vec<String> = stats
        .tables
        .iter()
        .map(|t| format!("{:.1}", t.bits_per_fingerprint))
        .collect();
    outln!("the database:");
    outln!(
        "  {} fingerprints for {} ids in {} permuted tables (each a sorted copy of every fingerprint, compressed)",
        stats.fingerprints,
        stats.ids,
        stats.tables.len()
    );
    outln!(
        "  {block_bytes} bytes of blocks; bits per fingerprint per table: {}",
        bits.join(" ")
    );
    outln!(
        "  {} bytes of in-memory block directory",
        stats.directory_bytes
    );
    Ok(())
}

/// One corpus document.
#[derive(Debug)]
struct Document {
    id: String,
    text: String,
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
    fn show(&self) -> Result<()> {
        outln!("  distance {}: {} vs {}", self.distance, self.fa, self.fb);
        outln!("    {}\n      {}", self.a.id, super::snippet(&self.a.text));
        outln!(
            "    {}\n      {}\n",
            self.b.id,
            super::snippet(&self.b.text)
        );
        Ok(())
    }
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
