//! Makes a corpus with planted near-duplicates out of real articles: every
//! article once, and every fifth one again with one of the edits a crawler
//! meets (`fpdb_benches::edits`, in turn), as `data/corpus.jsonl` is made
//! from composed text. Writes `corpus.jsonl` ({"id", "text"}, the title on
//! the text's first line) and `corpus-truth.tsv` (the planted pairs) into
//! OUT_DIR. Deterministic for a given input.
//!
//! Usage: `plant_copies ARTICLES.jsonl OUT_DIR [LIMIT]`, ARTICLES one
//! {"title", "text"} object per line (what `benches/scripts/quality_corpus.py`
//! writes), LIMIT the number of articles to read (default all).
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench and harness code: a broken setup should panic loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use fpdb_benches::edits::EditKind;
use fpdb_benches::rng::Rng;

/// Every fifth article gets an edited copy.
const COPIED_EVERY: usize = 5;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(input), Some(out_dir)) = (args.next(), args.next()) else {
        bail!("usage: plant_copies ARTICLES.jsonl OUT_DIR [LIMIT]");
    };
    let limit = match args.next() {
        Some(n) => n.parse().context("LIMIT is a number")?,
        None => usize::MAX,
    };
    let out_dir = PathBuf::from(out_dir);
    let articles = fs::read_to_string(&input).with_context(|| format!("reading {input}"))?;
    let mut rng = Rng::new(0x00c0_ffee);
    let mut corpus = String::new();
    let mut truth = String::from("# id_a\tid_b\tedit\n");
    let (mut originals, mut copies) = (0, 0);
    for (n, line) in articles
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(limit)
        .enumerate()
    {
        let article: serde_json::Value =
            serde_json::from_str(line).with_context(|| format!("{input}:{}", n + 1))?;
        let title = article["title"].as_str().unwrap_or("");
        let body = article["text"]
            .as_str()
            .context("an article without text")?;
        let text = format!("{title}\n{body}");
        let id = format!("article/{:05}", n + 1);
        push_line(&mut corpus, &id, &text)?;
        originals += 1;
        if n % COPIED_EVERY == 0 {
            let kind = EditKind::ALL[(n / COPIED_EVERY) % EditKind::ALL.len()];
            let copy_id = format!("copy/{:05}", n + 1);
            push_line(&mut corpus, &copy_id, &kind.apply(&text, &mut rng))?;
            writeln!(truth, "{id}\t{copy_id}\t{}", kind.name())?;
            copies += 1;
        }
    }
    fs::create_dir_all(&out_dir)?;
    fs::write(out_dir.join("corpus.jsonl"), corpus)?;
    fs::write(out_dir.join("corpus-truth.tsv"), truth)?;
    eprintln!(
        "wrote {} documents ({originals} articles, {copies} edited copies) to {}",
        originals + copies,
        out_dir.display()
    );
    Ok(())
}

fn push_line(out: &mut String, id: &str, text: &str) -> Result<()> {
    let line = serde_json::json!({ "id": id, "text": text });
    writeln!(out, "{line}")?;
    Ok(())
}
