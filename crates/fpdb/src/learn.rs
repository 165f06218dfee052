//! What the first texts of a crawl teach: how rare each word is (learned
//! weights for the fingerprint) and which features a site's template puts
//! on every page (left out of the confirming signature). Learned once from
//! a sample, then frozen: a database keeps them, a corpus's dedup applies
//! them to every text.

use std::sync::Arc;

use fpdb_simhash::{CommonFeatures, LearnedIdf};

use crate::options::Options;

/// The number of texts the tables are learned from: the first this many
/// of the crawl (fewer when it has fewer).
pub const LEARN_SAMPLE: usize = 10_000;

/// A sample smaller than this learns no common features: in a handful of
/// documents a fifth of them is one or two, and every word of a repeated
/// page would count as a template's.
pub const MIN_COMMON_SAMPLE: usize = 1_000;

/// The share of documents (percent) a feature must exceed to be common.
pub const COMMON_PERCENT: u8 = 20;

/// The common features of a sample of a corpus (each document as its
/// feature hashes): those in more than [`COMMON_PERCENT`] percent of its
/// documents, or none for a sample smaller than [`MIN_COMMON_SAMPLE`].
pub fn learn_common_features(sample: &[Vec<u64>]) -> CommonFeatures {
    if sample.len() < MIN_COMMON_SAMPLE {
        return CommonFeatures::default();
    }
    CommonFeatures::learn(sample.iter().map(Vec::as_slice), COMMON_PERCENT).unwrap_or_default()
}

impl Options {
    /// These options with what `sample` (the first texts of the crawl,
    /// each as its feature hashes, at most [`LEARN_SAMPLE`]) teaches: with
    /// `weights`, the learned word weights ([`Options::learned_weights`]);
    /// with a confirmation, its common features.
    pub fn learned_from(mut self, sample: &[Vec<u64>], weights: bool) -> Options {
        if weights {
            self = self.learned_weights(Arc::new(LearnedIdf::learn(
                sample.iter().map(Vec::as_slice),
            )));
        }
        self.confirmation = self
            .confirmation
            .take()
            .map(|c| c.with_common_features(learn_common_features(sample)));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_sample_learns_no_common_features() {
        let page = vec![1u64, 2, 3];
        assert!(learn_common_features(&vec![page.clone(); 10])
            .hashes()
            .is_empty());
        let mut sample = vec![page; MIN_COMMON_SAMPLE];
        // Feature 9 in one document of a thousand is not common.
        sample[0].push(9);
        assert_eq!(
            learn_common_features(&sample).hashes(),
            &[1, 2, 3],
            "the template's features, not the rare one"
        );
    }

    #[test]
    fn options_learn_weights_and_common_features_from_a_sample() {
        let mut sample = vec![vec![1u64, 2, 3]; MIN_COMMON_SAMPLE];
        sample[0].push(9);
        let confirmed = Options::default().confirmation(Some(crate::Confirmation::recommended()));
        let learned = confirmed.clone().learned_from(&sample, true);
        let idf = learned.learned_weights.as_deref().expect("weights");
        assert_eq!(
            idf.weight(9),
            LearnedIdf::learn(sample.iter().map(Vec::as_slice)).weight(9)
        );
        assert!(idf.weight(9) > 0);
        assert_eq!(
            learned
                .confirmation
                .as_ref()
                .map(|c| c.common_features().hashes().to_vec()),
            Some(vec![1, 2, 3])
        );
        let unweighted = confirmed.learned_from(&sample, false);
        assert!(unweighted.learned_weights.is_none());
        assert_eq!(unweighted.simhash, Options::default().simhash);
    }
}
