//! Text in, fingerprint out.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::chunks::for_each_chunk;
use crate::feature_hash::hash_feature;
use crate::keywords::jieba_keyword_scores;
use crate::normalize::{fold_into, is_meaningful_word};
use crate::stop_words::is_stop_word;
use crate::tokenizer::for_each_shingle;
use crate::votes::BitVotes;
use crate::{
    CommonFeatures, Fingerprint, LearnedIdf, Signature, SignatureError, SignatureLayout, Tokenizer,
    WeakBits, Weighting,
};

/// Longest piece of text segmented at once with term-frequency weights.
const TF_CHUNK_BYTES: usize = 64 * 1024;
/// Longest piece of text scored at once with tf-idf weights. Longer than for
/// tf, since keyword scores of one piece are only approximately comparable
/// with another's (see [`Simhasher::tfidf_features`]).
const TFIDF_CHUNK_BYTES: usize = 1024 * 1024;
/// tf-idf scores are fixed-point integers with this many units per 1.0, so
/// that summing them is exact and independent of order.
const TFIDF_SCALE: f64 = 1_000_000.0;

/// A keyword's tf-idf score as an integer weight, at least 1.
#[expect(
    clippy::cast_possible_truncation,
    reason = "scores are small positive numbers; `as` saturates where they are not, and \
              golden fingerprints pin this rounding"
)]
fn scaled_score(score: f64) -> i64 {
    (score * TFIDF_SCALE).round().max(1.0) as i64
}

/// The options that define a fingerprint. Two databases agree on
/// fingerprints exactly when their options are equal.
///
/// The default, jieba words weighted by tf-idf keeping the 8 best keywords,
/// was chosen by an early detection-quality report on a few seed
/// paragraphs: at k = 3 it found more than twice as many planted
/// near-duplicates as plain term frequency with no false pair, and a fixed
/// keyword count keeps a page's features stable when a site template
/// changes its length. `make quality` now measures it on real Chinese and
/// English text (docs/BENCHMARKS.md, "Detection quality").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SimhashOptions {
    /// How text becomes features.
    pub tokenizer: Tokenizer,
    /// How much each feature counts.
    pub weighting: Weighting,
}

impl SimhashOptions {
    /// Keywords kept by the default tf-idf weighting.
    pub const DEFAULT_KEYWORDS: usize = 8;
}

impl Default for SimhashOptions {
    fn default() -> Self {
        SimhashOptions {
            tokenizer: Tokenizer::Jieba,
            weighting: Weighting::TfIdf {
                top_n: Some(Self::DEFAULT_KEYWORDS),
            },
        }
    }
}

impl fmt::Display for SimhashOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tokenizer={} weights={}", self.tokenizer, self.weighting)
    }
}

/// One feature of a text and its total weight, for explaining a fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// The feature's text, after folding.
    pub text: String,
    /// Its total weight in the vote.
    pub weight: i64,
    /// The xxh3-64 hash that decides which bits it votes for.
    pub hash: u64,
}

/// Computes simhash fingerprints of text with fixed [`SimhashOptions`].
///
/// Cheap to create and to share between threads; jieba's dictionary is
/// loaded once per process on first use.
#[derive(Debug, Clone, Default)]
pub struct Simhasher {
    options: SimhashOptions,
    /// The table of [`Weighting::Learned`], shared by clones.
    idf: Option<Arc<LearnedIdf>>,
}

impl Simhasher {
    /// A simhasher with the given options. Learned weights need their table
    /// ([`Simhasher::learned`]): made here, every feature weighs nothing and
    /// every fingerprint is 0.
    pub fn new(options: SimhashOptions) -> Self {
        Simhasher { options, idf: None }
    }

    /// A simhasher weighting `tokenizer`'s features by the learned table
    /// `idf` (options `Weighting::Learned` with the table's digest).
    pub fn learned(tokenizer: Tokenizer, idf: Arc<LearnedIdf>) -> Self {
        let weighting = Weighting::Learned {
            digest: idf.digest(),
        };
        Simhasher {
            options: SimhashOptions {
                tokenizer,
                weighting,
            },
            idf: Some(idf),
        }
    }

    /// The learned table, if this simhasher weighs features by one.
    pub fn learned_idf(&self) -> Option<&Arc<LearnedIdf>> {
        self.idf.as_ref()
    }

    /// The options this simhasher uses.
    pub fn options(&self) -> SimhashOptions {
        self.options
    }

    /// The fingerprint of `text`. Text without any feature (empty, only
    /// whitespace, punctuation or stop words) has the fingerprint 0.
    pub fn fingerprint(&self, text: &str) -> Fingerprint {
        self.votes(text).fingerprint()
    }

    /// [`Simhasher::fingerprint`] and the fingerprint's weak bits,
    /// `per_quarter` in each quarter ([`WeakBits::of_vote_sizes`]).
    pub fn fingerprint_and_weak_bits(
        &self,
        text: &str,
        per_quarter: u32,
    ) -> (Fingerprint, WeakBits) {
        self.votes(text).fingerprint_and_weak_bits(per_quarter)
    }

    fn votes(&self, text: &str) -> BitVotes {
        let mut votes = BitVotes::default();
        self.for_each_weighted(text, |_, hash, weight| votes.add(hash, weight));
        votes
    }

    /// The fingerprint of raw bytes that should be UTF-8. Invalid sequences
    /// are decoded lossily: each becomes U+FFFD, which is not a letter or
    /// digit and so never a feature. A page with a few broken bytes keeps
    /// the fingerprint of its readable text.
    pub fn fingerprint_bytes(&self, bytes: &[u8]) -> Fingerprint {
        self.fingerprint(&String::from_utf8_lossy(bytes))
    }

    /// The hashes of the fingerprint's tokens in text order, each
    /// occurrence once and before any weighting: what a [`Signature`] is
    /// made of. Empty when the text has no feature.
    pub fn feature_hashes(&self, text: &str) -> Vec<u64> {
        let mut hashes = Vec::new();
        self.for_each_token(text, |_, hash| hashes.push(hash));
        hashes
    }

    /// [`Simhasher::feature_hashes`] with bare numbers among them, in text
    /// order: what a signature of a text that is mostly numbers is made of
    /// when its confirmation counts them (see [`digit_permille`]).
    /// Character shingles always hold digits, so for them it is the same.
    ///
    /// [`digit_permille`]: crate::digit_permille
    pub fn feature_and_number_hashes(&self, text: &str) -> Vec<u64> {
        let mut hashes = Vec::new();
        self.for_each_token_keeping(text, true, |_, hash| hashes.push(hash));
        hashes
    }

    /// Calls `emit` with every token of `text` and its feature hash, in
    /// text order, each occurrence once.
    fn for_each_token(&self, text: &str, emit: impl FnMut(&str, u64)) {
        self.for_each_token_keeping(text, false, emit);
    }

    /// [`Simhasher::for_each_token`], with bare numbers when `keep_numbers`.
    fn for_each_token_keeping(
        &self,
        text: &str,
        keep_numbers: bool,
        mut emit: impl FnMut(&str, u64),
    ) {
        match self.options.tokenizer {
            Tokenizer::Chars(n) => for_each_shingle(text, n, |s| emit(s, hash_feature(s))),
            tokenizer => {
                let mut folded = String::new();
                for_each_chunk(text, TF_CHUNK_BYTES, |chunk| {
                    folded.clear();
                    fold_into(chunk, &mut folded);
                    tokenizer.for_each_word(&folded, keep_numbers, &mut emit);
                });
            }
        }
    }

    /// The confirming signature of `text` (see [`Signature`]), from the
    /// same tokens as its fingerprint. A text with no feature has none:
    /// [`SignatureError::NoFeatures`].
    pub fn signature(
        &self,
        text: &str,
        layout: SignatureLayout,
    ) -> Result<Signature, SignatureError> {
        Signature::from_feature_hashes(layout, &self.feature_hashes(text))
    }

    /// The confirming signature of `text` without the crawl's `common`
    /// features (see [`CommonFeatures`]). A text with nothing but common
    /// features has none: [`SignatureError::NoFeatures`].
    pub fn signature_without_common(
        &self,
        text: &str,
        layout: SignatureLayout,
        common: &CommonFeatures,
    ) -> Result<Signature, SignatureError> {
        Signature::from_feature_hashes(layout, &common.remove_from(&self.feature_hashes(text)))
    }

    /// The features of `text` with their total weights, heaviest first (ties
    /// by text): what the fingerprint is made of.
    pub fn features(&self, text: &str) -> Vec<Feature> {
        let mut totals: HashMap<String, i64> = HashMap::new();
        self.for_each_weighted(text, |feature, _, weight| {
            *totals.entry(feature.to_string()).or_insert(0) += weight;
        });
        let mut features: Vec<Feature> = totals
            .into_iter()
            .map(|(text, weight)| Feature {
                hash: hash_feature(&text),
                text,
                weight,
            })
            .collect();
        features.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.text.cmp(&b.text)));
        features
    }

    /// Calls `vote` for every (feature, its hash, weight) of `text`. With tf
    /// weights a feature may come several times; the vote is linear, so that
    /// equals one call with the summed weight.
    fn for_each_weighted(&self, text: &str, mut vote: impl FnMut(&str, u64, i64)) {
        match self.options.weighting {
            Weighting::Tf => self.for_each_token(text, |feature, hash| vote(feature, hash, 1)),
            Weighting::TfIdf { .. } => {
                for (feature, weight) in self.tfidf_features(text) {
                    vote(&feature, hash_feature(&feature), weight);
                }
            }
            Weighting::Learned { .. } => {
                let Some(idf) = self.idf.as_deref() else {
                    return;
                };
                self.for_each_token(text, |feature, hash| {
                    let weight = idf.weight(hash);
                    if weight > 0 {
                        vote(feature, hash, i64::from(weight));
                    }
                });
            }
        }
    }

    /// The top keywords of `text` with fixed-point tf-idf weights.
    ///
    /// A text longer than one chunk is scored chunk by chunk and each
    /// keyword's scores are summed, weighted by the chunk's length in bytes:
    /// jieba's score is tf·idf divided by the chunk's token count, which is
    /// close to proportional to its length. This keeps memory bounded by
    /// the vocabulary rather than by the text.
    fn tfidf_features(&self, text: &str) -> Vec<(String, i64)> {
        let keep = self.options.weighting.keywords_for(text.len());
        let mut folded = String::new();
        if text.len() <= TFIDF_CHUNK_BYTES {
            // One chunk (nearly every document): its scores are the sums,
            // and only the kept keywords are copied out of the text.
            fold_into(text, &mut folded);
            return ranked_keywords(self.keyword_scores(&folded), keep);
        }
        let mut scores: HashMap<String, f64> = HashMap::new();
        for_each_chunk(text, TFIDF_CHUNK_BYTES, |chunk| {
            folded.clear();
            fold_into(chunk, &mut folded);
            let chunk_share = chunk.len() as f64 / text.len().max(1) as f64;
            for (word, score) in self.keyword_scores(&folded) {
                *scores.entry(word.into_owned()).or_insert(0.0) += score * chunk_share;
            }
        });
        ranked_keywords(scores, keep)
    }

    /// Every keyword candidate of one folded chunk with its tf-idf score.
    fn keyword_scores<'t>(&self, folded: &'t str) -> Vec<(Cow<'t, str>, f64)> {
        match self.options.tokenizer {
            Tokenizer::Jieba => jieba_keyword_scores(folded),
            tokenizer => {
                // No IDF is known for these features: all share one IDF, so
                // the score is the relative frequency.
                let mut counts: HashMap<String, u64> = HashMap::new();
                let mut total = 0u64;
                let mut count = |w: &str| {
                    *counts.entry(w.to_string()).or_insert(0) += 1;
                    total += 1;
                };
                match tokenizer {
                    Tokenizer::Chars(n) => for_each_shingle(folded, n, &mut count),
                    _ => tokenizer.for_each_word(folded, false, |w, _| count(w)),
                }
                counts
                    .into_iter()
                    .map(|(word, n)| (Cow::Owned(word), n as f64 / total as f64))
                    .collect()
            }
        }
    }
}

/// The best `keep` features of summed keyword `scores`, heaviest first and
/// ties by text, as fixed-point weights.
fn ranked_keywords<W: AsRef<str>>(
    scores: impl IntoIterator<Item = (W, f64)>,
    keep: usize,
) -> Vec<(String, i64)> {
    let mut ranked: Vec<(W, i64)> = scores
        .into_iter()
        // jieba's extractor keeps any token of two characters, even
        // whitespace; only words with letters or digits are features.
        .filter(|(word, _)| is_meaningful_word(word.as_ref()) && !is_stop_word(word.as_ref()))
        .map(|(word, score)| (word, scaled_score(score)))
        .collect();
    let order =
        |a: &(W, i64), b: &(W, i64)| b.1.cmp(&a.1).then_with(|| a.0.as_ref().cmp(b.0.as_ref()));
    if ranked.len() > keep {
        ranked.select_nth_unstable_by(keep, order);
        ranked.truncate(keep);
    }
    ranked.sort_by(order);
    ranked
        .into_iter()
        .map(|(word, weight)| (word.as_ref().to_string(), weight))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keywords::jieba_extractor_scores;
    use proptest::prelude::*;

    /// tf-idf keywords the plain way: jieba-rs's extractor on every chunk,
    /// every candidate summed, then ranked.
    fn reference_tfidf(simhasher: &Simhasher, text: &str) -> Vec<(String, i64)> {
        let keep = simhasher.options.weighting.keywords_for(text.len());
        let mut scores: HashMap<String, f64> = HashMap::new();
        for_each_chunk(text, TFIDF_CHUNK_BYTES, |chunk| {
            let mut folded = String::new();
            fold_into(chunk, &mut folded);
            let chunk_share = chunk.len() as f64 / text.len().max(1) as f64;
            for (word, score) in jieba_extractor_scores(&folded) {
                *scores.entry(word).or_insert(0.0) += score * chunk_share;
            }
        });
        ranked_keywords(scores, keep)
    }

    fn jieba_tfidf(top_n: Option<usize>) -> Simhasher {
        Simhasher::new(SimhashOptions {
            tokenizer: Tokenizer::Jieba,
            weighting: Weighting::TfIdf { top_n },
        })
    }

    /// Words that tie often: many have jieba's highest IDF or none at all
    /// (the median), numbers and punctuation are candidates but not
    /// features, and stop words are neither.
    const WORDS: &[&str] = &[
        "指纹",
        "数据库",
        "网页",
        "爬虫",
        "近似",
        "重复",
        "奇珍",
        "钟朋荣",
        "王茂润",
        "运走",
        "落脚点",
        "天安门",
        "生化学",
        "劳动防护",
        "2024",
        "12.5",
        "——",
        "……",
        "我们",
        "的",
        "rust",
        "Fpdb",
        "ＡＢＣ",
        "，",
        "。",
        "\n",
        " ",
        "x",
        "中",
    ];
    const HAN: &[char] = &[
        '山', '水', '火', '木', '金', '土', '日', '月', '星', '云', '风', '雨',
    ];

    /// Text from token codes: a word of [`WORDS`], one of 100 numbers (often
    /// the best scored candidates, which are no features), or one of 144
    /// two-character words, in the dictionary or not.
    fn text_of(codes: &[(u8, usize)]) -> String {
        let mut text = String::new();
        for &(kind, i) in codes {
            match kind % 3 {
                0 => text.push_str(WORDS[i % WORDS.len()]),
                1 => text.push_str(&format!(" {} ", i % 100)),
                _ => {
                    text.push(HAN[i % HAN.len()]);
                    text.push(HAN[i / HAN.len() % HAN.len()]);
                    text.push('，');
                }
            }
        }
        text
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn fast_scores_give_the_reference_keywords(
            codes in proptest::collection::vec((0u8..3, 0usize..1000), 0..600),
            top_n in proptest::option::of(0usize..40),
        ) {
            let text = text_of(&codes);
            let simhasher = jieba_tfidf(top_n);
            prop_assert_eq!(simhasher.tfidf_features(&text), reference_tfidf(&simhasher, &text));
        }
    }

    #[test]
    fn fast_scores_give_the_reference_keywords_on_articles() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/text");
        let mut articles = String::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            articles.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
        let chars: Vec<(usize, char)> = articles.char_indices().collect();
        for top_n in [Some(1), Some(3), Some(8), Some(30), None] {
            let simhasher = jieba_tfidf(top_n);
            // Prefixes of every length class, so that boundaries fall
            // anywhere in the ranking.
            for end in (0..chars.len()).step_by(97).chain([chars.len()]) {
                let text = &articles[..chars.get(end).map_or(articles.len(), |c| c.0)];
                assert_eq!(
                    simhasher.tfidf_features(text),
                    reference_tfidf(&simhasher, text),
                    "top_n {top_n:?}, {end} chars"
                );
            }
        }
    }

    /// A text of several chunks sums each chunk's scores as the plain way
    /// does.
    #[test]
    fn fast_scores_give_the_reference_keywords_over_chunks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/text");
        let mut articles: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
            .collect();
        articles.sort();
        let mut text = String::new();
        let mut round = 0;
        while text.len() <= 2 * TFIDF_CHUNK_BYTES + TFIDF_CHUNK_BYTES / 2 {
            // Each round leaves out another article, so chunks differ.
            for (i, article) in articles.iter().enumerate() {
                if i != round % articles.len() {
                    text.push_str(article);
                }
            }
            round += 1;
        }
        for top_n in [Some(8), None] {
            let simhasher = jieba_tfidf(top_n);
            assert_eq!(
                simhasher.tfidf_features(&text),
                reference_tfidf(&simhasher, &text),
                "top_n {top_n:?}"
            );
        }
    }
}
