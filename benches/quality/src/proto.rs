//! Weighting ideas that fpdb-simhash does not have, prototyped here so the
//! report can measure them beside the real options: IDF learned from the
//! corpus (on the learn half only), keeping every word while keywords
//! dominate (tf × idf^p), a "soft" top N whose boundary keywords weigh
//! almost nothing, and word bigrams.
//!
//! Tokens come from jieba-rs or Unicode word boundaries after folding, and
//! are filtered with fpdb-simhash's stop words, like the real tokenizers;
//! each feature is hashed with `fpdb_simhash::hash_feature` and voted like
//! a simhash. `jieba/tf (harness)` checks this path against the real
//! `jieba/tf` (the report prints how often the two agree).

use std::collections::HashMap;
use std::fmt;
use std::sync::LazyLock;

use fpdb_simhash::{hash_feature, is_stop_word};
use jieba_rs::{Jieba, KeywordExtract, KeywordExtractConfig, TfIdf};
use rayon::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    Jieba,
    Words,
}

/// Where a prototype's IDF comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Idf {
    /// Learned from the learn half of the corpus, as clean text.
    Corpus,
    /// Learned from the learn half as a crawler holds it: each document
    /// with one of the report's edits (or none), so a portal's template
    /// words are common and weigh little.
    Crawl,
    /// jieba's own IDF table, through jieba's keyword extractor, as
    /// `tfidf` uses it.
    Jieba,
    /// The word frequencies the PyPI package wordfreq ships for the
    /// language (ln of 1 / frequency): general text, not the crawl.
    Registry,
}

/// One prototype weighting: weight = tf × idf^power, optionally only the
/// top N features.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proto {
    pub base: Base,
    pub idf: Idf,
    /// 0 is plain tf (the harness's own check against `jieba/tf`).
    pub power: f64,
    pub top: Option<usize>,
    /// With `top`: each kept weight minus the first dropped one, so a
    /// keyword that enters or leaves the top N on an edit weighs almost
    /// nothing at that moment and moves few bits.
    pub soft: bool,
    /// Add adjacent word pairs as features.
    pub bigrams: bool,
    /// The highest idf a word may have before the power: ln(1 / share),
    /// so every word rarer than `share` of the documents weighs the same.
    pub cap: Option<f64>,
    /// Words in more than this share of the documents weigh nothing.
    pub common: Option<f64>,
}

impl Proto {
    pub fn plain_tf(base: Base) -> Proto {
        Proto {
            base,
            idf: Idf::Corpus,
            power: 0.0,
            top: None,
            soft: false,
            bigrams: false,
            cap: None,
            common: None,
        }
    }
}

impl fmt::Display for Proto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = match self.base {
            Base::Jieba => "jieba",
            Base::Words => "words",
        };
        let grams = if self.bigrams { "+bigrams" } else { "" };
        if self.power == 0.0 {
            return write!(f, "{base}{grams}/tf (harness)");
        }
        let idf = match self.idf {
            Idf::Corpus => "cidf",
            Idf::Crawl => "crawl-idf",
            Idf::Jieba => "tfidf",
            Idf::Registry => "wordfreq-idf",
        };
        let power = if self.power == 1.0 {
            String::new()
        } else {
            format!("^{}", self.power)
        };
        let soft = if self.soft { "-soft" } else { "" };
        let cap = self.cap.map(|c| format!("~{c}")).unwrap_or_default()
            + &self.common.map(|c| format!(">{c}")).unwrap_or_default();
        match self.top {
            Some(n) => write!(f, "{base}{grams}/{idf}{cap}{power}{soft}:{n} *"),
            None => write!(f, "{base}{grams}/tf·{idf}{cap}{power} *"),
        }
    }
}

/// Folding as fpdb-simhash does it: full-width forms to ASCII, the
/// ideographic space to a space, lower case.
fn fold(text: &str) -> String {
    text.chars()
        .map(|c| match u32::from(c) {
            code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
            0x3000 => ' ',
            _ => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_feature(token: &str) -> bool {
    let alphanumeric = token.chars().any(char::is_alphanumeric);
    let number = token
        .chars()
        .all(|c| c.is_numeric() || matches!(c, '.' | ',' | ':' | '-' | '/' | '%'));
    alphanumeric && !number && !is_stop_word(token)
}

/// The features of `text` in order.
pub fn tokens(text: &str, base: Base) -> Vec<String> {
    let folded = fold(text);
    match base {
        Base::Jieba => JIEBA
            .cut(&folded, false)
            .into_iter()
            .filter(|t| is_feature(t.word))
            .map(|t| t.word.to_string())
            .collect(),
        Base::Words => folded
            .unicode_words()
            .filter(|t| is_feature(t))
            .map(str::to_string)
            .collect(),
    }
}

/// Documents ready for the vote: token ids with the vocabulary's hashes
/// and learned IDF, or jieba's scored keywords.
#[derive(Debug)]
pub enum Tokenized {
    Corpus {
        docs: Vec<Vec<u32>>,
        hashes: Vec<u64>,
        idf: Vec<f64>,
    },
    Keywords(Vec<Vec<(u64, f64)>>),
}

/// jieba's keyword extractor configured as fpdb-simhash configures it
/// (two characters at least, no HMM; fpdb's stop words are filtered after).
static KEYWORDS: LazyLock<TfIdf> = LazyLock::new(|| {
    let mut extractor = TfIdf::default();
    *extractor.config_mut() = KeywordExtractConfig::builder()
        .min_keyword_length(2)
        .use_hmm(false)
        .build();
    extractor
});

/// Every keyword of each document with its tf-idf score, best first.
pub fn jieba_keywords(docs: &[String]) -> Tokenized {
    Tokenized::Keywords(
        docs.par_iter()
            .map(|d| {
                let mut scored: Vec<(u64, f64)> = KEYWORDS
                    .extract_keywords(&JIEBA, &fold(d), usize::MAX, Vec::new())
                    .into_iter()
                    .filter(|k| is_feature(&k.keyword))
                    .map(|k| (hash_feature(&k.keyword), k.weight))
                    .collect();
                scored.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
                scored
            })
            .collect(),
    )
}

/// Tokenizes `docs` and learns IDF from `learn` (document frequency over
/// the learn half). Words never seen there weigh nothing: they are mostly
/// typos and the template words of sites the IDF never saw. Giving them
/// the median IDF instead (as jieba does; it is close to the highest)
/// cost -0.1 to 3 points of recall at k = 3 on Chinese and 1.5
/// to 14 points on English in a trial on 600 originals per corpus.
pub fn tokenize(docs: &[String], learn: &[String], base: Base) -> Tokenized {
    let learned: Vec<Vec<String>> = learn.par_iter().map(|d| tokens(d, base)).collect();
    let mut df: HashMap<&str, u32> = HashMap::new();
    for doc in &learned {
        let mut words: Vec<&str> = doc.iter().map(String::as_str).collect();
        words.sort_unstable();
        words.dedup();
        for w in words {
            *df.entry(w).or_insert(0) += 1;
        }
    }
    let n = learned.len().max(1) as f64;
    with_idf(docs, base, |word| {
        df.get(word).map_or(0.0, |&d| (n / f64::from(d)).ln())
    })
}

/// Tokenizes `docs` with the IDF of a word list a registry package ships
/// (`known`: word to ln(1 / frequency)); words not on it weigh nothing.
pub fn tokenize_known(docs: &[String], known: &HashMap<String, f64>, base: Base) -> Tokenized {
    with_idf(docs, base, |word| known.get(word).copied().unwrap_or(0.0))
}

/// Tokenizes `docs`, each word's IDF from `idf_of`.
fn with_idf(docs: &[String], base: Base, idf_of: impl Fn(&str) -> f64) -> Tokenized {
    let split: Vec<Vec<String>> = docs.par_iter().map(|d| tokens(d, base)).collect();
    let mut vocabulary: HashMap<String, u32> = HashMap::new();
    let mut hashes = Vec::new();
    let mut idf = Vec::new();
    let docs = split
        .into_iter()
        .map(|doc| {
            doc.into_iter()
                .map(|word| {
                    if let Some(&id) = vocabulary.get(&word) {
                        return id;
                    }
                    let id = hashes.len() as u32;
                    hashes.push(hash_feature(&word));
                    idf.push(idf_of(&word));
                    vocabulary.insert(word, id);
                    id
                })
                .collect()
        })
        .collect();
    Tokenized::Corpus { docs, hashes, idf }
}

/// The hash of a word pair, from its words' hashes.
fn pair_hash(a: u64, b: u64) -> u64 {
    let mut z = a.rotate_left(23) ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The simhash vote over weighted hashed features, bit by bit (bit 0 the
/// most significant): a bit is 1 when its vote is strictly positive, and
/// the vote's size is how far the document is from flipping it.
pub fn vote_sums(features: impl IntoIterator<Item = (u64, f64)>) -> [f64; 64] {
    let mut sums = [0f64; 64];
    for (hash, weight) in features {
        for (bit, sum) in sums.iter_mut().enumerate() {
            if hash >> (63 - bit) & 1 == 1 {
                *sum += weight;
            } else {
                *sum -= weight;
            }
        }
    }
    sums
}

/// The fingerprint of per-bit votes.
pub fn sign_bits(sums: &[f64; 64]) -> u64 {
    sums.iter()
        .fold(0u64, |fp, &s| (fp << 1) | u64::from(s > 0.0))
}

impl Proto {
    pub fn fingerprints(&self, tokenized: &Tokenized) -> Vec<u64> {
        self.vote_sums(tokenized).iter().map(sign_bits).collect()
    }

    /// Every document's per-bit votes.
    pub fn vote_sums(&self, tokenized: &Tokenized) -> Vec<[f64; 64]> {
        match tokenized {
            Tokenized::Corpus { docs, hashes, idf } => docs
                .par_iter()
                .map(|doc| self.finish(self.weigh(doc, hashes, idf)))
                .collect(),
            Tokenized::Keywords(docs) => docs.par_iter().map(|d| self.finish(d.clone())).collect(),
        }
    }

    /// tf × idf^power of every feature of one document.
    fn weigh(&self, doc: &[u32], hashes: &[u64], idf: &[f64]) -> Vec<(u64, f64)> {
        let mut counts: HashMap<(u32, u32), u32> = HashMap::new();
        for &id in doc {
            *counts.entry((id, u32::MAX)).or_insert(0) += 1;
        }
        if self.bigrams {
            for pair in doc.windows(2) {
                *counts.entry((pair[0], pair[1])).or_insert(0) += 1;
            }
        }
        counts
            .into_iter()
            .map(|((a, b), tf)| {
                let (hash, idf) = if b == u32::MAX {
                    (hashes[a as usize], idf[a as usize])
                } else {
                    (
                        pair_hash(hashes[a as usize], hashes[b as usize]),
                        (idf[a as usize] + idf[b as usize]) / 2.0,
                    )
                };
                let idf = match self.cap {
                    Some(share) => idf.min((1.0 / share).ln()),
                    None => idf,
                };
                let idf = match self.common {
                    Some(share) if idf < (1.0 / share).ln() => 0.0,
                    _ => idf,
                };
                (hash, f64::from(tf) * idf.max(0.0).powf(self.power))
            })
            .collect()
    }

    /// Top N (soft or hard) and the vote.
    fn finish(&self, mut weighted: Vec<(u64, f64)>) -> [f64; 64] {
        if let Some(n) = self.top {
            weighted.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            let floor = if self.soft {
                weighted.get(n).map_or(0.0, |x| x.1)
            } else {
                0.0
            };
            weighted.truncate(n);
            for x in &mut weighted {
                x.1 -= floor;
            }
        }
        vote_sums(weighted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpdb_simhash::{SimhashOptions, Simhasher, Tokenizer, Weighting};

    #[test]
    fn plain_tf_matches_the_real_jieba_tf() {
        let text =
            "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同。Rust 写的指纹数据库。";
        let real = Simhasher::new(SimhashOptions {
            tokenizer: Tokenizer::Jieba,
            weighting: Weighting::Tf,
        })
        .fingerprint(text);
        let t = tokenize(&[text.to_string()], &[], Base::Jieba);
        assert_eq!(Proto::plain_tf(Base::Jieba).fingerprints(&t), [real.0]);
    }

    #[test]
    fn hard_top_n_matches_the_real_tfidf() {
        let text = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同。网页检测用指纹，指纹存进数据库。";
        let real = Simhasher::new(SimhashOptions {
            tokenizer: Tokenizer::Jieba,
            weighting: Weighting::TfIdf { top_n: Some(8) },
        })
        .fingerprint(text);
        let proto = Proto {
            idf: Idf::Jieba,
            power: 1.0,
            top: Some(8),
            ..Proto::plain_tf(Base::Jieba)
        };
        assert_eq!(
            proto.fingerprints(&jieba_keywords(&[text.to_string()])),
            [real.0]
        );
    }
}
