//! Which text of a page is fingerprinted.

use std::fmt;
use std::str::FromStr;

/// Which text of a page is fingerprinted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Extract {
    /// The main content, found by a readability-style extractor
    /// (dom_smoothie); all visible text when it finds none. Site
    /// templates — navigation, sidebars of other headlines, footers — stay
    /// out of the fingerprint.
    #[default]
    Main,
    /// All visible text of the body (no scripts, styles or head).
    All,
}

impl fmt::Display for Extract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Extract::Main => "main",
            Extract::All => "all",
        })
    }
}

/// An extraction name that is neither `main` nor `all`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown extraction {0:?} (expected main or all)")]
pub struct UnknownExtract(pub String);

impl FromStr for Extract {
    type Err = UnknownExtract;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "main" => Ok(Extract::Main),
            "all" => Ok(Extract::All),
            other => Err(UnknownExtract(other.to_string())),
        }
    }
}
