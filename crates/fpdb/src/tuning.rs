//! Settings measured on a sample with planted copies ([`fpdb_tune`]): each
//! setting a database can be created with (its weights, how it checks a
//! candidate, its radius) applied by the database's own rule
//! ([`MatchRule::corpus_pairs`] over a [`LearningCorpus`], which learns
//! weights and common features from the first texts as a database does)
//! and scored against what was planted.

use fpdb_codec::MAX_K;
use fpdb_simhash::Simhasher;
use fpdb_tune::{Curve, CurvePoint, Planted, Score};

use crate::error::{Error, Result};
use crate::learning_corpus::LearningCorpus;
use crate::rule::{Confirmation, Document, MatchRule};
use crate::DEFAULT_K;

/// What to plant and how to judge, for [`tune`].
#[derive(Debug, Clone, PartialEq)]
pub struct TuneOptions {
    /// How many texts (the first distinct ones of the sample) get planted
    /// copies.
    pub originals: usize,
    /// The seed of every planted edit.
    pub seed: u64,
    /// The least estimated resemblance that confirms, for the confirmed
    /// settings; `None` gives each confirmed check its own
    /// ([`PairCheck::confirmation`]).
    pub confirm_threshold: Option<f64>,
    /// The least precision a recommended setting keeps.
    pub min_precision: f64,
    /// The database size false matches per query are extrapolated to.
    pub expected: u64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            originals: 1000,
            seed: 1,
            confirm_threshold: None,
            min_precision: 0.99,
            expected: 10_000_000,
        }
    }
}

impl TuneOptions {
    /// Refuses a precision or a threshold outside 0 ..= 1, before any
    /// sample is read.
    pub fn check(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.min_precision) {
            return Err(Error::InvalidOptions(format!(
                "minimum precision {} is outside 0 ..= 1",
                self.min_precision
            )));
        }
        for check in PairCheck::CONFIRMING {
            check.confirmation(self.confirm_threshold, DEFAULT_K)?;
        }
        Ok(())
    }
}

/// Every setting measured on a sample, and the one to recommend.
#[derive(Debug, Clone)]
pub struct Tuning {
    /// What was asked.
    pub options: TuneOptions,
    /// The weights a database gets without learning them (`tfidf:8`).
    pub given_weights: String,
    /// The sample with its planted copies.
    pub planted: Planted,
    /// Every setting's score, by weights, then confirmation, then radius.
    pub scores: Vec<SettingScore>,
    /// The position in `scores` of the recommended setting, if any keeps
    /// the precision asked.
    pub recommended: Option<usize>,
    /// Texts with fewer distinct shingles than the recommended
    /// confirmation's least shared count ([`Confirmation::min_shared`]):
    /// `+confirm` confirms none of their pairs, however alike (they can
    /// share no more shingles than they have).
    pub too_short_to_confirm: usize,
}

/// Plants copies into `sample` ([`Planted::from_sample`]), measures every
/// setting on it ([`measure_settings`]) and recommends one
/// ([`recommend`]); `simhasher` gives the tokenizer and the weights a
/// database gets unless it learns them.
pub fn tune(simhasher: &Simhasher, sample: &[String], options: TuneOptions) -> Result<Tuning> {
    options.check()?;
    let planted = Planted::from_sample(sample, options.originals, options.seed);
    let (scores, too_short_to_confirm) = measure(simhasher, &planted, options.confirm_threshold)?;
    let recommended = recommend(&scores, options.min_precision);
    Ok(Tuning {
        too_short_to_confirm,
        given_weights: simhasher.options().weighting.to_string(),
        options,
        planted,
        scores,
        recommended,
    })
}

impl Tuning {
    /// The recommended setting's score, if any.
    pub fn best(&self) -> Option<&SettingScore> {
        self.recommended.and_then(|i| self.scores.get(i))
    }

    /// Originals planted with copies.
    pub fn originals(&self) -> usize {
        self.planted.copies.len() / fpdb_tune::EditKind::ALL.len()
    }

    /// One curve per setting through its radii, to draw with
    /// [`fpdb_tune::recall_against_false_matches`].
    pub fn curves(&self) -> Vec<Curve> {
        self.scores
            .chunk_by(|a, b| {
                (a.setting.learned, a.setting.check) == (b.setting.learned, b.setting.check)
            })
            .filter_map(|run| {
                let first = run.first()?;
                Some(Curve {
                    name: first.setting.name(&self.given_weights),
                    points: run
                        .iter()
                        .map(|s| CurvePoint {
                            radius: s.setting.radius,
                            recall: s.score.recall(),
                            false_per_query: s.score.false_per_query(),
                        })
                        .collect(),
                })
            })
            .collect()
    }
}

/// The radii settings are measured at.
pub const TUNING_RADII: [u32; 8] = [3, 4, 5, 6, 7, 8, 10, 12];

/// The radii the weak-bit check is measured at as well: past 12 bits it
/// probes no more prefixes, so a database can afford them.
pub const WEAK_BIT_RADII: [u32; 2] = [14, 16];

/// How a setting checks a candidate pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairCheck {
    /// By distance alone (k = the radius).
    Distance,
    /// The candidates both documents' weak bits reach, confirmed by their
    /// signatures with the shared-shingle gate: what `--confirm` gives
    /// ([`Confirmation::recommended`] at the setting's radius).
    WeakBits,
    /// Every candidate within the radius, confirmed by the signatures
    /// alone ([`Confirmation::signatures_alone`] at the setting's
    /// radius).
    EveryCandidate,
}

impl PairCheck {
    /// The checks that confirm by signatures.
    pub const CONFIRMING: [PairCheck; 2] = [PairCheck::WeakBits, PairCheck::EveryCandidate];

    /// How a report names it after the weights: `+confirm` for what
    /// `--confirm` gives, `+confirm-every` for every candidate.
    pub fn suffix(self) -> &'static str {
        match self {
            PairCheck::Distance => "",
            PairCheck::WeakBits => "+confirm",
            PairCheck::EveryCandidate => "+confirm-every",
        }
    }

    /// Its name in the JSON report.
    pub fn name(self) -> &'static str {
        match self {
            PairCheck::Distance => "distance",
            PairCheck::WeakBits => "weak-bits",
            PairCheck::EveryCandidate => "every-candidate",
        }
    }

    /// The radii it is measured at.
    pub fn radii(self) -> impl Iterator<Item = u32> {
        let wide: &[u32] = match self {
            PairCheck::WeakBits => &WEAK_BIT_RADII,
            PairCheck::Distance | PairCheck::EveryCandidate => &[],
        };
        TUNING_RADII.into_iter().chain(wide.iter().copied())
    }

    /// The confirmation of a confirming check at `radius` (its own
    /// threshold unless `threshold` is given; no common features); `None`
    /// for [`PairCheck::Distance`].
    pub fn confirmation(self, threshold: Option<f64>, radius: u32) -> Result<Option<Confirmation>> {
        let base = match self {
            PairCheck::Distance => return Ok(None),
            PairCheck::WeakBits => Confirmation::recommended(),
            PairCheck::EveryCandidate => Confirmation::signatures_alone(),
        };
        let threshold = threshold.unwrap_or_else(|| base.threshold());
        base.with_threshold_and_radius(threshold, radius).map(Some)
    }

    /// Its place among equally good settings: distance alone stores and
    /// costs least; weak bits probe 32 prefixes a table where every
    /// candidate within 12 bits probes about 700.
    fn cost(self) -> u8 {
        match self {
            PairCheck::Distance => 0,
            PairCheck::WeakBits => 1,
            PairCheck::EveryCandidate => 2,
        }
    }
}

/// A setting a database can be created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setting {
    /// Learned weights, else the simhasher's own.
    pub learned: bool,
    /// How a candidate is checked (a document without a signature is
    /// matched within k = 3 by every confirming check).
    pub check: PairCheck,
    /// The Hamming radius.
    pub radius: u32,
}

impl Setting {
    /// The setting without its radius, as a report names it, e.g.
    /// `learned+confirm`.
    pub fn name(&self, given_weights: &str) -> String {
        let weights = if self.learned {
            "learned"
        } else {
            given_weights
        };
        format!("{weights}{}", self.check.suffix())
    }

    /// Whether candidates are confirmed by signatures.
    pub fn confirmed(&self) -> bool {
        self.check != PairCheck::Distance
    }

    /// The rule this setting applies, given the common features learned
    /// for the signatures and the threshold asked for.
    fn rule(&self, common: &Confirmation, threshold: Option<f64>) -> Result<MatchRule> {
        let Some(confirmation) = self.check.confirmation(threshold, self.radius)? else {
            return Ok(MatchRule {
                k: self.radius,
                confirmation: None,
            });
        };
        Ok(MatchRule {
            k: DEFAULT_K.min(self.radius),
            confirmation: Some(confirmation.with_common_features(common.common_features().clone())),
        })
    }
}

/// One setting's score on the planted sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingScore {
    /// The setting.
    pub setting: Setting,
    /// How its pairs matched what was planted.
    pub score: Score,
}

/// Every setting, (given or learned weights) × (by distance, by weak bits
/// and signatures, or every candidate and signatures) × its radii
/// ([`PairCheck::radii`]), scored on `planted`; `threshold` overrides the
/// confirming checks' own. `simhasher` gives the tokenizer and the given
/// weights. Texts without features are left out, as a database leaves
/// them out.
pub fn measure_settings(
    simhasher: &Simhasher,
    planted: &Planted,
    threshold: Option<f64>,
) -> Result<Vec<SettingScore>> {
    measure(simhasher, planted, threshold).map(|(scores, _)| scores)
}

/// [`measure_settings`], and how many of the planted texts are too short
/// to confirm ([`Tuning::too_short_to_confirm`]; shingle counts do not
/// depend on the weights, so the given weights' documents tell).
fn measure(
    simhasher: &Simhasher,
    planted: &Planted,
    threshold: Option<f64>,
) -> Result<(Vec<SettingScore>, usize)> {
    let mut scores = Vec::new();
    let mut too_short = 0;
    for learned in [false, true] {
        let (documents, positions, common) = documents(simhasher, planted, learned);
        if !learned {
            let min_shared = u32::from(Confirmation::recommended().min_shared());
            too_short = documents
                .iter()
                .filter(|d| d.signature.is_some() && d.shingles < min_shared)
                .count();
        }
        for check in [
            PairCheck::Distance,
            PairCheck::WeakBits,
            PairCheck::EveryCandidate,
        ] {
            for radius in check.radii() {
                let setting = Setting {
                    learned,
                    check,
                    radius,
                };
                let pairs = setting.rule(&common, threshold)?.corpus_pairs(&documents)?;
                let pairs = pairs
                    .iter()
                    .filter_map(|pair| Some((*positions.get(pair.a)?, *positions.get(pair.b)?)));
                scores.push(SettingScore {
                    setting,
                    score: Score::of_pairs(planted, pairs),
                });
            }
        }
    }
    Ok((scores, too_short))
}

/// The planted texts as a database with these weights would make them
/// (signed, with their shingle counts and weak bits, under the recommended
/// confirmation, which learns its common features), the planted position
/// of each document, and the confirmation with the learned common
/// features. Every check reads from a document what its rule stores.
fn documents(
    simhasher: &Simhasher,
    planted: &Planted,
    learned: bool,
) -> (Vec<Document>, Vec<usize>, Confirmation) {
    let confirmation = Confirmation::recommended();
    let mut corpus = LearningCorpus::new(simhasher.clone(), learned, Some(confirmation.clone()));
    let kept = corpus.add_texts(&planted.texts);
    let (documents, learned) = corpus.finish();
    let mut positions = vec![0; documents.len()];
    for (text, document) in kept.iter().enumerate() {
        if let Some(slot) = document.and_then(|d| positions.get_mut(d)) {
            *slot = text;
        }
    }
    (
        documents,
        positions,
        learned.confirmation.unwrap_or(confirmation),
    )
}

/// The index in `scores` of the setting to recommend: the best recall
/// among those a database can
/// be created with (distance alone up to [`MAX_K`]) and with precision at
/// least `min_precision`; on a tie fewer false pairs, then the smaller
/// radius (a cheaper query), then the cheaper check (distance alone,
/// weak bits, every candidate) and the given weights (less to store and
/// learn).
pub fn recommend(scores: &[SettingScore], min_precision: f64) -> Option<usize> {
    let cost = |s: &SettingScore| (s.setting.radius, s.setting.check.cost(), s.setting.learned);
    scores
        .iter()
        .enumerate()
        .filter(|(_, s)| s.setting.confirmed() || s.setting.radius <= MAX_K)
        .filter(|(_, s)| s.score.precision() >= min_precision)
        .max_by(|(_, a), (_, b)| {
            a.score
                .recall()
                .total_cmp(&b.score.recall())
                .then(b.score.false_pairs.cmp(&a.score.false_pairs))
                .then(cost(b).cmp(&cost(a)))
        })
        .map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use fpdb_testkit::article_paragraphs;

    use super::*;

    /// The repository's paragraphs, the first 12 with planted copies.
    fn planted() -> Planted {
        let sample: Vec<String> = article_paragraphs(40).into_iter().map(|(_, t)| t).collect();
        assert!(sample.len() >= 36, "{} paragraphs", sample.len());
        Planted::from_sample(&sample, 12, 5)
    }

    /// Every setting's score is the score of the pairs a brute-force
    /// application of its rule finds: every pair of texts with features,
    /// judged on its distance, signatures, shingle counts and weak bits.
    #[test]
    fn scores_equal_the_rule_applied_by_brute_force() {
        let planted = planted();
        let simhasher = Simhasher::default();
        for threshold in [None, Some(0.6)] {
            let scores = measure_settings(&simhasher, &planted, threshold).unwrap();
            assert_eq!(
                scores.len(),
                2 * (3 * TUNING_RADII.len() + WEAK_BIT_RADII.len())
            );
            for learned in [false, true] {
                let (documents, positions, common) = documents(&simhasher, &planted, learned);
                assert!(documents.iter().all(|d| d.weak_bits.is_some()));
                for measured in scores.iter().filter(|s| s.setting.learned == learned) {
                    let rule = measured.setting.rule(&common, threshold).unwrap();
                    if let Some(confirmation) = &rule.confirmation {
                        let own = measured
                            .setting
                            .check
                            .confirmation(None, 0)
                            .unwrap()
                            .unwrap();
                        assert_eq!(confirmation.weak_bits(), own.weak_bits());
                        assert_eq!(confirmation.min_shared(), own.min_shared());
                        let asked = threshold.unwrap_or_else(|| own.threshold());
                        assert!((confirmation.threshold() - asked).abs() < 1e-9);
                    }
                    let mut pairs = Vec::new();
                    for (a, x) in documents.iter().enumerate() {
                        for (b, y) in documents.iter().enumerate().skip(a + 1) {
                            let xor = x.fingerprint.0 ^ y.fingerprint.0;
                            if rule
                                .judge(
                                    xor,
                                    &x.stored_bytes(rule.confirmation.as_ref()),
                                    &y.stored_bytes(rule.confirmation.as_ref()),
                                )
                                .is_some()
                            {
                                pairs.push((positions[a], positions[b]));
                            }
                        }
                    }
                    assert_eq!(
                        measured.score,
                        Score::of_pairs(&planted, pairs),
                        "{:?}",
                        measured.setting
                    );
                }
            }
        }
    }

    /// Wider radii find more; confirmation keeps precision where distance
    /// alone loses it; the weak bits find no more than every candidate
    /// within the same radius and the same threshold; the recommendation
    /// is the best recall at the precision asked.
    #[test]
    fn confirmation_keeps_precision_at_wide_radii() {
        let planted = planted();
        let scores = measure_settings(&Simhasher::default(), &planted, Some(0.5)).unwrap();
        let at = |learned, check, radius| {
            &scores
                .iter()
                .find(|s| {
                    s.setting
                        == Setting {
                            learned,
                            check,
                            radius,
                        }
                })
                .unwrap()
                .score
        };
        for learned in [false, true] {
            for check in [
                PairCheck::Distance,
                PairCheck::WeakBits,
                PairCheck::EveryCandidate,
            ] {
                assert!(at(learned, check, 12).recall() >= at(learned, check, 3).recall());
            }
            for check in PairCheck::CONFIRMING {
                assert!(
                    at(learned, check, 12).precision()
                        >= at(learned, PairCheck::Distance, 12).precision()
                );
                assert!(
                    at(learned, check, 12).recall() > at(learned, PairCheck::Distance, 3).recall()
                );
            }
            assert!(
                at(learned, PairCheck::WeakBits, 16).recall()
                    >= at(learned, PairCheck::WeakBits, 12).recall()
            );
            for radius in TUNING_RADII {
                let (weak, every) = (
                    at(learned, PairCheck::WeakBits, radius),
                    at(learned, PairCheck::EveryCandidate, radius),
                );
                assert!(weak.true_pairs <= every.true_pairs, "r = {radius}");
                assert!(weak.false_pairs <= every.false_pairs, "r = {radius}");
            }
        }
        let best = &scores[recommend(&scores, 0.99).unwrap()];
        assert!(best.score.precision() >= 0.99);
        let creatable = |s: &&SettingScore| s.setting.confirmed() || s.setting.radius <= MAX_K;
        for s in scores
            .iter()
            .filter(creatable)
            .filter(|s| s.score.precision() >= 0.99)
        {
            assert!(s.score.recall() <= best.score.recall());
        }
        assert!(recommend(&scores, 1.1).is_none());
    }

    /// Texts too short to share the gate's shingles are counted: none in
    /// the paragraphs, some when three-word texts are added to them.
    #[test]
    fn texts_too_short_to_confirm_are_counted() {
        let mut sample: Vec<String> = article_paragraphs(40).into_iter().map(|(_, t)| t).collect();
        let options = TuneOptions {
            originals: 12,
            ..TuneOptions::default()
        };
        let tuning = tune(&Simhasher::default(), &sample, options.clone()).unwrap();
        assert_eq!(tuning.too_short_to_confirm, 0);
        // Laid out as a crawl, some get a template and stop being short.
        let words = ["汽车", "飞机", "火车", "轮船", "自行车", "地铁"];
        let colours = ["红色", "蓝色"];
        sample.extend(
            words
                .iter()
                .flat_map(|w| colours.iter().map(move |c| format!("{c} {w} 出发"))),
        );
        let tuning = tune(&Simhasher::default(), &sample, options).unwrap();
        assert!(
            tuning.too_short_to_confirm >= 3,
            "{} counted",
            tuning.too_short_to_confirm
        );
    }

    #[test]
    fn a_threshold_outside_0_to_1_is_refused() {
        let options = TuneOptions {
            confirm_threshold: Some(1.5),
            ..TuneOptions::default()
        };
        assert!(matches!(options.check(), Err(Error::InvalidOptions(_))));
        assert!(TuneOptions::default().check().is_ok());
    }
}
