//! Weighted signatures (`+idfP` in a confirmation rule, `confirm.rs`):
//! each slot keeps the shingle that wins an exponential race in which a
//! shingle runs at the rate of its weight, so two documents agree in a
//! slot with probability Σ over shared shingles of the weight ÷ Σ over
//! either's shingles, a weighted Jaccard. A shingle weighs the mean idf of
//! its features, to the power P, with idf = ln(N / df) over a sample of the
//! texts the database holds (a feature the sample never met counts as met
//! once). The idea: two entries of one reference share its formula's
//! common words and differ in their own rare names, which then weigh more
//! than the formula; a copy shares nearly everything with its original.

use std::collections::{HashMap, HashSet};

use fpdb_simhash::{shingle_hash, slot_hash};
use rayon::prelude::*;

/// Document frequencies of a sample, and the power idf is raised to.
pub struct ShingleWeights {
    df: HashMap<u64, u32>,
    documents: f64,
    power: f64,
}

impl ShingleWeights {
    /// Learns each feature's document frequency from `sample` (each
    /// document's feature hashes).
    pub fn learn(sample: &[Vec<u64>], power: f64) -> ShingleWeights {
        let mut df: HashMap<u64, u32> = HashMap::new();
        for document in sample {
            let distinct: HashSet<u64> = document.iter().copied().collect();
            for feature in distinct {
                *df.entry(feature).or_insert(0) += 1;
            }
        }
        ShingleWeights {
            df,
            documents: sample.len().max(1) as f64,
            power,
        }
    }

    fn idf(&self, feature: u64) -> f64 {
        let df = self.df.get(&feature).copied().unwrap_or(1).max(1);
        (self.documents / f64::from(df)).ln().max(0.0)
    }

    /// A shingle's weight: the mean idf of its features, to the power.
    pub fn weight(&self, shingle: &[u64]) -> f64 {
        let mean = shingle.iter().map(|&f| self.idf(f)).sum::<f64>() / shingle.len().max(1) as f64;
        mean.powf(self.power)
    }
}

/// The weighted signature of `features`: per slot, the low `bits` bits of
/// an independent hash of the shingle that wins the slot's race; `None`
/// when no shingle has a weight.
pub fn weighted_codes(
    hashes: u16,
    bits: u8,
    shingle: u8,
    features: &[u64],
    weights: &ShingleWeights,
) -> Option<Vec<u16>> {
    if features.is_empty() {
        return None;
    }
    let width = usize::from(shingle).min(features.len());
    let mut seen = HashSet::new();
    let shingles: Vec<(u64, f64)> = features
        .windows(width)
        .filter_map(|w| {
            let hash = shingle_hash(w);
            let weight = weights.weight(w);
            (weight > 0.0 && seen.insert(hash)).then_some((hash, weight))
        })
        .collect();
    if shingles.is_empty() {
        return None;
    }
    let mask = if bits >= 16 {
        u64::from(u16::MAX)
    } else {
        (1u64 << bits) - 1
    };
    Some(
        (0..hashes)
            .map(|slot| {
                let mut best = f64::INFINITY;
                let mut winner = 0;
                for &(hash, weight) in &shingles {
                    let uniform =
                        ((slot_hash(slot, hash) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                    let arrival = -uniform.ln() / weight;
                    if arrival < best {
                        best = arrival;
                        winner = hash;
                    }
                }
                (slot_hash(slot.wrapping_add(0x5a5a), winner) & mask) as u16
            })
            .collect(),
    )
}

/// [`weighted_codes`] of every document.
pub fn all_codes(
    hashes: u16,
    bits: u8,
    shingle: u8,
    features: &[Vec<u64>],
    weights: &ShingleWeights,
) -> Vec<Option<Vec<u16>>> {
    features
        .par_iter()
        .map(|f| weighted_codes(hashes, bits, shingle, f, weights))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agreement(x: &[u16], y: &[u16]) -> f64 {
        x.iter().zip(y).filter(|(a, b)| a == b).count() as f64 / x.len() as f64
    }

    #[test]
    fn equal_weights_estimate_the_plain_resemblance_and_rare_shingles_weigh_more() {
        // Features 0..10 are in every sample document (idf 0 after the
        // power, so they weigh nothing); 100.. in one each.
        let sample: Vec<Vec<u64>> = (0..100)
            .map(|i| (0..10).chain([100 + i]).collect())
            .collect();
        let weights = ShingleWeights::learn(&sample, 1.0);
        assert_eq!(weights.weight(&[3]), 0.0);
        assert!(weights.weight(&[100]) > 4.0);
        // Two documents sharing 200 rare features of 300 each.
        let a: Vec<u64> = (1000..1300).collect();
        let b: Vec<u64> = (1100..1400).collect();
        let x = weighted_codes(1024, 16, 1, &a, &weights).unwrap();
        let y = weighted_codes(1024, 16, 1, &b, &weights).unwrap();
        assert!(
            (agreement(&x, &y) - 0.5).abs() < 0.06,
            "{}",
            agreement(&x, &y)
        );
        // Common features do not make two documents alike.
        let c: Vec<u64> = (0..10).chain(2000..2010).collect();
        let d: Vec<u64> = (0..10).chain(3000..3010).collect();
        let x = weighted_codes(1024, 16, 1, &c, &weights).unwrap();
        let y = weighted_codes(1024, 16, 1, &d, &weights).unwrap();
        assert!(agreement(&x, &y) < 0.01);
        assert!(weighted_codes(64, 4, 1, &[5000, 5001], &weights).is_some());
        assert!(weighted_codes(64, 4, 1, &[], &weights).is_none());
        assert!(weighted_codes(64, 4, 1, &[3, 4], &weights).is_none());
    }
}
