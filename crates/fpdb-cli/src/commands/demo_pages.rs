//! The demo's web pages: one article inside two site templates and two
//! charsets (`data/golden/html/`), side by side with what fpdb extracts,
//! and how far apart their fingerprints are with and without extraction.

use std::path::Path;

use anyhow::{Context, Result};
use fpdb::html::page_text;
use fpdb::{Extract, Simhasher};

/// The page pairs shown: (first page, second page) under `html/`.
const PAIRS: [(&str, &str); 2] = [
    ("tea-site-a.utf8.html", "tea-site-b.gbk.html"),
    (
        "loans-site-a.utf8.html",
        "loans-site-b.gb18030-no-meta.html",
    ),
];

pub fn show(golden: &Path) -> Result<()> {
    let dir = golden.join("html");
    let simhasher = Simhasher::default();
    outln!(
        "web pages: one article under two site templates ({})",
        dir.display()
    );
    for (a, b) in PAIRS {
        let mut fingerprints = Vec::new();
        for name in [a, b] {
            let bytes = std::fs::read(dir.join(name))
                .with_context(|| format!("{}", dir.join(name).display()))?;
            let main = page_text(&bytes, None, Extract::Main)?;
            let all = page_text(&bytes, None, Extract::All)?;
            outln!(
                "  {name} ({} bytes, {}): main text {} of {} visible characters",
                bytes.len(),
                main.encoding,
                main.text.chars().count(),
                all.text.chars().count()
            );
            outln!("      {}", super::snippet(&main.text));
            fingerprints.push((
                simhasher.fingerprint(&main.text),
                simhasher.fingerprint(&all.text),
            ));
        }
        if let [(main_a, all_a), (main_b, all_b)] = fingerprints[..] {
            outln!(
                "  distance {} with the main text extracted, {} with all visible text (template included)\n",
                main_a.distance(main_b),
                all_a.distance(all_b)
            );
        }
    }
    Ok(())
}
