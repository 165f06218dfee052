//! Splitting folded text into features.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use jieba_rs::Jieba;
use unicode_segmentation::UnicodeSegmentation;

use crate::feature_hash::hash_feature;
use crate::normalize::{fold_char, is_meaningful_word};
use crate::stop_words::is_stop_word_hashed;
use crate::OptionsError;

/// Longest n accepted by [`Tokenizer::Chars`]: longer shingles make every
/// small edit touch too many features to be useful.
pub const MAX_SHINGLE_CHARS: usize = 16;

/// jieba's dictionary loads once per process (about 0.2 s) and is shared by
/// every [`crate::Simhasher`].
pub(crate) static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

/// How text becomes features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Tokenizer {
    /// Words from jieba's dictionary segmentation (no HMM, so the result
    /// depends only on the dictionary). Handles mixed text: Chinese is
    /// segmented into words, Latin words and numbers come through whole.
    /// Stop words, numbers, punctuation and whitespace are dropped.
    #[default]
    Jieba,
    /// Overlapping shingles of `n` characters over the text with whitespace
    /// and punctuation removed (the classic 4-gram scheme is `Chars(4)`).
    Chars(usize),
    /// Unicode word boundaries (UAX #29); stop words and numbers dropped.
    /// Cheap, and right for languages that separate words with spaces.
    Words,
}

impl Tokenizer {
    /// Calls `emit` with every feature of one chunk of already folded text
    /// and its [`hash_feature`], once per occurrence. Only for the
    /// word-based tokenizers; character shingles run over the whole text
    /// (see [`for_each_shingle`]). With `keep_numbers`, bare numbers are
    /// features too (see `crate::numbers`).
    pub(crate) fn for_each_word(
        &self,
        folded: &str,
        keep_numbers: bool,
        mut emit: impl FnMut(&str, u64),
    ) {
        let mut each = |token: &str| {
            if let Some(hash) = word_feature_hash(token, keep_numbers) {
                emit(token, hash);
            }
        };
        match self {
            Tokenizer::Jieba => JIEBA.cut(folded, false).iter().for_each(|t| each(t.word)),
            Tokenizer::Words => folded.unicode_words().for_each(each),
            Tokenizer::Chars(_) => {}
        }
    }
}

/// A token is a feature unless it is punctuation, whitespace, a stop word or
/// (unless `keep_numbers`) a bare number; its feature hash if it is one.
/// The hash is computed once for both the stop-word lookup and the vote.
#[inline]
fn word_feature_hash(token: &str, keep_numbers: bool) -> Option<u64> {
    let feature = if keep_numbers {
        token.chars().any(char::is_alphanumeric)
    } else {
        is_meaningful_word(token)
    };
    if !feature {
        return None;
    }
    let hash = hash_feature(token);
    (!is_stop_word_hashed(token, hash)).then_some(hash)
}

/// Calls `emit` with every `n`-character shingle of `text`: folded, with
/// everything but letters and digits removed. Text shorter than `n` (but not
/// empty) is one feature, so short documents still get a fingerprint.
pub(crate) fn for_each_shingle(text: &str, n: usize, mut emit: impl FnMut(&str)) {
    // A window of the last n kept characters, re-encoded per shingle: n is
    // small, and this keeps memory constant however long the text is.
    let mut window: std::collections::VecDeque<char> = std::collections::VecDeque::with_capacity(n);
    let mut buffer = String::with_capacity(n * 4);
    let mut emitted_any = false;
    for raw in text.chars() {
        fold_char(raw, |c| {
            if !c.is_alphanumeric() {
                return;
            }
            if window.len() == n {
                window.pop_front();
            }
            window.push_back(c);
            if window.len() == n {
                buffer.clear();
                buffer.extend(window.iter());
                emit(&buffer);
                emitted_any = true;
            }
        });
    }
    if !emitted_any && !window.is_empty() {
        buffer.clear();
        buffer.extend(window.iter());
        emit(&buffer);
    }
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tokenizer::Jieba => f.write_str("jieba"),
            Tokenizer::Chars(n) => write!(f, "chars:{n}"),
            Tokenizer::Words => f.write_str("words"),
        }
    }
}

impl FromStr for Tokenizer {
    type Err = OptionsError;

    /// Parses `jieba`, `words` or `chars:N` (1 ≤ N ≤ 16); `chars` alone is
    /// `chars:4`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "jieba" => Ok(Tokenizer::Jieba),
            "words" => Ok(Tokenizer::Words),
            "chars" => Ok(Tokenizer::Chars(4)),
            _ => {
                let n = text
                    .strip_prefix("chars:")
                    .ok_or_else(|| OptionsError::UnknownTokenizer(text.to_string()))?;
                let n: usize = n
                    .parse()
                    .map_err(|_| OptionsError::ShingleLength(n.to_string()))?;
                if n == 0 || n > MAX_SHINGLE_CHARS {
                    return Err(OptionsError::ShingleLength(n.to_string()));
                }
                Ok(Tokenizer::Chars(n))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::fold_into;

    fn words(tokenizer: Tokenizer, text: &str) -> Vec<String> {
        let mut folded = String::new();
        fold_into(text, &mut folded);
        let mut out = Vec::new();
        tokenizer.for_each_word(&folded, false, |w, hash| {
            assert_eq!(hash, hash_feature(w));
            out.push(w.to_string());
        });
        out
    }

    fn shingles(text: &str, n: usize) -> Vec<String> {
        let mut out = Vec::new();
        for_each_shingle(text, n, |s| out.push(s.to_string()));
        out
    }

    #[test]
    fn jieba_segments_mixed_text_and_drops_noise() {
        let got = words(Tokenizer::Jieba, "我们在2024年用Rust写了指纹数据库！");
        assert!(got.contains(&"rust".to_string()), "{got:?}");
        assert!(got.contains(&"指纹".to_string()), "{got:?}");
        assert!(got.contains(&"数据库".to_string()), "{got:?}");
        for dropped in ["我们", "在", "2024", "了", "！"] {
            assert!(
                !got.contains(&dropped.to_string()),
                "{dropped} kept: {got:?}"
            );
        }
    }

    #[test]
    fn words_split_on_unicode_boundaries() {
        assert_eq!(
            words(Tokenizer::Words, "The Quick, brown fox: 42 times!"),
            ["quick", "brown", "fox", "times"]
        );
    }

    #[test]
    fn shingles_skip_punctuation_and_cover_short_text() {
        assert_eq!(shingles("你好，世界!", 4), ["你好世界"]);
        assert_eq!(shingles("ABCDE", 4), ["abcd", "bcde"]);
        assert_eq!(shingles("ab", 4), ["ab"]);
        assert!(shingles("  ，。", 4).is_empty());
    }

    #[test]
    fn parses_and_displays() {
        for name in ["jieba", "words", "chars:4", "chars:1", "chars:16"] {
            let tokenizer: Tokenizer = name.parse().expect("valid");
            assert_eq!(tokenizer.to_string(), name);
        }
        assert_eq!("chars".parse(), Ok(Tokenizer::Chars(4)));
        for bad in ["", "Jieba", "chars:0", "chars:17", "chars:x", "bigrams"] {
            assert!(bad.parse::<Tokenizer>().is_err(), "{bad} parsed");
        }
    }
}
