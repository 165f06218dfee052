//! The match rule: when a stored document is a near-duplicate of another.
//!
//! A database matches in two stages when it was created with a
//! [`Confirmation`]: candidates are the stored fingerprints within the
//! confirmation's radius (the permuted tables' wide probe), and each is
//! kept only when the two documents' signatures estimate a resemblance of
//! at least the threshold. Where either document has no signature (stored
//! as a bare fingerprint, or in a database without a confirmation), the
//! pair is matched by distance alone, within `k`: the paper's rule.
//!
//! Every path that applies the rule (a query, a check, the pairs of a
//! corpus) calls [`MatchRule::judge`], so they agree exactly.

use fpdb_simhash::{CommonFeatures, Fingerprint, Signature, SignatureLayout, Simhasher};

use crate::error::{Error, Result};
use crate::MAX_RADIUS;

/// How a database confirms candidates: the signature it stores per
/// document, the radius candidates come from, and the least resemblance
/// that confirms. Fixed when the database is created, like its simhash
/// options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    layout: SignatureLayout,
    threshold_permille: u16,
    radius: u32,
    common_features: CommonFeatures,
}

impl Confirmation {
    /// The measured choice (docs/BENCHMARKS.md, detection quality): the
    /// recommended signature layout, candidates within 12 bits, confirmed
    /// at an estimated resemblance of 0.50.
    pub fn recommended() -> Confirmation {
        Confirmation {
            layout: SignatureLayout::RECOMMENDED,
            threshold_permille: 500,
            radius: 12,
            common_features: CommonFeatures::default(),
        }
    }

    /// A confirmation, checked: `threshold` in [0, 1] (kept to
    /// thousandths), `radius` at most [`crate::MAX_RADIUS`].
    pub fn new(layout: SignatureLayout, threshold: f64, radius: u32) -> Result<Confirmation> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::InvalidOptions(format!(
                "confirmation threshold {threshold} is outside 0 ..= 1"
            )));
        }
        if radius > MAX_RADIUS {
            return Err(Error::InvalidOptions(format!(
                "confirmation radius {radius} is above the largest, {MAX_RADIUS}"
            )));
        }
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "threshold is in [0, 1], so the rounded thousandths are in 0 ..= 1000"
        )]
        let threshold_permille = (threshold * 1000.0).round() as u16;
        Ok(Confirmation {
            layout,
            threshold_permille,
            radius,
            common_features: CommonFeatures::default(),
        })
    }

    /// The same confirmation leaving `common` out of every signature (a
    /// site template's words, learned from a sample of the crawl).
    pub fn with_common_features(mut self, common: CommonFeatures) -> Confirmation {
        self.common_features = common;
        self
    }

    /// The signature stored per document.
    pub fn layout(&self) -> SignatureLayout {
        self.layout
    }

    /// The least estimated resemblance that confirms a candidate.
    pub fn threshold(&self) -> f64 {
        f64::from(self.threshold_permille) / 1000.0
    }

    /// The threshold in thousandths, as stored.
    pub(crate) fn threshold_permille(&self) -> u16 {
        self.threshold_permille
    }

    /// The Hamming radius candidates are retrieved within.
    pub fn radius(&self) -> u32 {
        self.radius
    }

    /// The features left out of every signature.
    pub fn common_features(&self) -> &CommonFeatures {
        &self.common_features
    }

    /// The signature of a text's feature hashes ([`Simhasher::feature_hashes`])
    /// without the common features; `None` when none is left.
    pub fn signature(&self, features: &[u64]) -> Option<Signature> {
        let kept = self.common_features.remove_from(features);
        Signature::from_feature_hashes(self.layout, &kept).ok()
    }

    /// Rebuilds a stored confirmation (the manifest's fields).
    pub(crate) fn from_stored(
        layout: SignatureLayout,
        threshold_permille: u16,
        radius: u32,
        common_features: CommonFeatures,
    ) -> Confirmation {
        Confirmation {
            layout,
            threshold_permille,
            radius,
            common_features,
        }
    }
}

/// What a query or a check compares: a fingerprint, and the document's
/// signature when it was made from text under a database's confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The 64-bit simhash.
    pub fingerprint: Fingerprint,
    /// The confirming signature; `None` for a bare fingerprint.
    pub signature: Option<Signature>,
}

impl From<Fingerprint> for Document {
    fn from(fingerprint: Fingerprint) -> Self {
        Document {
            fingerprint,
            signature: None,
        }
    }
}

impl Document {
    /// What a query, a check or a corpus compares of `text`: its
    /// fingerprint, and its signature under `confirmation`. Errors with
    /// [`Error::NoFeatures`] for a text with nothing to compare. A text
    /// whose features are all common (a bare site template) has no
    /// signature and is matched by distance alone.
    pub fn of_text(
        simhasher: &Simhasher,
        confirmation: Option<&Confirmation>,
        text: &str,
    ) -> Result<Document> {
        let features = simhasher.feature_hashes(text);
        if features.is_empty() {
            return Err(Error::NoFeatures);
        }
        // Learned weights give the fingerprint from the features already
        // hashed (the same as from the text); other weightings read it.
        let fingerprint = match simhasher.learned_idf() {
            Some(idf) => idf.fingerprint(&features),
            None => simhasher.fingerprint(text),
        };
        Ok(Document {
            fingerprint,
            signature: confirmation.and_then(|confirmation| confirmation.signature(&features)),
        })
    }

    /// The signature's bytes as stored (empty for a bare fingerprint).
    pub(crate) fn signature_bytes(&self) -> &[u8] {
        self.signature.as_ref().map_or(&[], Signature::as_bytes)
    }
}

/// A stored document the rule matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Near {
    /// The stored document's id.
    pub id: String,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// The Hamming distance of the two fingerprints.
    pub distance: u32,
    /// The estimated resemblance that confirmed the match; `None` when it
    /// was matched by distance alone (one of the two has no signature).
    pub similarity: Option<f64>,
}

/// The rule one query or check applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchRule {
    /// The radius of a match by distance alone.
    pub k: u32,
    /// The second stage, for documents that both have signatures.
    pub confirmation: Option<Confirmation>,
}

impl MatchRule {
    /// The radius candidates are retrieved within: the wider of `k` and
    /// the confirmation's radius.
    pub fn retrieval_radius(&self) -> u32 {
        self.confirmation
            .as_ref()
            .map_or(self.k, |c| c.radius.max(self.k))
    }

    /// Whether two documents `distance` bits apart match, given their
    /// signatures' bytes (empty for a bare document): `None` when they do
    /// not, `Some(similarity)` when they do (`Some(None)` by distance
    /// alone). Signature bytes of another length than the layout's count
    /// as no signature.
    pub fn judge(&self, distance: u32, a: &[u8], b: &[u8]) -> Option<Option<f64>> {
        let signed = |bytes: &[u8]| {
            self.confirmation
                .as_ref()
                .and_then(|c| Signature::from_bytes(c.layout, bytes).ok())
        };
        match (&self.confirmation, signed(a), signed(b)) {
            (Some(confirmation), Some(a), Some(b)) => {
                if distance > confirmation.radius {
                    return None;
                }
                let similarity = a.similarity(&b).ok()?;
                (similarity >= confirmation.threshold()).then_some(Some(similarity))
            }
            _ => (distance <= self.k).then_some(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> MatchRule {
        MatchRule {
            k: 3,
            confirmation: Some(Confirmation::recommended()),
        }
    }

    fn signed(text: &str) -> Vec<u8> {
        Simhasher::default()
            .signature(text, SignatureLayout::RECOMMENDED)
            .unwrap()
            .as_bytes()
            .to_vec()
    }

    #[test]
    fn bare_documents_match_by_distance_alone() {
        let rule = rule();
        let a = signed("近重复网页检测：同一篇文章出现在许多网址下。");
        assert_eq!(rule.judge(3, &[], &[]), Some(None));
        assert_eq!(rule.judge(4, &[], &[]), None);
        assert_eq!(rule.judge(3, &a, &[]), Some(None));
        assert_eq!(rule.judge(5, &[], &a), None);
        let distance_only = MatchRule {
            k: 3,
            confirmation: None,
        };
        assert_eq!(distance_only.judge(2, &a, &a), Some(None));
        assert_eq!(distance_only.retrieval_radius(), 3);
    }

    #[test]
    fn signed_documents_are_confirmed_within_the_radius() {
        let rule = rule();
        assert_eq!(rule.retrieval_radius(), 12);
        let a = signed("近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。");
        let b = signed("近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们。");
        let other = signed("The quick brown fox jumps over the lazy dog near the river bank.");
        let similarity = rule.judge(9, &a, &b).unwrap().unwrap();
        assert!(similarity >= 0.5, "{similarity}");
        assert_eq!(rule.judge(13, &a, &b), None, "past the radius");
        assert_eq!(
            rule.judge(0, &a, &other),
            None,
            "different texts are not confirmed"
        );
    }

    #[test]
    fn thresholds_are_checked_and_kept_to_thousandths() {
        let layout = SignatureLayout::RECOMMENDED;
        assert!(Confirmation::new(layout, 1.5, 7).is_err());
        assert!(Confirmation::new(layout, 0.5, 17).is_err());
        let confirmation = Confirmation::new(layout, 0.5555, 7).unwrap();
        assert_eq!(confirmation.threshold_permille(), 556);
        assert_eq!(confirmation.threshold(), 0.556);
    }
}
