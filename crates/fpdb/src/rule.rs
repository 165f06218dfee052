//! The match rule: when a stored document is a near-duplicate of another.
//!
//! A database matches in two stages when it was created with a
//! [`Confirmation`]: candidates are the stored fingerprints within the
//! confirmation's radius (the permuted tables' wide probe) or, when it
//! keeps weak bits, those within the radius that each document's weak
//! bits reach ([`WeakBits::reaches`]; probed in the tables keyed by the
//! fingerprint's quarters), and each is kept only when the two
//! documents' signatures estimate a resemblance of at least the
//! threshold and, when the confirmation asks, enough shingles shared. A
//! text that is mostly numbers (a price list, a table of figures) is
//! signed with its numbers among its features, when the confirmation
//! counts them: two such pages of one site share all their words.
//! Where either document has no signature (stored as a bare fingerprint,
//! or in a database without a confirmation), the pair is matched by
//! distance alone, within `k`: the paper's rule.
//!
//! Every path that applies the rule (a query, a check, the pairs of a
//! corpus) calls [`MatchRule::judge`], so they agree exactly.

use fpdb_simhash::{
    digit_permille, distinct_shingles, CommonFeatures, Fingerprint, Signature, SignatureLayout,
    Simhasher, WeakBits, EVERY_SUBSET, MAX_WEAK_BITS_PER_QUARTER,
};

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
    weak_bits: u8,
    /// The most weak bits a reach flips in a quarter; 0 for every subset.
    weak_flips: u8,
    min_shared: u16,
    numbers_permille: u16,
}

/// The recommended confirmation's radius: under weak bits a wider radius
/// probes no more prefixes, but every reached fingerprint within it is
/// read and judged (at 10M, 190-208 µs a query at 14 bits, 461 µs at 16).
const RECOMMENDED_RADIUS: u32 = 14;

impl Confirmation {
    /// The measured choice (docs/BENCHMARKS.md, detection quality): the
    /// recommended signature layout; candidates within 14 bits that both
    /// documents' 6 weak bits a quarter reach with at most 2 of them
    /// flipped (22 probes a table);
    /// confirmed at an estimated resemblance of 0.45 with at least 7
    /// shingles estimated shared; numbers count in the signature of a
    /// text whose digits are at least 20% of its letters and digits.
    pub fn recommended() -> Confirmation {
        Confirmation {
            layout: SignatureLayout::RECOMMENDED,
            threshold_permille: 450,
            radius: RECOMMENDED_RADIUS,
            common_features: CommonFeatures::default(),
            weak_bits: 6,
            weak_flips: 2,
            min_shared: 7,
            numbers_permille: 200,
        }
    }

    /// The rule for signatures compared alone, without weak bits or
    /// shingle counts (the rule before them, still measured beside the
    /// recommended one): the recommended layout, every candidate within 12
    /// bits, confirmed at an estimated resemblance of 0.50.
    pub fn signatures_alone() -> Confirmation {
        Confirmation {
            layout: SignatureLayout::RECOMMENDED,
            threshold_permille: 500,
            radius: 12,
            common_features: CommonFeatures::default(),
            weak_bits: 0,
            weak_flips: 0,
            min_shared: 0,
            numbers_permille: 0,
        }
    }

    /// The same confirmation with another threshold and radius, checked as
    /// [`Confirmation::new`] checks them.
    pub fn with_threshold_and_radius(self, threshold: f64, radius: u32) -> Result<Confirmation> {
        let checked = Confirmation::new(self.layout, threshold, radius)?;
        Ok(Confirmation {
            threshold_permille: checked.threshold_permille,
            radius: checked.radius,
            ..self
        })
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
            weak_bits: 0,
            weak_flips: 0,
            min_shared: 0,
            numbers_permille: 0,
        })
    }

    /// The same confirmation also asking that two documents be estimated
    /// to share at least `shingles` shingles: J / (1 + J) × (n₁ + n₂),
    /// from the estimate J and each document's count of distinct
    /// shingles n (stored beside its signature), so that two short texts
    /// sharing little but a site template are not confirmed. 0 asks
    /// nothing.
    pub fn with_min_shared(mut self, shingles: u16) -> Confirmation {
        self.min_shared = shingles;
        self
    }

    /// The fewest shingles two confirmed documents are estimated to share;
    /// 0 when not asked.
    pub fn min_shared(&self) -> u16 {
        self.min_shared
    }

    /// The same confirmation counting bare numbers among the features of
    /// the signature of every text whose digits are at least `permille`
    /// thousandths of its letters and digits ([`digit_permille`]; at most
    /// 1000). Numbers are otherwise never features, so that changed dates
    /// and counters keep copies together; on a page that is mostly
    /// numbers they are its content. 0 never counts them.
    pub fn with_numbers_from(mut self, permille: u16) -> Result<Confirmation> {
        if permille > 1000 {
            return Err(Error::InvalidOptions(format!(
                "numbers from {permille}‰ of digits is above 1000‰"
            )));
        }
        self.numbers_permille = permille;
        Ok(self)
    }

    /// Digits per thousand of a text's letters and digits from which its
    /// numbers count in its signature; 0 when they never do.
    pub fn numbers_from_permille(&self) -> u16 {
        self.numbers_permille
    }

    /// The features of `text`'s signature when they are not its word
    /// features ([`Simhasher::feature_hashes`]): its words and numbers,
    /// when this confirmation counts numbers and enough of `text` is
    /// digits; `None` otherwise.
    pub fn number_features(&self, simhasher: &Simhasher, text: &str) -> Option<Vec<u64>> {
        (self.numbers_permille > 0 && digit_permille(text) >= self.numbers_permille)
            .then(|| simhasher.feature_and_number_hashes(text))
    }

    /// The same confirmation keeping `per_quarter` weak bits in each
    /// quarter of every document's fingerprint (at most
    /// [`MAX_WEAK_BITS_PER_QUARTER`]): candidates are then only the
    /// fingerprints within the radius that both documents' weak bits
    /// reach, which a query finds with 2^`per_quarter` probes a table
    /// instead of every prefix within the radius. 0 keeps every
    /// fingerprint within the radius.
    pub fn with_weak_bits(mut self, per_quarter: u32) -> Result<Confirmation> {
        self.weak_bits = u8::try_from(per_quarter)
            .ok()
            .filter(|&bits| u32::from(bits) <= MAX_WEAK_BITS_PER_QUARTER)
            .ok_or_else(|| {
                Error::InvalidOptions(format!(
                    "{per_quarter} weak bits per quarter is above the most, {MAX_WEAK_BITS_PER_QUARTER}"
                ))
            })?;
        Ok(self)
    }

    /// Weak bits kept per quarter; 0 when candidates are every
    /// fingerprint within the radius.
    pub fn weak_bits(&self) -> u32 {
        u32::from(self.weak_bits)
    }

    /// The same confirmation reaching only through a quarter where at
    /// most `flips` (at least 1) of the weak bits differ: `1 + n + … +
    /// C(n, flips)` probes a table for `n` weak bits instead of 2^n (the
    /// copies an edit makes seldom differ in more than two of a quarter's
    /// weakest bits). [`EVERY_SUBSET`] or more reaches through every
    /// subset of them.
    pub fn with_weak_flips(mut self, flips: u32) -> Result<Confirmation> {
        if flips == 0 {
            return Err(Error::InvalidOptions(
                "at most 0 weak bits flipped reaches nothing the weak bits add: ask at least 1"
                    .to_string(),
            ));
        }
        // Stored as 0 for every subset, as databases before the cap hold it.
        self.weak_flips = u8::try_from(flips)
            .ok()
            .filter(|&flips| u32::from(flips) < EVERY_SUBSET)
            .unwrap_or(0);
        Ok(self)
    }

    /// The most weak bits flipped in a reaching quarter
    /// ([`WeakBits::reaches`]); [`EVERY_SUBSET`] when any number may be.
    pub fn weak_flips(&self) -> u32 {
        if self.weak_flips == 0 {
            EVERY_SUBSET
        } else {
            u32::from(self.weak_flips)
        }
    }

    /// [`Confirmation::weak_flips`] as the manifest stores it: 0 for every
    /// subset.
    pub(crate) fn stored_weak_flips(&self) -> u8 {
        self.weak_flips
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

    /// The bytes stored beside each signed document's id: its signature,
    /// then its shingle count (2 bytes) when this confirmation weighs it,
    /// then its weak bits (8 bytes) when it keeps them.
    pub fn stored_bytes(&self) -> usize {
        self.layout.bytes()
            + if self.min_shared > 0 { 2 } else { 0 }
            + if self.weak_bits > 0 { 8 } else { 0 }
    }

    /// The features left out of every signature.
    pub fn common_features(&self) -> &CommonFeatures {
        &self.common_features
    }

    /// The signature of a text's signature features (its
    /// [`Simhasher::feature_hashes`], or [`Confirmation::number_features`]
    /// when there are such) without the common features; `None` when none
    /// is left.
    pub fn signature(&self, features: &[u64]) -> Option<Signature> {
        self.signed(features).map(|(signature, _)| signature)
    }

    /// [`Confirmation::signature`] and the number of distinct shingles it
    /// was taken over, when this confirmation weighs it (else 0).
    pub(crate) fn signed(&self, features: &[u64]) -> Option<(Signature, u32)> {
        let kept = self.common_features.remove_from(features);
        let signature = Signature::from_feature_hashes(self.layout, &kept).ok()?;
        let shingles = if self.min_shared > 0 {
            distinct_shingles(self.layout, &kept)
        } else {
            0
        };
        Some((signature, shingles))
    }

    /// Rebuilds a stored confirmation (the manifest's fields).
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per stored field, named as the manifest names them"
    )]
    pub(crate) fn from_stored(
        layout: SignatureLayout,
        threshold_permille: u16,
        radius: u32,
        common_features: CommonFeatures,
        weak_bits: u8,
        weak_flips: u8,
        min_shared: u16,
        numbers_permille: u16,
    ) -> Confirmation {
        Confirmation {
            layout,
            threshold_permille,
            radius,
            common_features,
            weak_bits,
            weak_flips,
            min_shared,
            numbers_permille,
        }
    }

    /// A stored document: its fingerprint and the bytes stored beside
    /// its id ([`Document::stored_bytes`]); bytes this confirmation cannot
    /// read make a bare document.
    pub fn stored_document(&self, fingerprint: Fingerprint, bytes: &[u8]) -> Document {
        match self.parse(bytes) {
            Some(Parsed {
                signature,
                shingles,
                weak_bits,
            }) => Document {
                fingerprint,
                signature: Some(signature),
                shingles,
                weak_bits,
            },
            None => Document::from(fingerprint),
        }
    }

    /// A stored signature's bytes as the signature and, when this
    /// confirmation keeps them, the weak bits after it; `None` for a bare
    /// document or bytes of another length.
    fn parse(&self, bytes: &[u8]) -> Option<Parsed> {
        if bytes.len() != self.stored_bytes() {
            return None;
        }
        let (signature, rest) = bytes.split_at_checked(self.layout.bytes())?;
        let (shingles, weak) = if self.min_shared > 0 {
            let (count, weak) = rest.split_first_chunk::<2>()?;
            (u32::from(u16::from_be_bytes(*count)), weak)
        } else {
            (0, rest)
        };
        let weak_bits = match weak.first_chunk::<8>() {
            Some(weak) if self.weak_bits > 0 => Some(WeakBits::from_bytes(*weak)),
            _ => None,
        };
        Some(Parsed {
            signature: Signature::from_bytes(self.layout, signature).ok()?,
            shingles,
            weak_bits,
        })
    }
}

/// A signed document's stored bytes, read.
struct Parsed {
    signature: Signature,
    shingles: u32,
    weak_bits: Option<WeakBits>,
}

/// What a query or a check compares: a fingerprint, and the document's
/// signature (with its weak bits, when the confirmation keeps them) when
/// it was made from text under a database's confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The 64-bit simhash.
    pub fingerprint: Fingerprint,
    /// The confirming signature; `None` for a bare fingerprint.
    pub signature: Option<Signature>,
    /// The distinct shingles the signature was taken over, under a
    /// confirmation that weighs them ([`Confirmation::with_min_shared`]);
    /// else 0.
    pub shingles: u32,
    /// The fingerprint's weak bits, under a confirmation that keeps them.
    pub weak_bits: Option<WeakBits>,
}

impl From<Fingerprint> for Document {
    fn from(fingerprint: Fingerprint) -> Self {
        Document {
            fingerprint,
            signature: None,
            shingles: 0,
            weak_bits: None,
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
        let per_quarter = confirmation.map_or(0, Confirmation::weak_bits);
        // Learned weights give the fingerprint from the features already
        // hashed (the same as from the text); other weightings read it.
        let (fingerprint, weak_bits) = match simhasher.learned_idf() {
            Some(idf) => idf.fingerprint_and_weak_bits(&features, per_quarter),
            None => simhasher.fingerprint_and_weak_bits(text, per_quarter),
        };
        let signed = confirmation.and_then(|confirmation| {
            match confirmation.number_features(simhasher, text) {
                Some(with_numbers) => confirmation.signed(&with_numbers),
                None => confirmation.signed(&features),
            }
        });
        Ok(Document {
            fingerprint,
            shingles: signed.as_ref().map_or(0, |(_, shingles)| *shingles),
            signature: signed.map(|(signature, _)| signature),
            weak_bits: (per_quarter > 0).then_some(weak_bits),
        })
    }

    /// The bytes stored beside the document's id under `confirmation`
    /// (empty for a bare fingerprint): its signature, its shingle count
    /// (u16, big-endian, saturated) when the confirmation weighs it, and
    /// its weak bits when the confirmation keeps them; as
    /// [`MatchRule::judge`] reads them.
    pub fn stored_bytes(&self, confirmation: Option<&Confirmation>) -> Vec<u8> {
        let (Some(signature), Some(confirmation)) = (&self.signature, confirmation) else {
            return Vec::new();
        };
        let mut bytes = signature.as_bytes().to_vec();
        if confirmation.min_shared > 0 {
            let shingles = u16::try_from(self.shingles).unwrap_or(u16::MAX);
            bytes.extend_from_slice(&shingles.to_be_bytes());
        }
        if confirmation.weak_bits > 0 {
            bytes.extend_from_slice(&self.weak_bits.unwrap_or_default().to_bytes());
        }
        bytes
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

    /// Whether two documents whose fingerprints differ in the bits of
    /// `xor` match, given their stored bytes ([`Document::stored_bytes`],
    /// empty for a bare document): `None` when they do not,
    /// `Some(similarity)` when they do (`Some(None)` by distance alone).
    /// Bytes of another length than the confirmation's count as no
    /// signature.
    pub fn judge(&self, xor: u64, a: &[u8], b: &[u8]) -> Option<Option<f64>> {
        let distance = xor.count_ones();
        let Some(confirmation) = &self.confirmation else {
            return (distance <= self.k).then_some(None);
        };
        match (confirmation.parse(a), confirmation.parse(b)) {
            (Some(a), Some(b)) => {
                if distance > confirmation.radius {
                    return None;
                }
                let flips = confirmation.weak_flips();
                let reached =
                    |weak: Option<WeakBits>| weak.is_none_or(|weak| weak.reaches(xor, flips));
                if !(reached(a.weak_bits) && reached(b.weak_bits)) {
                    return None;
                }
                let similarity = a.signature.similarity(&b.signature).ok()?;
                let shared = similarity / (1.0 + similarity) * f64::from(a.shingles + b.shingles);
                (similarity >= confirmation.threshold()
                    && shared >= f64::from(confirmation.min_shared))
                .then_some(Some(similarity))
            }
            _ => (distance <= self.k).then_some(None),
        }
    }

    /// The weak bits a query of `document` probes with: the document's,
    /// when the confirmation keeps them and the document is signed.
    pub fn probed_weak_bits(&self, document: &Document) -> Option<WeakBits> {
        self.confirmation
            .as_ref()
            .filter(|c| c.weak_bits > 0 && document.signature.is_some())
            .and(document.weak_bits)
    }

    /// The most weak bits a reach flips in a quarter ([`WeakBits::reaches`]).
    pub fn weak_flips(&self) -> u32 {
        self.confirmation
            .as_ref()
            .map_or(EVERY_SUBSET, Confirmation::weak_flips)
    }

    /// The radius a query of `document` retrieves candidates within: a
    /// bare document matches by distance alone, so within `k`.
    pub fn retrieval_radius_of(&self, document: &Document) -> u32 {
        if document.signature.is_some() {
            self.retrieval_radius()
        } else {
            self.k
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> MatchRule {
        MatchRule {
            k: 3,
            confirmation: Some(Confirmation::signatures_alone()),
        }
    }

    /// A difference of `n` bits, all in the last quarter.
    fn bits(n: u32) -> u64 {
        (1u64 << n) - 1
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
        assert_eq!(rule.judge(bits(3), &[], &[]), Some(None));
        assert_eq!(rule.judge(bits(4), &[], &[]), None);
        assert_eq!(rule.judge(bits(3), &a, &[]), Some(None));
        assert_eq!(rule.judge(bits(5), &[], &a), None);
        let distance_only = MatchRule {
            k: 3,
            confirmation: None,
        };
        assert_eq!(distance_only.judge(bits(2), &a, &a), Some(None));
        assert_eq!(distance_only.retrieval_radius(), 3);
    }

    #[test]
    fn signed_documents_are_confirmed_within_the_radius() {
        let rule = rule();
        assert_eq!(rule.retrieval_radius(), 12);
        let a = signed("近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。");
        let b = signed("近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们。");
        let other = signed("The quick brown fox jumps over the lazy dog near the river bank.");
        let similarity = rule.judge(bits(9), &a, &b).unwrap().unwrap();
        assert!(similarity >= 0.5, "{similarity}");
        assert_eq!(rule.judge(bits(13), &a, &b), None, "past the radius");
        assert_eq!(
            rule.judge(bits(0), &a, &other),
            None,
            "different texts are not confirmed"
        );
    }

    #[test]
    fn weak_bits_must_reach_both_ways() {
        let rule = MatchRule {
            k: 3,
            confirmation: Some(Confirmation::signatures_alone().with_weak_bits(2).unwrap()),
        };
        let text = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。";
        let with_weak = |weak: u64| {
            let mut bytes = signed(text);
            bytes.extend_from_slice(&WeakBits(weak).to_bytes());
            bytes
        };
        // 6 bits apart, in every quarter: a reaches through quarter 0,
        // b through quarter 1, c through none.
        let xor = 0xc000_3000_0001_0001u64;
        let a = with_weak(0xc000_0000_0000_0000);
        let b = with_weak(0x0000_3000_0000_0000);
        assert!(
            rule.judge(xor, &a, &b).unwrap().unwrap() > 0.99,
            "each reaches the other"
        );
        let c = with_weak(0x0000_c000_0000_0000);
        assert_eq!(rule.judge(xor, &a, &c), None, "c does not reach");
        assert_eq!(
            rule.judge(bits(3), &a, &c).map(|s| s.is_some()),
            Some(true),
            "within 3 bits always reaches"
        );
        // Bytes without their weak bits are a bare document.
        assert_eq!(rule.judge(xor, &a, &signed(text)), None);
        assert!(Confirmation::recommended().with_weak_bits(9).is_err());
    }

    #[test]
    fn the_gate_asks_for_shingles_estimated_shared() {
        let confirmation = Confirmation::signatures_alone().with_min_shared(7);
        let rule = MatchRule {
            k: 3,
            confirmation: Some(confirmation.clone()),
        };
        assert_eq!(
            confirmation.stored_bytes(),
            SignatureLayout::RECOMMENDED.bytes() + 2
        );
        let with_count = |count: u16| {
            let mut bytes = signed("near duplicate pages share most of their words");
            bytes.extend_from_slice(&count.to_be_bytes());
            bytes
        };
        // Identical signatures: J = 1, so half the two counts are shared.
        assert!(rule
            .judge(bits(5), &with_count(7), &with_count(7))
            .is_some());
        assert!(rule
            .judge(bits(5), &with_count(8), &with_count(6))
            .is_some());
        assert_eq!(rule.judge(bits(5), &with_count(7), &with_count(6)), None);
        assert_eq!(rule.judge(bits(5), &with_count(1), &with_count(12)), None);
        // Within k, a pair is still judged by its signatures.
        assert_eq!(rule.judge(bits(2), &with_count(2), &with_count(2)), None);
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

    /// Two listings of one site differing only in their numbers match
    /// unless numbers count; a text with a changed date but few digits is
    /// confirmed either way.
    #[test]
    fn numbers_count_in_texts_that_are_mostly_numbers() {
        let simhasher = Simhasher::default();
        let stored = |confirmation: &Confirmation, text: &str| {
            Document::of_text(&simhasher, Some(confirmation), text)
                .unwrap()
                .stored_bytes(Some(confirmation))
        };
        let listing = |numbers: [&str; 4]| {
            format!(
                "出售靓号：{}，{}，{}，价格面议，联系电话{}。",
                numbers[0], numbers[1], numbers[2], numbers[3]
            )
        };
        let a = listing(["13812345678", "13912345678", "13712345678", "62345678"]);
        let b = listing(["15011112222", "15133334444", "15255556666", "65432100"]);
        let dated = |day: &str| {
            format!("近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。发布于 2024-04-{day}。")
        };
        assert!(digit_permille(&a) >= 200 && digit_permille(&dated("29")) < 200);
        let words_only = Confirmation::signatures_alone();
        let numbers = Confirmation::signatures_alone()
            .with_numbers_from(200)
            .unwrap();
        assert_eq!(numbers.numbers_from_permille(), 200);
        assert!(numbers.number_features(&simhasher, &a).is_some());
        assert!(numbers.number_features(&simhasher, &dated("29")).is_none());
        assert!(words_only.number_features(&simhasher, &a).is_none());
        let judge = |confirmation: &Confirmation, x: &str, y: &str| {
            MatchRule {
                k: 3,
                confirmation: Some(confirmation.clone()),
            }
            .judge(bits(5), &stored(confirmation, x), &stored(confirmation, y))
        };
        assert!(judge(&words_only, &a, &b).is_some(), "words alone agree");
        assert_eq!(judge(&numbers, &a, &b), None, "their numbers differ");
        assert!(judge(&numbers, &a, &a).is_some());
        assert!(judge(&numbers, &dated("29"), &dated("30")).is_some());
        assert!(Confirmation::recommended().numbers_from_permille() > 0);
        assert!(numbers.with_numbers_from(1001).is_err());
    }
}
