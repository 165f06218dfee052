//! Two-stage matching measured by brute force: a pair is reported when its
//! 64-bit fingerprints are within a retrieval radius r (the candidates the
//! permuted tables would return) and its confirming signatures agree,
//! estimated similarity ≥ θ.
//!
//! Every pair of documents within the widest radius is found once per
//! fingerprint; each signature then scores those pairs, and the counts are
//! kept as histograms over (distance, similarity in hundredths), so every
//! (r, θ) is read off without another pass.

use rayon::prelude::*;

use fpdb_simhash::{slot_minima, CommonFeatures, SignatureLayout};

/// The widest retrieval radius measured.
pub const R_MAX: u32 = 16;
/// The radii reported.
pub const RADII: [u32; 7] = [3, 5, 7, 9, 10, 12, 16];
/// Similarity buckets: hundredths, 0..=100.
const BUCKETS: usize = 101;

/// A confirming signature under test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SigSpec {
    /// b-bit MinHash: `hashes` × `bits` over shingles of `shingle` features.
    MinHash { hashes: u16, bits: u8, shingle: u8 },
    /// The same over the features left after dropping those in more than
    /// `max_df` percent of the crawl's documents (a frozen table of common
    /// words, learned like the crawl IDF: template words are among them).
    MinHashRare {
        hashes: u16,
        bits: u8,
        shingle: u8,
        max_df: u8,
    },
    /// A simhash of `bits` bits (a multiple of 64) over every feature with
    /// tf weights; similarity 1 − 2·distance/bits (0 for unrelated texts).
    WideSimhash { bits: u16 },
}

impl SigSpec {
    pub fn name(&self) -> String {
        match self {
            SigSpec::MinHash {
                hashes,
                bits,
                shingle,
            } => format!("minhash {hashes}×{bits} w{shingle}"),
            SigSpec::MinHashRare {
                hashes,
                bits,
                shingle,
                max_df,
            } => format!("minhash {hashes}×{bits} w{shingle} df<{max_df}% *"),
            SigSpec::WideSimhash { bits } => format!("simhash-{bits}"),
        }
    }

    pub fn bytes(&self) -> usize {
        match self {
            SigSpec::MinHash { hashes, bits, .. } | SigSpec::MinHashRare { hashes, bits, .. } => {
                usize::from(*hashes) * usize::from(*bits) / 8
            }
            SigSpec::WideSimhash { bits } => usize::from(*bits) / 8,
        }
    }

    /// Parses `minhash:HxB/wS` or `simhash:BITS`.
    pub fn parse(spec: &str) -> anyhow::Result<SigSpec> {
        use anyhow::Context;
        if let Some(bits) = spec.strip_prefix("simhash:") {
            let bits: u16 = bits.parse()?;
            anyhow::ensure!(
                bits.is_multiple_of(64) && bits > 0,
                "simhash bits must be a multiple of 64"
            );
            return Ok(SigSpec::WideSimhash { bits });
        }
        let rest = spec
            .strip_prefix("minhash:")
            .with_context(|| format!("signature {spec:?} is not minhash:HxB/wS or simhash:BITS"))?;
        let (size, shingle) = rest.split_once("/w").context("minhash:HxB/wS[/dfP]")?;
        let (hashes, bits) = size.split_once('x').context("minhash:HxB/wS[/dfP]")?;
        let (hashes, bits): (u16, u8) = (hashes.parse()?, bits.parse()?);
        let (shingle, max_df) = match shingle.split_once("/df") {
            Some((shingle, df)) => (shingle.parse()?, Some(df.parse()?)),
            None => (shingle.parse()?, None),
        };
        SignatureLayout::new(hashes, bits, shingle)?;
        Ok(match max_df {
            Some(max_df) => SigSpec::MinHashRare {
                hashes,
                bits,
                shingle,
                max_df,
            },
            None => SigSpec::MinHash {
                hashes,
                bits,
                shingle,
            },
        })
    }
}

/// A pair's estimated similarity, in [0, 1]: a signature's, or a rule's
/// score built on it (`confirm.rs`).
pub trait Similarity {
    fn similarity(&self, a: usize, b: usize) -> f64;
}

/// The signatures of every document under one spec, ready to compare.
pub enum Signatures {
    /// Codes per document (`None`: the text has no feature).
    Codes {
        codes: Vec<Option<Vec<u16>>>,
        bits: u8,
    },
    Wide {
        words: Vec<Vec<u64>>,
        bits: u16,
    },
}

impl Signatures {
    /// From each document's feature hashes in text order; `crawl` is the
    /// feature hashes of the crawl that `MinHashRare` learns its common
    /// features from.
    pub fn new(spec: SigSpec, features: &[Vec<u64>], crawl: &[Vec<u64>]) -> Signatures {
        match spec {
            SigSpec::MinHashRare {
                hashes,
                bits,
                shingle,
                max_df,
            } => {
                let common =
                    CommonFeatures::learn(crawl.iter().map(Vec::as_slice), max_df).unwrap();
                let rare: Vec<Vec<u64>> =
                    features.par_iter().map(|f| common.remove_from(f)).collect();
                Signatures::new(
                    SigSpec::MinHash {
                        hashes,
                        bits,
                        shingle,
                    },
                    &rare,
                    crawl,
                )
            }
            SigSpec::MinHash {
                hashes,
                bits,
                shingle,
            } => {
                let layout = SignatureLayout::new(hashes, bits, shingle).unwrap();
                let mask = if bits == 16 {
                    0xffff
                } else {
                    (1u64 << bits) - 1
                };
                let codes = features
                    .par_iter()
                    .map(|f| {
                        slot_minima(layout, f)
                            .ok()
                            .map(|m| m.iter().map(|&x| (x & mask) as u16).collect())
                    })
                    .collect();
                Signatures::Codes { codes, bits }
            }
            SigSpec::WideSimhash { bits } => Signatures::Wide {
                words: features
                    .par_iter()
                    .map(|f| wide_simhash(f, usize::from(bits) / 64))
                    .collect(),
                bits,
            },
        }
    }
}

impl Similarity for Signatures {
    /// Estimated similarity of documents `a` and `b`, in [0, 1]; 0 when
    /// either has no signature.
    fn similarity(&self, a: usize, b: usize) -> f64 {
        match self {
            Signatures::Codes { codes, bits } => {
                let (Some(x), Some(y)) = (&codes[a], &codes[b]) else {
                    return 0.0;
                };
                let agree = x.iter().zip(y).filter(|(p, q)| p == q).count();
                let share = agree as f64 / x.len() as f64;
                let chance = 0.5f64.powi(i32::from(*bits));
                ((share - chance) / (1.0 - chance)).clamp(0.0, 1.0)
            }
            Signatures::Wide { words, bits } => {
                let d: u32 = words[a]
                    .iter()
                    .zip(&words[b])
                    .map(|(x, y)| (x ^ y).count_ones())
                    .sum();
                (1.0 - 2.0 * f64::from(d) / f64::from(*bits)).max(0.0)
            }
        }
    }
}

/// A tf simhash of `words` × 64 bits: each feature votes with `words`
/// independent hashes derived from its own.
fn wide_simhash(features: &[u64], words: usize) -> Vec<u64> {
    let mut sums = vec![0i64; 64 * words];
    for &f in features {
        for w in 0..words {
            let h = if w == 0 {
                f
            } else {
                fpdb_simhash::slot_hash(w as u16, f)
            };
            for bit in 0..64 {
                sums[w * 64 + bit] += if h >> (63 - bit) & 1 == 1 { 1 } else { -1 };
            }
        }
    }
    sums.chunks(64)
        .map(|c| c.iter().fold(0u64, |acc, &s| (acc << 1) | u64::from(s > 0)))
        .collect()
}

/// Pairs of documents within `R_MAX` bits, with their distance.
pub fn near_pairs(fps: &[u64]) -> Vec<(u32, u32, u8)> {
    (0..fps.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let a = fps[i];
            fps[i + 1..].iter().enumerate().filter_map(move |(j, &b)| {
                let d = (a ^ b).count_ones();
                (d <= R_MAX).then_some((i as u32, (i + 1 + j) as u32, d as u8))
            })
        })
        .collect()
}

/// How the documents relate: a group per original, and the planted
/// (original, copy, kind) pairs that recall counts.
pub struct Truth {
    pub group: Vec<u32>,
    pub planted: Vec<(u32, u32, usize)>,
    pub kinds: usize,
}

type Hist = Vec<[usize; BUCKETS]>;

fn empty_hist() -> Hist {
    vec![[0; BUCKETS]; R_MAX as usize + 1]
}

/// Counts over (distance, similarity bucket) for one fingerprint and one
/// signature.
pub struct Scored {
    pub documents: usize,
    true_pairs: Hist,
    false_pairs: Hist,
    planted: Vec<Hist>,
    planted_total: usize,
}

fn bucket(similarity: f64) -> usize {
    ((similarity * 100.0).floor() as usize).min(BUCKETS - 1)
}

pub fn score(
    fps: &[u64],
    pairs: &[(u32, u32, u8)],
    sigs: &(impl Similarity + Sync),
    truth: &Truth,
) -> Scored {
    let (true_pairs, false_pairs) = pairs
        .par_iter()
        .fold(
            || (empty_hist(), empty_hist()),
            |(mut t, mut f), &(a, b, d)| {
                let s = bucket(sigs.similarity(a as usize, b as usize));
                if truth.group[a as usize] == truth.group[b as usize] {
                    t[d as usize][s] += 1;
                } else {
                    f[d as usize][s] += 1;
                }
                (t, f)
            },
        )
        .reduce(
            || (empty_hist(), empty_hist()),
            |(mut t, mut f), (t2, f2)| {
                add(&mut t, &t2);
                add(&mut f, &f2);
                (t, f)
            },
        );
    let mut planted = vec![empty_hist(); truth.kinds];
    for &(a, b, kind) in &truth.planted {
        let d = (fps[a as usize] ^ fps[b as usize]).count_ones();
        if d <= R_MAX {
            let s = bucket(sigs.similarity(a as usize, b as usize));
            planted[kind][d as usize][s] += 1;
        }
    }
    Scored {
        documents: fps.len(),
        true_pairs,
        false_pairs,
        planted,
        planted_total: truth.planted.len() / truth.kinds.max(1),
    }
}

fn add(x: &mut Hist, y: &Hist) {
    for (a, b) in x.iter_mut().zip(y) {
        for (p, q) in a.iter_mut().zip(b) {
            *p += q;
        }
    }
}

fn upto(h: &Hist, r: u32, theta: usize) -> usize {
    h[..=r as usize]
        .iter()
        .map(|row| row[theta..].iter().sum::<usize>())
        .sum()
}

/// Counts at one (r, θ).
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// θ in hundredths.
    pub theta: usize,
    pub recall: f64,
    pub precision: f64,
    pub false_pairs: usize,
    /// False matches per query: each document asked against all others.
    pub false_per_query: f64,
}

impl Scored {
    pub fn at(&self, r: u32, theta: usize) -> Point {
        let t = upto(&self.true_pairs, r, theta);
        let f = upto(&self.false_pairs, r, theta);
        let found: usize = self.planted.iter().map(|h| upto(h, r, theta)).sum();
        let planted = self.planted_total * self.planted.len();
        Point {
            theta,
            recall: found as f64 / planted.max(1) as f64,
            precision: if t + f == 0 {
                1.0
            } else {
                t as f64 / (t + f) as f64
            },
            false_pairs: f,
            false_per_query: 2.0 * f as f64 / self.documents as f64,
        }
    }

    pub fn kind_recall(&self, kind: usize, r: u32, theta: usize) -> f64 {
        upto(&self.planted[kind], r, theta) as f64 / self.planted_total.max(1) as f64
    }

    /// The θ with the best recall at radius `r` among those with
    /// precision ≥ `min_precision` and no more false pairs than `max_false`.
    pub fn best_at(&self, r: u32, min_precision: f64, max_false: Option<usize>) -> Option<Point> {
        (0..BUCKETS)
            .map(|theta| self.at(r, theta))
            .filter(|p| {
                p.precision >= min_precision && max_false.is_none_or(|m| p.false_pairs <= m)
            })
            .max_by(|a, b| {
                a.recall
                    .total_cmp(&b.recall)
                    .then(b.false_pairs.cmp(&a.false_pairs))
                    .then(a.theta.cmp(&b.theta))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_candidates_and_confirmations() {
        // Documents 0 and 1 share a group and a signature; 2 is another
        // group with fingerprint 1 bit from 0 but a different signature.
        let fps = [0u64, 0b11, 0b1];
        let features = vec![vec![1u64, 2, 3], vec![1, 2, 3], vec![7, 8, 9]];
        let spec = SigSpec::MinHash {
            hashes: 64,
            bits: 8,
            shingle: 1,
        };
        let sigs = Signatures::new(spec, &features, &[]);
        let truth = Truth {
            group: vec![0, 0, 1],
            planted: vec![(0, 1, 0)],
            kinds: 1,
        };
        let scored = score(&fps, &near_pairs(&fps), &sigs, &truth);
        // At r = 1 the planted pair (2 bits apart) is not a candidate.
        assert_eq!(scored.at(1, 50).recall, 0.0);
        let p = scored.at(3, 50);
        assert_eq!(p.recall, 1.0);
        assert_eq!(p.false_pairs, 0);
        // Without confirmation both pairs with document 2 are false.
        assert_eq!(scored.at(3, 0).false_pairs, 2);
    }
}
