//! How much each feature counts.

use std::fmt;
use std::str::FromStr;

use crate::OptionsError;

/// How features are weighted in the simhash vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Weighting {
    /// Term frequency: every occurrence of a feature votes once.
    Tf,
    /// Term frequency times inverse document frequency from jieba's IDF
    /// table, keeping only the `top_n` best keywords (words missing from the
    /// table get the median IDF; single characters and stop words are
    /// skipped). `None` picks `max(5, min(200, bytes / 120))` for each text.
    /// With a tokenizer other than jieba no IDF is known, so every feature
    /// has the median IDF and the top features by frequency are kept.
    TfIdf {
        /// How many keywords to keep; `None` for the length-based default.
        top_n: Option<usize>,
    },
    /// Every feature weighted tf × idf³ (idf at most ln 100), the IDF learned from a sample of
    /// the crawl and frozen ([`crate::LearnedIdf`]); features the sample
    /// never had weigh nothing. `digest` names the table
    /// ([`crate::LearnedIdf::digest`]): a [`crate::Simhasher`] with these
    /// options is made from the table itself
    /// ([`crate::Simhasher::learned`]).
    Learned {
        /// The learned table's digest.
        digest: u64,
    },
}

impl Weighting {
    /// The number of keywords kept for a text of `bytes` bytes.
    pub fn keywords_for(&self, bytes: usize) -> usize {
        match self {
            Weighting::Tf | Weighting::Learned { .. } => usize::MAX,
            Weighting::TfIdf { top_n: Some(n) } => *n,
            Weighting::TfIdf { top_n: None } => (bytes / 120).clamp(5, 200),
        }
    }
}

impl fmt::Display for Weighting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Weighting::Tf => f.write_str("tf"),
            Weighting::TfIdf { top_n: None } => f.write_str("tfidf"),
            Weighting::TfIdf { top_n: Some(n) } => write!(f, "tfidf:{n}"),
            Weighting::Learned { digest } => write!(f, "learned:{digest:016x}"),
        }
    }
}

impl FromStr for Weighting {
    type Err = OptionsError;

    /// Parses `tf`, `tfidf`, `tfidf:N` with N ≥ 1, or `learned:DIGEST`
    /// with the table's digest in 16 hex digits.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "tf" => Ok(Weighting::Tf),
            "tfidf" => Ok(Weighting::TfIdf { top_n: None }),
            _ if text.starts_with("learned") => {
                let digest = text
                    .strip_prefix("learned:")
                    .filter(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                    .ok_or_else(|| OptionsError::LearnedDigest(text.to_string()))?;
                Ok(Weighting::Learned { digest })
            }
            _ => {
                let n = text
                    .strip_prefix("tfidf:")
                    .ok_or_else(|| OptionsError::UnknownWeighting(text.to_string()))?;
                match n.parse::<usize>() {
                    Ok(top_n) if top_n > 0 => Ok(Weighting::TfIdf { top_n: Some(top_n) }),
                    _ => Err(OptionsError::KeywordCount(n.to_string())),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_keyword_count_follows_length() {
        let auto = Weighting::TfIdf { top_n: None };
        assert_eq!(auto.keywords_for(0), 5);
        assert_eq!(auto.keywords_for(1200), 10);
        assert_eq!(auto.keywords_for(1_000_000), 200);
        assert_eq!(Weighting::TfIdf { top_n: Some(7) }.keywords_for(0), 7);
    }

    #[test]
    fn parses_and_displays() {
        for name in ["tf", "tfidf", "tfidf:20", "learned:00ab0000ffff1234"] {
            let weighting: Weighting = name.parse().expect("valid");
            assert_eq!(weighting.to_string(), name);
        }
        for bad in [
            "",
            "TF",
            "tfidf:0",
            "tfidf:-1",
            "tfidf:",
            "idf",
            "learned",
            "learned:",
            "learned:12",
            "learned:00ab0000ffff123g",
            "learned:+0ab0000ffff1234",
        ] {
            assert!(bad.parse::<Weighting>().is_err(), "{bad} parsed");
        }
    }
}
