//! The planted sets as files, so that a whole `fpdb dedup` process can be
//! scored on exactly what the reports measure
//! (`benches/scripts/dedup_quality.py`): per set, `<set>.jsonl` with one
//! `{"id", "text"}` per document and `<set>-truth.tsv` with each
//! document's group (documents of one group are copies of one original)
//! and the planted pairs.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::corpus::Corpus;
use crate::eval;
use crate::two_stage_report::text_truth;
use crate::Args;

/// The seeds the probe report plants each set with, so the files hold the
/// documents it measured.
pub const SEEDS: [(&str, u64); 2] = [("articles", 0xa271_c1e5), ("paragraphs", 0x9a7a_9a9b)];

pub fn run(args: &Args, corpora: &[Corpus], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for c in corpora {
        for (set, seed) in SEEDS {
            let name = format!("{}-{set}", c.lang.code());
            if !args.wants(&name) {
                continue;
            }
            let originals = if set == "articles" {
                &c.articles
            } else {
                &c.paragraphs
            };
            let texts = eval::plant(originals, c.lang, seed);
            let truth = text_truth(texts.len());
            let mut jsonl = String::new();
            for (i, text) in texts.iter().enumerate() {
                let line = serde_json::json!({"id": i.to_string(), "text": text});
                writeln!(jsonl, "{line}")?;
            }
            let mut tsv = String::from("# group per document, then planted pairs: a\tb\tedit\n");
            for (i, group) in truth.group.iter().enumerate() {
                writeln!(tsv, "group\t{i}\t{group}")?;
            }
            for (a, b, edit) in &truth.planted {
                writeln!(tsv, "pair\t{a}\t{b}\t{edit}")?;
            }
            std::fs::write(dir.join(format!("{name}.jsonl")), jsonl)?;
            std::fs::write(dir.join(format!("{name}-truth.tsv")), tsv)?;
            println!(
                "{name}: {} documents, {} planted pairs",
                texts.len(),
                truth.planted.len()
            );
        }
    }
    Ok(())
}
