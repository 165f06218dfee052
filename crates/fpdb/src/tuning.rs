//! Settings measured on a sample with planted copies ([`fpdb_tune`]): each
//! setting a database can be created with (its weights, whether it
//! confirms, its radius) applied by the database's own rule
//! ([`MatchRule::corpus_pairs`] over a [`LearningCorpus`], which learns
//! weights and common features from the first texts as a database does)
//! and scored against what was planted.

use fpdb_codec::MAX_K;
use fpdb_simhash::{SignatureLayout, Simhasher};
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
    /// settings.
    pub confirm_threshold: f64,
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
            confirm_threshold: Confirmation::signatures_alone().threshold(),
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
        Confirmation::new(
            SignatureLayout::RECOMMENDED,
            self.confirm_threshold,
            DEFAULT_K,
        )?;
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
}

/// Plants copies into `sample` ([`Planted::from_sample`]), measures every
/// setting on it ([`measure_settings`]) and recommends one
/// ([`recommend`]); `simhasher` gives the tokenizer and the weights a
/// database gets unless it learns them.
pub fn tune(simhasher: &Simhasher, sample: &[String], options: TuneOptions) -> Result<Tuning> {
    options.check()?;
    let planted = Planted::from_sample(sample, options.originals, options.seed);
    let scores = measure_settings(simhasher, &planted, options.confirm_threshold)?;
    let recommended = recommend(&scores, options.min_precision);
    Ok(Tuning {
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
                (a.setting.learned, a.setting.confirmed) == (b.setting.learned, b.setting.confirmed)
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

/// A setting a database can be created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setting {
    /// Learned weights, else the simhasher's own.
    pub learned: bool,
    /// Candidates confirmed by signatures (within the radius, k = 3 for a
    /// document without a signature), else matched by distance alone
    /// (k = the radius).
    pub confirmed: bool,
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
        if self.confirmed {
            format!("{weights}+confirm")
        } else {
            weights.to_string()
        }
    }

    /// The rule this setting applies under `confirmation` (its signature
    /// and threshold; the radius is the setting's).
    fn rule(&self, confirmation: &Confirmation) -> Result<MatchRule> {
        if !self.confirmed {
            return Ok(MatchRule {
                k: self.radius,
                confirmation: None,
            });
        }
        let at_radius =
            Confirmation::new(confirmation.layout(), confirmation.threshold(), self.radius)?
                .with_common_features(confirmation.common_features().clone());
        Ok(MatchRule {
            k: DEFAULT_K.min(self.radius),
            confirmation: Some(at_radius),
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

/// Every setting, (given or learned weights) × (by distance or confirmed
/// at `threshold`) × [`TUNING_RADII`], scored on `planted`. `simhasher`
/// gives the tokenizer and the given weights. Texts without features are
/// left out, as a database leaves them out.
pub fn measure_settings(
    simhasher: &Simhasher,
    planted: &Planted,
    threshold: f64,
) -> Result<Vec<SettingScore>> {
    let confirmation = Confirmation::new(SignatureLayout::RECOMMENDED, threshold, DEFAULT_K)?;
    let mut scores = Vec::new();
    for learned in [false, true] {
        let (documents, positions, confirmation) =
            documents(simhasher, planted, learned, confirmation.clone());
        for confirmed in [false, true] {
            for radius in TUNING_RADII {
                let setting = Setting {
                    learned,
                    confirmed,
                    radius,
                };
                let pairs = setting.rule(&confirmation)?.corpus_pairs(&documents)?;
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
    Ok(scores)
}

/// The planted texts as a database with these weights would make them
/// (signed under `confirmation`, which learns its common features), the
/// planted position of each document, and the learned confirmation.
fn documents(
    simhasher: &Simhasher,
    planted: &Planted,
    learned: bool,
    confirmation: Confirmation,
) -> (Vec<Document>, Vec<usize>, Confirmation) {
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
/// radius (a cheaper query), then distance alone and the given weights
/// (less to store and learn).
pub fn recommend(scores: &[SettingScore], min_precision: f64) -> Option<usize> {
    let cost = |s: &SettingScore| (s.setting.radius, s.setting.confirmed, s.setting.learned);
    scores
        .iter()
        .enumerate()
        .filter(|(_, s)| s.setting.confirmed || s.setting.radius <= MAX_K)
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
    /// judged on its distance and signatures.
    #[test]
    fn scores_equal_the_rule_applied_by_brute_force() {
        let planted = planted();
        let simhasher = Simhasher::default();
        let scores = measure_settings(&simhasher, &planted, 0.5).unwrap();
        assert_eq!(scores.len(), 4 * TUNING_RADII.len());
        let base = Confirmation::new(SignatureLayout::RECOMMENDED, 0.5, DEFAULT_K).unwrap();
        for learned in [false, true] {
            let (documents, positions, confirmation) =
                documents(&simhasher, &planted, learned, base.clone());
            for measured in scores.iter().filter(|s| s.setting.learned == learned) {
                let rule = measured.setting.rule(&confirmation).unwrap();
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

    /// Wider radii find more; confirmation keeps precision where distance
    /// alone loses it; the recommendation is the best recall at the
    /// precision asked.
    #[test]
    fn confirmation_keeps_precision_at_wide_radii() {
        let planted = planted();
        let scores = measure_settings(&Simhasher::default(), &planted, 0.5).unwrap();
        let at = |learned, confirmed, radius| {
            &scores
                .iter()
                .find(|s| {
                    s.setting
                        == Setting {
                            learned,
                            confirmed,
                            radius,
                        }
                })
                .unwrap()
                .score
        };
        for learned in [false, true] {
            for confirmed in [false, true] {
                assert!(at(learned, confirmed, 12).recall() >= at(learned, confirmed, 3).recall());
            }
            assert!(at(learned, true, 12).precision() >= at(learned, false, 12).precision());
            assert!(at(learned, true, 12).recall() > at(learned, false, 3).recall());
        }
        let best = &scores[recommend(&scores, 0.99).unwrap()];
        assert!(best.score.precision() >= 0.99);
        let creatable = |s: &&SettingScore| s.setting.confirmed || s.setting.radius <= MAX_K;
        for s in scores
            .iter()
            .filter(creatable)
            .filter(|s| s.score.precision() >= 0.99)
        {
            assert!(s.score.recall() <= best.score.recall());
        }
        assert!(recommend(&scores, 1.1).is_none());
    }
}
