//! The near-duplicates planted in the demo's corpus
//! (`corpus-truth.tsv` beside it), which both of the demo's answers are
//! counted against, and the order pairs are kept in.

use std::path::Path;

use anyhow::Result;

/// A near-duplicate planted when the corpus was made: the original, its
/// copy and the edit that made it.
#[derive(Debug)]
pub(super) struct Planted {
    pub a: String,
    pub b: String,
    pub edit: String,
}

impl Planted {
    /// The two ids in byte order, as pairs are kept.
    pub fn pair(&self) -> (&str, &str) {
        ordered(&self.a, &self.b)
    }
}

/// `a` and `b` in byte order.
pub(super) fn ordered<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The planted pairs of `corpus-truth.tsv`: original, copy, edit.
pub(super) fn read_truth(path: &Path) -> Result<Vec<Planted>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut fields = l.split('\t');
            Some(Planted {
                a: fields.next()?.to_string(),
                b: fields.next()?.to_string(),
                edit: fields.next().unwrap_or("").to_string(),
            })
        })
        .collect())
}
