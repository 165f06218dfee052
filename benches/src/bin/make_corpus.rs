//! Writes the sample corpus in `data/`: Chinese documents composed from
//! jieba's dictionary words, some of them copied with the edits a crawler
//! meets (see `fpdb_benches::edits`), plus the list of planted pairs.
//!
//! Usage: `cargo run --release -p fpdb-benches --bin make_corpus -- [DICT] [OUT_DIR]`
//!
//! DICT is jieba's `dict.txt` (one `word frequency tag` per line); by default
//! the copy inside the jieba-rs crate source in Cargo's registry is used.
//! The output is deterministic for a given dictionary.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench and harness code: a broken setup should panic loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use fpdb_benches::edits::EditKind;
use fpdb_benches::rng::Rng;

const ORIGINALS: usize = 300;
/// Every fifth original gets edited copies.
const COPIED_EVERY: usize = 5;
const TOPIC_WORDS: usize = 40;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dict = match args.next() {
        Some(path) => PathBuf::from(path),
        None => find_jieba_dict()?,
    };
    let out_dir = args.next().map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"),
        PathBuf::from,
    );
    let words = read_dictionary(&dict)?;
    let mut rng = Rng::new(0x00c0_ffee);

    let mut corpus = String::new();
    let mut truth = String::from("# id_a\tid_b\tedit\n");
    let mut copies = 0;
    for n in 0..ORIGINALS {
        let id = format!("https://news.example.com/{:04}.html", n + 1);
        let text = compose_document(&words, &mut rng);
        push_line(&mut corpus, &id, &text)?;
        if n % COPIED_EVERY == 0 {
            let kind = EditKind::ALL[(n / COPIED_EVERY) % EditKind::ALL.len()];
            let copy_id = format!("https://mirror.example.net/a/{:04}?from=feed", n + 1);
            let copy = kind.apply(&text, &mut rng);
            push_line(&mut corpus, &copy_id, &copy)?;
            writeln!(truth, "{id}\t{copy_id}\t{}", kind.name())?;
            copies += 1;
        }
    }
    fs::create_dir_all(&out_dir)?;
    fs::write(out_dir.join("corpus.jsonl"), corpus)?;
    fs::write(out_dir.join("corpus-truth.tsv"), truth)?;
    eprintln!(
        "wrote {} documents ({ORIGINALS} originals, {copies} edited copies) to {}",
        ORIGINALS + copies,
        out_dir.display()
    );
    Ok(())
}

fn push_line(out: &mut String, id: &str, text: &str) -> Result<()> {
    let line = serde_json::json!({ "id": id, "text": text });
    writeln!(out, "{line}")?;
    Ok(())
}

/// Dictionary words of 2 to 4 Chinese characters with their frequencies.
fn read_dictionary(path: &Path) -> Result<Vec<(String, u64)>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let words: Vec<(String, u64)> = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let word = fields.next()?;
            let freq: u64 = fields.next()?.parse().ok()?;
            let chars = word.chars().count();
            let han = word.chars().all(fpdb_benches::articles::is_han);
            (han && (2..=4).contains(&chars) && freq >= 50).then(|| (word.to_string(), freq))
        })
        .collect();
    if words.len() < 1000 {
        bail!("{} has only {} usable words", path.display(), words.len());
    }
    Ok(words)
}

/// jieba-rs ships its dictionary in its source; find it in Cargo's registry.
fn find_jieba_dict() -> Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let registry = home.join("registry/src");
    for index in
        fs::read_dir(&registry).with_context(|| format!("reading {}", registry.display()))?
    {
        let index = index?.path();
        let mut crates: Vec<PathBuf> = fs::read_dir(&index)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("jieba-rs-"))
            })
            .collect();
        crates.sort();
        if let Some(dict) = crates
            .iter()
            .rev()
            .map(|c| c.join("src/data/dict.txt"))
            .find(|d| d.exists())
        {
            return Ok(dict);
        }
    }
    bail!(
        "jieba-rs dict.txt not found under {}; pass its path",
        registry.display()
    )
}

/// A document about one topic: sentences mostly of the topic's words, with
/// common words between them, 200 to 1200 characters long.
fn compose_document(words: &[(String, u64)], rng: &mut Rng) -> String {
    let topic: Vec<&str> = (0..TOPIC_WORDS)
        .map(|_| words[rng.below(words.len())].0.as_str())
        .collect();
    let common: Vec<&str> = words
        .iter()
        .filter(|(_, freq)| *freq >= 20_000)
        .map(|(w, _)| w.as_str())
        .collect();
    let target_chars = 200 + rng.below(1000);
    let mut text = String::new();
    let mut chars = 0;
    while chars < target_chars {
        let sentence_words = 6 + rng.below(9);
        for i in 0..sentence_words {
            let word = if rng.below(10) < 6 || common.is_empty() {
                topic[rng.below(topic.len())]
            } else {
                common[rng.below(common.len())]
            };
            text.push_str(word);
            chars += word.chars().count();
            if i + 1 < sentence_words && rng.below(6) == 0 {
                text.push('，');
                chars += 1;
            }
        }
        text.push(['。', '。', '。', '！', '？'][rng.below(5)]);
        chars += 1;
    }
    text
}
