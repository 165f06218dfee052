//! jieba's tf-idf keyword scores, computed without running jieba-rs's
//! keyword extractor over the whole text: the same words with the same
//! scores (tested against it), about twice as fast.
//!
//! The extractor segments the text, tags every token with its part of
//! speech (fpdb asks for no tags), checks every token against the stop
//! words and counts the keywords. Here the text is segmented the same way
//! (`cut` without HMM, as the extractor is configured), tokens are counted,
//! and what the extractor knows about each distinct word — whether it
//! keeps it and its IDF, which jieba-rs keeps private — is asked of the
//! extractor once per process: extracting from the word alone scores its
//! one occurrence 1 · idf / 1 = idf.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{LazyLock, RwLock};

use jieba_rs::{KeywordExtract, KeywordExtractConfig, TfIdf};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::stop_words::stop_words;
use crate::tokenizer::JIEBA;

/// jieba's keyword extractor with fpdb's stop words added to jieba's own.
static EXTRACTOR: LazyLock<TfIdf> = LazyLock::new(|| {
    let mut extractor = TfIdf::default();
    let mut config = KeywordExtractConfig::builder()
        .min_keyword_length(2)
        .use_hmm(false);
    for word in stop_words() {
        config = config.add_stop_word(word);
    }
    *extractor.config_mut() = config.build();
    extractor
});

/// Words whose answers are remembered, at most: jieba's IDF table has
/// about 270,000 words, and a crawl meets endless new names and numbers.
/// Past the limit new words are asked again each time (slower, the same
/// scores). Full, it holds about 30 MiB: 300,000 made-up distinct words
/// raised `fpdb hash`'s peak memory from 85 to 114 MiB (docs/BENCHMARKS.md).
const REMEMBERED_WORDS: usize = 1 << 18;

/// What the extractor says of a word: `Some(idf)` when it keeps the word,
/// `None` for a stop word.
type WordInfo = Option<f64>;

static WORDS: LazyLock<RwLock<WordMap<Box<str>, WordInfo>>> =
    LazyLock::new(|| RwLock::new(WordMap::default()));

/// Maps keyed by words, hashed with one-shot xxh3: the streaming xxh3
/// hasher's buffering was a sixth of the time for keys this short.
type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxh3_64_with_seed(bytes, self.0);
    }

    /// A `str` ends its hash with one marker byte.
    fn write_u8(&mut self, byte: u8) {
        self.0 = self.0.rotate_left(8) ^ u64::from(byte);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Every keyword of `folded` with its tf-idf score, exactly as jieba-rs's
/// extractor scores it (in no particular order).
pub(crate) fn jieba_keyword_scores(folded: &str) -> Vec<(Cow<'_, str>, f64)> {
    fast_scores(folded).unwrap_or_else(|| {
        // Rare: a word of the text segments differently alone.
        jieba_extractor_scores(folded)
            .into_iter()
            .map(|(word, score)| (Cow::Owned(word), score))
            .collect()
    })
}

/// The extractor's own scores of every keyword of `folded`.
pub(crate) fn jieba_extractor_scores(folded: &str) -> Vec<(String, f64)> {
    EXTRACTOR
        .extract_keywords(&JIEBA, folded, usize::MAX, Vec::new())
        .into_iter()
        .map(|keyword| (keyword.keyword, keyword.weight))
        .collect()
}

/// [`jieba_keyword_scores`] without the extractor, or `None` when a word
/// could not be asked about alone.
fn fast_scores(folded: &str) -> Option<Vec<(Cow<'_, str>, f64)>> {
    let config = EXTRACTOR.config();
    let tokens = JIEBA.cut(folded, config.use_hmm());
    let mut counts: WordMap<&str, u64> =
        WordMap::with_capacity_and_hasher(tokens.len() / 2, Default::default());
    for token in tokens {
        // The extractor keeps no word shorter than this.
        if has_at_least(token.word, config.min_keyword_length()) {
            *counts.entry(token.word).or_insert(0) += 1;
        }
    }
    let mut keywords: Vec<(&str, u64, f64)> = Vec::with_capacity(counts.len());
    let mut unknown: Vec<(&str, u64)> = Vec::new();
    {
        let words = WORDS.read().ok()?;
        for (&word, &count) in &counts {
            match words.get(word) {
                Some(Some(idf)) => keywords.push((word, count, *idf)),
                Some(None) => {}
                None => unknown.push((word, count)),
            }
        }
    }
    for (word, count) in unknown {
        if let Some(idf) = word_info(word)? {
            keywords.push((word, count, idf));
        }
    }
    // As the extractor computes it: tf · idf / (all keyword tokens).
    let total: u64 = keywords.iter().map(|&(_, count, _)| count).sum();
    Some(
        keywords
            .into_iter()
            .map(|(word, count, idf)| (Cow::Borrowed(word), count as f64 * idf / total as f64))
            .collect(),
    )
}

/// Whether `word` has at least `n` characters.
fn has_at_least(word: &str, n: usize) -> bool {
    word.len() >= n && word.chars().nth(n.saturating_sub(1)).is_some()
}

/// What the extractor says of `word`, asked once and remembered; `None`
/// when `word` alone does not segment as itself.
fn word_info(word: &str) -> Option<WordInfo> {
    let alone = JIEBA.cut(word, EXTRACTOR.config().use_hmm());
    if alone.len() != 1 || alone.first().map(|token| token.word) != Some(word) {
        return None;
    }
    let info = match EXTRACTOR
        .extract_keywords(&JIEBA, word, 1, Vec::new())
        .first()
    {
        // One keyword token in all: its score is its IDF.
        Some(keyword) if keyword.keyword == word => Some(keyword.weight),
        Some(_) => return None,
        // The word is its own only token and was not kept.
        None => None,
    };
    if let Ok(mut words) = WORDS.write() {
        if words.len() < REMEMBERED_WORDS {
            words.insert(word.into(), info);
        }
    }
    Some(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::fold_into;
    use proptest::prelude::*;

    fn sorted<W: AsRef<str>>(scores: Vec<(W, f64)>) -> Vec<(String, f64)> {
        let mut scores: Vec<(String, f64)> = scores
            .into_iter()
            .map(|(word, score)| (word.as_ref().to_string(), score))
            .collect();
        scores.sort_by(|a, b| a.0.cmp(&b.0));
        scores
    }

    fn articles() -> String {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/text");
        let mut articles = String::new();
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            articles.push_str(&std::fs::read_to_string(path).unwrap());
        }
        articles
    }

    #[test]
    fn articles_are_scored_without_the_extractor_and_as_it_scores_them() {
        let articles = articles();
        let chars: Vec<(usize, char)> = articles.char_indices().collect();
        for start in (0..chars.len()).step_by(389) {
            let from = chars[start].0;
            let to = chars.get(start + 1500).map_or(articles.len(), |c| c.0);
            let mut folded = String::new();
            fold_into(&articles[from..to], &mut folded);
            let fast = fast_scores(&folded).expect("every word asked about alone");
            assert_eq!(
                sorted(fast),
                sorted(jieba_extractor_scores(&folded)),
                "{from}..{to}"
            );
        }
    }

    #[test]
    fn a_phrase_is_not_asked_about_alone() {
        assert_eq!(word_info("我们的数据库"), None);
        assert_eq!(
            word_info("数据库"),
            Some(Some(sorted(jieba_extractor_scores("数据库"))[0].1))
        );
        // A stop word segments as itself and is not kept.
        assert_eq!(word_info("我们"), Some(None));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Mixed scripts, digits and punctuation: the scores are the
        /// extractor's, whichever way they were computed.
        #[test]
        fn scores_are_the_extractors(text in "[山水火木金土日月星云风雨的了是我们数据库网页a-z0-9 .,，。-]{0,300}") {
            let mut folded = String::new();
            fold_into(&text, &mut folded);
            prop_assert_eq!(
                sorted(jieba_keyword_scores(&folded)),
                sorted(jieba_extractor_scores(&folded))
            );
        }
    }
}
