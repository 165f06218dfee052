//! Confirmation rules that weigh how much content of its own each
//! document has: a signature's estimate alone cannot tell two short
//! fragments that share their only rare words from two copies of one long
//! text. Each document's own count is the number of distinct shingles its
//! signature is taken over (after the common features are dropped, for
//! `df` signatures), a number a database can store beside the signature.
//!
//! A rule is a signature followed by gates, `SIGNATURE[+GATE...]`:
//!
//! - `+minN`: reject unless both documents have at least N own shingles;
//! - `+ratioF`: reject when one document has more than F times the other's;
//! - `+sharedM`: reject unless the estimated shared shingles,
//!   J / (1 + J) × (n₁ + n₂), are at least M;
//! - `+contC`: reject unless those estimated shared shingles are at least
//!   C of the smaller document's own (its estimated containment in the
//!   other): a copy that lost a sentence or gained a template keeps most
//!   of the smaller text, where two texts of one formula each keep their
//!   own part;
//! - `+lbZ`: score the pair by the Wilson lower bound (Z standard
//!   deviations) of its estimate, taken over the effective sample
//!   1 / (1 / slots + 1 / min(n₁, n₂)): the slots' sampling noise and that
//!   of texts with few shingles of their own, so a pair of one-shingle
//!   fragments with identical signatures scores 1 / (1 + Z²) rather than 1.
//!
//! The rule's score is compared with θ as a plain signature's estimate is.
//!
//! `+numP` is no gate: bare numbers are features of the signature of every
//! text whose digits are at least P percent of its letters and digits
//! (the database's measure); `+numtP` the same where numbers are at least
//! P percent of the text's tokens (words and numbers). `+dotN` also counts
//! them in every text holding a number with at least N dots between its
//! digits (a section or version number: "7.6.3", "15.17"), whatever its
//! share of digits.

use anyhow::{bail, Context, Result};
use fpdb_simhash::{digit_permille, distinct_shingles, CommonFeatures, SignatureLayout};
use rayon::prelude::*;

use crate::two_stage::{SigSpec, Signatures, Similarity};

/// One gate on a pair's own counts or estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gate {
    Min(u32),
    Ratio(f64),
    Shared(f64),
    Containment(f64),
    LowerBound(f64),
    /// Passes (score 1) a pair whose estimated containment is at least the
    /// first value and whose estimate is at least the second, whatever θ.
    ContainedAbove(f64, f64),
}

impl Gate {
    fn parse(text: &str) -> Result<Gate> {
        let number = |value: &str| -> Result<f64> {
            let value: f64 = value.parse().with_context(|| format!("gate {text:?}"))?;
            anyhow::ensure!(value.is_finite() && value >= 0.0, "gate {text:?}");
            Ok(value)
        };
        if let Some(n) = text.strip_prefix("min") {
            Ok(Gate::Min(n.parse().context("+minN")?))
        } else if let Some(f) = text.strip_prefix("ratio") {
            Ok(Gate::Ratio(number(f)?))
        } else if let Some(m) = text.strip_prefix("shared") {
            Ok(Gate::Shared(number(m)?))
        } else if let Some(spec) = text.strip_prefix("incl") {
            let (c, t) = spec.split_once('j').context("+inclCjT")?;
            Ok(Gate::ContainedAbove(number(c)?, number(t)?))
        } else if let Some(c) = text.strip_prefix("cont") {
            Ok(Gate::Containment(number(c)?))
        } else if let Some(z) = text.strip_prefix("lb") {
            Ok(Gate::LowerBound(number(z)?))
        } else {
            bail!("gate {text:?} is not minN, ratioF, sharedM, contC or lbZ")
        }
    }

    fn name(&self) -> String {
        match self {
            Gate::Min(n) => format!("own ≥ {n}"),
            Gate::Ratio(f) => format!("own ratio ≤ {f}"),
            Gate::Shared(m) => format!("shared ≥ {m}"),
            Gate::Containment(c) => format!("containment ≥ {c}"),
            Gate::LowerBound(z) => format!("lower bound z = {z}"),
            Gate::ContainedAbove(c, t) => format!("or containment ≥ {c} at ≥ {t}"),
        }
    }
}

/// Which texts are signed with their numbers: those whose digits, or
/// whose number tokens, reach a share (per thousand).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumbersFrom {
    Digits(u16),
    Tokens(u16),
}

/// A signature and the gates its estimate must pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub sig: SigSpec,
    pub gates: Vec<Gate>,
    /// When numbers are signature features.
    pub numbers: Option<NumbersFrom>,
    /// Numbers also count in a text with a number of at least this many
    /// dots.
    pub dotted: Option<usize>,
    /// Rarest words kept per text and how many of them a pair shares
    /// (`crate::rare`).
    pub rare: Option<(usize, usize)>,
    /// Shingles weighted by their idf to this power (`crate::weighted`).
    pub idf: Option<f64>,
}

impl Confirm {
    /// `SIGNATURE[+GATE...]`, SIGNATURE as [`SigSpec::parse`] reads it.
    pub fn parse(text: &str) -> Result<Confirm> {
        let mut parts = text.split('+');
        let sig = SigSpec::parse(parts.next().unwrap_or_default())?;
        let mut numbers = None;
        let mut dotted = None;
        let mut rare = None;
        let mut idf = None;
        let mut gates = Vec::new();
        for part in parts {
            if let Some(power) = part.strip_prefix("idf") {
                let power: f64 = power.parse().context("+idfP")?;
                anyhow::ensure!(power.is_finite() && power > 0.0, "+idfP: P is positive");
                idf = Some(power);
                continue;
            }
            if let Some(spec) = part.strip_prefix("rare") {
                let (keep, shared) = spec.split_once('s').context("+rareKsM")?;
                let (keep, shared): (usize, usize) = (
                    keep.parse().context("+rareKsM")?,
                    shared.parse().context("+rareKsM")?,
                );
                anyhow::ensure!(0 < shared && shared <= keep, "+rareKsM: 0 < M <= K");
                rare = Some((keep, shared));
                continue;
            }
            if let Some(dots) = part.strip_prefix("dot") {
                let dots: usize = dots.parse().context("+dotN")?;
                anyhow::ensure!(dots > 0, "+dotN: N is at least 1");
                dotted = Some(dots);
                continue;
            }
            match part.strip_prefix("num") {
                Some(rest) => {
                    let (tokens, percent) = match rest.strip_prefix('t') {
                        Some(percent) => (true, percent),
                        None => (false, rest),
                    };
                    let percent: u16 = percent.parse().context("+num[t]P")?;
                    anyhow::ensure!(percent <= 100, "+num[t]P: P is a percentage");
                    numbers = Some(if tokens {
                        NumbersFrom::Tokens(percent * 10)
                    } else {
                        NumbersFrom::Digits(percent * 10)
                    });
                }
                None => gates.push(Gate::parse(part)?),
            }
        }
        Ok(Confirm {
            sig,
            gates,
            numbers,
            dotted,
            rare,
            idf,
        })
    }

    pub fn name(&self) -> String {
        format!("{}{}", self.sig.name(), self.gate_names())
    }

    /// Each text's signature features: `features` (the word features), or
    /// the words and numbers of a text with enough digits when the rule
    /// counts numbers.
    fn features(&self, texts: &[String], features: &[Vec<u64>]) -> Vec<Vec<u64>> {
        if self.numbers.is_none() && self.dotted.is_none() {
            return features.to_vec();
        }
        let simhasher = crate::two_stage_report::feature_simhasher();
        texts
            .par_iter()
            .zip(features)
            .map(|(text, words)| {
                let dotted = self
                    .dotted
                    .is_some_and(|dots| has_dotted_number(text, dots));
                match self.numbers {
                    _ if dotted => simhasher.feature_and_number_hashes(text),
                    Some(NumbersFrom::Digits(cut)) if digit_permille(text) >= cut => {
                        simhasher.feature_and_number_hashes(text)
                    }
                    Some(NumbersFrom::Tokens(cut)) => {
                        let with_numbers = simhasher.feature_and_number_hashes(text);
                        let numbers = with_numbers.len() - words.len();
                        if numbers * 1000 >= usize::from(cut) * with_numbers.len().max(1) {
                            with_numbers
                        } else {
                            words.clone()
                        }
                    }
                    _ => words.clone(),
                }
            })
            .collect()
    }

    /// The gates, each after a comma, and the share of digits from which
    /// numbers count (empty without either).
    pub fn gate_names(&self) -> String {
        let numbers = match self.numbers {
            Some(NumbersFrom::Digits(p)) => format!(", numbers count from {}% digits", p / 10),
            Some(NumbersFrom::Tokens(p)) => {
                format!(", numbers count from {}% of tokens", p / 10)
            }
            None => String::new(),
        };
        let numbers = match self.dotted {
            Some(dots) => format!("{numbers}, numbers count with a number of {dots} dots"),
            None => numbers,
        };
        let numbers = match self.rare {
            Some((keep, shared)) => format!("{numbers}, sharing {shared} of {keep} rarest words"),
            None => numbers,
        };
        let numbers = match self.idf {
            Some(power) => format!("{numbers}, shingles weighted by idf^{power}"),
            None => numbers,
        };
        self.gates
            .iter()
            .map(|g| format!(", {}", g.name()))
            .chain([numbers])
            .collect()
    }

    pub fn bytes(&self) -> usize {
        // An own count is two bytes beside the signature.
        self.sig.bytes() + if self.gates.is_empty() { 0 } else { 2 }
    }
}

/// Each document's own count under `spec`: its distinct shingles (of the
/// signature's width, over the features left after dropping the common
/// ones), or its distinct features for a simhash.
pub fn own_counts(spec: SigSpec, features: &[Vec<u64>], crawl: &[Vec<u64>]) -> Vec<u32> {
    let (shingle, common) = match spec {
        SigSpec::MinHash { shingle, .. } => (shingle, None),
        SigSpec::MinHashRare {
            shingle, max_df, ..
        } => (
            shingle,
            Some(CommonFeatures::learn(crawl.iter().map(Vec::as_slice), max_df).unwrap()),
        ),
        SigSpec::WideSimhash { .. } => (1, None),
    };
    // What the database counts (`fpdb_simhash::distinct_shingles`) depends
    // on the layout's shingle width alone.
    let layout = SignatureLayout::new(64, 4, shingle).expect("a valid shingle width");
    features
        .par_iter()
        .map(|f| {
            let own = match &common {
                Some(common) => common.remove_from(f),
                None => f.clone(),
            };
            distinct_shingles(layout, &own)
        })
        .collect()
}

/// The score of a pair with estimate `j` from `slots` slots and own counts
/// `n1`, `n2` under `gates`: 0 when a gate rejects it.
pub fn score(gates: &[Gate], j: f64, slots: usize, n1: u32, n2: u32) -> f64 {
    let (small, large) = (n1.min(n2), n1.max(n2));
    let mut score = j;
    for gate in gates {
        match *gate {
            Gate::Min(n) if small < n => return 0.0,
            Gate::Ratio(f) if f64::from(large) > f * f64::from(small) => return 0.0,
            Gate::Shared(m) if estimated_shared(j, n1, n2) < m => return 0.0,
            Gate::Containment(c) if estimated_shared(j, n1, n2) < c * f64::from(small.max(1)) => {
                return 0.0
            }
            Gate::LowerBound(z) => {
                score = score.min(wilson_lower(j, effective_sample(slots, small), z));
            }
            Gate::ContainedAbove(c, t)
                if j >= t && estimated_shared(j, n1, n2) >= c * f64::from(small.max(1)) =>
            {
                score = 1.0;
            }
            _ => {}
        }
    }
    score
}

/// The shingles two documents with own counts `n1` and `n2` share by
/// their estimated resemblance `j`: |A ∩ B| = J / (1 + J) × (|A| + |B|).
fn estimated_shared(j: f64, n1: u32, n2: u32) -> f64 {
    j / (1.0 + j) * f64::from(n1 + n2)
}

/// The sample that an estimate over `slots` slots of a set with `own`
/// shingles stands for: both noises add, as variances of a share do.
fn effective_sample(slots: usize, own: u32) -> f64 {
    if own == 0 {
        return 0.0;
    }
    1.0 / (1.0 / slots as f64 + 1.0 / f64::from(own))
}

/// The Wilson score interval's lower end for share `p` over `n` trials.
fn wilson_lower(p: f64, n: f64, z: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - spread) / (1.0 + z2 / n)).clamp(0.0, 1.0)
}

/// Every document's signature and own count, ready to score pairs.
pub struct Confirmer {
    sigs: Signatures,
    own: Vec<u32>,
    gates: Vec<Gate>,
    slots: usize,
}

impl Confirmer {
    /// The signatures of `texts` (with their word `features`) under
    /// `confirm`; `crawl` as for [`Signatures::new`].
    pub fn new(
        confirm: &Confirm,
        texts: &[String],
        features: &[Vec<u64>],
        crawl: &[Vec<u64>],
    ) -> Confirmer {
        Confirmer::with_weights_from(confirm, texts, features, crawl, crawl)
    }

    /// [`Confirmer::new`], a weighted rule learning its weights from
    /// `sample` (each document's feature hashes).
    pub fn with_weights_from(
        confirm: &Confirm,
        texts: &[String],
        features: &[Vec<u64>],
        crawl: &[Vec<u64>],
        sample: &[Vec<u64>],
    ) -> Confirmer {
        let features = &confirm.features(texts, features);
        let slots = match confirm.sig {
            SigSpec::MinHash { hashes, .. } | SigSpec::MinHashRare { hashes, .. } => {
                usize::from(hashes)
            }
            SigSpec::WideSimhash { bits } => usize::from(bits),
        };
        let sigs = match (confirm.idf, confirm.sig) {
            (
                Some(power),
                SigSpec::MinHashRare {
                    hashes,
                    bits,
                    shingle,
                    max_df,
                },
            ) => {
                let common =
                    CommonFeatures::learn(crawl.iter().map(Vec::as_slice), max_df).unwrap();
                let rare: Vec<Vec<u64>> =
                    features.par_iter().map(|f| common.remove_from(f)).collect();
                let weights = crate::weighted::ShingleWeights::learn(sample, power);
                Signatures::Codes {
                    codes: crate::weighted::all_codes(hashes, bits, shingle, &rare, &weights),
                    bits,
                }
            }
            (
                Some(power),
                SigSpec::MinHash {
                    hashes,
                    bits,
                    shingle,
                },
            ) => {
                let weights = crate::weighted::ShingleWeights::learn(sample, power);
                Signatures::Codes {
                    codes: crate::weighted::all_codes(hashes, bits, shingle, features, &weights),
                    bits,
                }
            }
            _ => Signatures::new(confirm.sig, features, crawl),
        };
        Confirmer {
            sigs,
            own: if confirm.gates.is_empty() {
                Vec::new()
            } else {
                own_counts(confirm.sig, features, crawl)
            },
            gates: confirm.gates.clone(),
            slots,
        }
    }

    /// Whether the own counts were taken (the rule has a gate).
    pub fn has_own_counts(&self) -> bool {
        !self.own.is_empty()
    }

    /// Document `i`'s own count (0 when the rule has no gate).
    pub fn own(&self, i: usize) -> u32 {
        self.own.get(i).copied().unwrap_or(0)
    }
}

impl Similarity for Confirmer {
    fn similarity(&self, a: usize, b: usize) -> f64 {
        let j = self.sigs.similarity(a, b);
        if self.gates.is_empty() {
            return j;
        }
        score(&self.gates, j, self.slots, self.own[a], self.own[b])
    }
}

/// Whether `text` holds a number whose digit groups are joined by at
/// least `dots` dots ("7.6.3" has two).
fn has_dotted_number(text: &str, dots: usize) -> bool {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .any(|token| {
            let groups: Vec<&str> = token.trim_matches('.').split('.').collect();
            groups.len() > dots && groups.iter().all(|g| !g.is_empty())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_numbers_are_section_and_version_numbers() {
        assert!(has_dotted_number("See 7.6.3. Arguments", 2));
        assert!(!has_dotted_number("Release 15.17 of 2026-02-26", 2));
        assert!(has_dotted_number("Release 15.17 of 2026-02-26", 1));
        assert!(!has_dotted_number("It ends. 12 more.", 1));
        assert!(!has_dotted_number("1..2", 1));
    }

    #[test]
    fn rules_parse_and_name_their_gates() {
        let c = Confirm::parse("minhash:64x4/w2/df20+min6+ratio2+shared3.5+cont0.8+lb1.5").unwrap();
        assert_eq!(
            c.gates,
            vec![
                Gate::Min(6),
                Gate::Ratio(2.0),
                Gate::Shared(3.5),
                Gate::Containment(0.8),
                Gate::LowerBound(1.5)
            ]
        );
        assert_eq!(c.bytes(), 34);
        assert!(c.name().ends_with(
            "own ≥ 6, own ratio ≤ 2, shared ≥ 3.5, containment ≥ 0.8, lower bound z = 1.5"
        ));
        assert!(Confirm::parse("minhash:64x4/w2").unwrap().gates.is_empty());
        assert_eq!(
            Confirm::parse("minhash:64x4/w2+num20").unwrap().numbers,
            Some(NumbersFrom::Digits(200))
        );
        assert_eq!(
            Confirm::parse("minhash:64x4/w2+numt15").unwrap().numbers,
            Some(NumbersFrom::Tokens(150))
        );
        assert_eq!(
            Confirm::parse("minhash:64x4/w2+num20+dot2").unwrap().dotted,
            Some(2)
        );
        assert!(Confirm::parse("minhash:64x4/w2+dot0").is_err());
        assert!(Confirm::parse("minhash:64x4/w2+num101").is_err());
        assert!(Confirm::parse("minhash:64x4/w2+max3").is_err());
        assert!(Confirm::parse("minhash:64x4/w2+minx").is_err());
        assert!(Confirm::parse("minhash:64x4/w2+ratio-1").is_err());
    }

    #[test]
    fn own_counts_drop_the_common_features() {
        // Feature 9 is in every crawl document, so it is common at 20%.
        let crawl: Vec<Vec<u64>> = (0..10).map(|i| vec![9, 100 + i]).collect();
        let spec = SigSpec::MinHashRare {
            hashes: 64,
            bits: 4,
            shingle: 1,
            max_df: 20,
        };
        assert_eq!(own_counts(spec, &[vec![9, 1, 9, 2]], &crawl), vec![2]);
        let plain = SigSpec::MinHash {
            hashes: 64,
            bits: 4,
            shingle: 1,
        };
        assert_eq!(own_counts(plain, &[vec![9, 1, 9, 2]], &crawl), vec![3]);
    }

    #[test]
    fn gates_reject_what_they_say() {
        assert_eq!(score(&[], 0.9, 64, 1, 1), 0.9);
        assert_eq!(score(&[Gate::Min(5)], 0.9, 64, 4, 50), 0.0);
        assert_eq!(score(&[Gate::Min(5)], 0.9, 64, 5, 50), 0.9);
        assert_eq!(score(&[Gate::Ratio(2.0)], 0.9, 64, 10, 21), 0.0);
        assert_eq!(score(&[Gate::Ratio(2.0)], 0.9, 64, 10, 20), 0.9);
        // J = 1 over 2 + 2 shingles: 2 shared.
        assert_eq!(score(&[Gate::Shared(3.0)], 1.0, 64, 2, 2), 0.0);
        assert_eq!(score(&[Gate::Shared(2.0)], 1.0, 64, 2, 2), 1.0);
        // J = 0.5 over 10 + 20 shingles: 10 shared, all of the smaller
        // text; over 20 + 20: 13.3 shared, two thirds of either.
        assert_eq!(score(&[Gate::Containment(0.99)], 0.5, 64, 10, 20), 0.5);
        assert_eq!(score(&[Gate::Containment(0.7)], 0.5, 64, 20, 20), 0.0);
        assert_eq!(score(&[Gate::Containment(0.6)], 0.5, 64, 20, 20), 0.5);
        // The smaller text wholly shared passes whatever θ; two of equal
        // counts, each two thirds shared, keep their estimate.
        let contained = [Gate::ContainedAbove(0.9, 0.4)];
        assert_eq!(score(&contained, 0.5, 64, 10, 20), 1.0);
        assert_eq!(score(&contained, 0.5, 64, 20, 20), 0.5);
        assert_eq!(
            score(&[Gate::ContainedAbove(0.9, 0.6)], 0.5, 64, 10, 20),
            0.5
        );
        let rule = Confirm::parse("minhash:64x4/w2/df20+shared7+incl0.9j0.45+idf2").unwrap();
        assert_eq!(rule.idf, Some(2.0));
        assert_eq!(rule.gates[1], Gate::ContainedAbove(0.9, 0.45));
        assert!(Confirm::parse("minhash:64x4/w2+idf0").is_err());
        assert!(Confirm::parse("minhash:64x4/w2+incl0.9").is_err());
    }

    #[test]
    fn the_lower_bound_falls_with_the_smaller_text() {
        let lb = |n| score(&[Gate::LowerBound(2.0)], 1.0, 64, n, 500);
        // One shingle each and identical signatures: about 1 / (1 + z²).
        assert!((lb(1) - 1.0 / (1.0 + 4.0 / effective_sample(64, 1))).abs() < 1e-12);
        assert!(lb(1) < 0.25);
        assert!(lb(1) < lb(10) && lb(10) < lb(100) && lb(100) < 1.0);
        // z = 0 is the estimate itself.
        assert_eq!(score(&[Gate::LowerBound(0.0)], 0.6, 64, 3, 3), 0.6);
        assert_eq!(score(&[Gate::LowerBound(2.0)], 0.6, 64, 0, 3), 0.0);
        // Against the normal approximation where it holds.
        let n = effective_sample(64, 1000);
        let p = 0.5;
        let wald = p - 2.0 * (p * (1.0 - p) / n).sqrt();
        assert!((score(&[Gate::LowerBound(2.0)], p, 64, 1000, 1000) - wald).abs() < 0.02);
    }
}
