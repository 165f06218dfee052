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
}

impl Weighting {
    /// The number of keywords kept for a text of `bytes` bytes.
    pub fn keywords_for(&self, bytes: usize) -> usize {
        match self {
            Weighting::Tf => usize::MAX,
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
        }
    }
}

impl FromStr for Weighting {
    type Err = OptionsError;

    /// Parses `tf`, `tfidf` or `tfidf:N` with N ≥ 1.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "tf" => Ok(Weighting::Tf),
            "tfidf" => Ok(Weighting::TfIdf { top_n: None }),
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
        for name in ["tf", "tfidf", "tfidf:20"] {
            let weighting: Weighting = name.parse().expect("valid");
            assert_eq!(weighting.to_string(), name);
        }
        for bad in ["", "TF", "tfidf:0", "tfidf:-1", "tfidf:", "idf"] {
            assert!(bad.parse::<Weighting>().is_err(), "{bad} parsed");
        }
    }
}
