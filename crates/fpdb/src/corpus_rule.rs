//! Near-duplicates inside a corpus under the match rule, without a
//! database: the pairs of fingerprints within the rule's retrieval radius
//! (the codec's pair scan, wide past `k`; or, where the rule keeps weak
//! bits, the pairs within `k` and those the earlier document's weak bits
//! reach), each kept only when [`MatchRule::judge`] keeps it, so a
//! corpus and a database agree.

use fpdb_codec::{dedup, reach_pairs};
use fpdb_simhash::Fingerprint;

use crate::error::Result;
use crate::rule::{Document, MatchRule};

/// Two documents of a corpus the rule matched, by position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocumentPair {
    /// The earlier document (`a < b`).
    pub a: usize,
    /// The later document.
    pub b: usize,
    /// The Hamming distance of their fingerprints.
    pub distance: u32,
    /// The estimated resemblance that confirmed the pair; `None` when it
    /// was matched by distance alone (one of the two has no signature).
    pub similarity: Option<f64>,
}

impl MatchRule {
    /// Every pair of `documents` this rule matches, each once with
    /// `a < b`, sorted by `(a, b)`: within `k` by distance alone where
    /// either has no signature, else within the confirmation's radius and
    /// confirmed by the two signatures.
    pub fn corpus_pairs(&self, documents: &[Document]) -> Result<Vec<DocumentPair>> {
        let fingerprints: Vec<Fingerprint> = documents.iter().map(|d| d.fingerprint).collect();
        let candidates = if documents.iter().any(|d| self.probed_weak_bits(d).is_some()) {
            // Where weak bits are kept a signed pair must be reached by
            // both, so by the earlier; bare pairs match within k.
            let weak: Vec<_> = documents.iter().map(|d| self.probed_weak_bits(d)).collect();
            let mut candidates = dedup::near_pairs(&fingerprints, self.k)?;
            candidates.extend(reach_pairs(
                &fingerprints,
                &weak,
                self.retrieval_radius(),
                self.weak_flips(),
            ));
            candidates.sort_unstable();
            candidates.dedup();
            candidates
        } else {
            dedup::near_pairs(&fingerprints, self.retrieval_radius())?
        };
        let stored: Vec<Vec<u8>> = documents
            .iter()
            .map(|d| d.stored_bytes(self.confirmation.as_ref()))
            .collect();
        Ok(candidates
            .into_iter()
            .filter_map(|pair| {
                let (a, b) = (fingerprints.get(pair.a)?, fingerprints.get(pair.b)?);
                let similarity = self.judge(a.0 ^ b.0, stored.get(pair.a)?, stored.get(pair.b)?)?;
                Some(DocumentPair {
                    a: pair.a,
                    b: pair.b,
                    distance: pair.distance,
                    similarity,
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use fpdb_simhash::{Signature, SignatureLayout, Simhasher, WeakBits};
    use fpdb_testkit::Rng;

    use super::*;
    use crate::rule::Confirmation;

    /// Documents whose fingerprints cluster a few bits apart and whose
    /// signatures are drawn from a few texts, some bare.
    fn documents(rng: &mut Rng, n: usize) -> Vec<Document> {
        let simhasher = Simhasher::default();
        let texts = [
            "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同。",
            "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同。",
            "The quick brown fox jumps over the lazy dog near the river bank.",
            "A completely different sentence about databases and fingerprints.",
        ];
        let signatures: Vec<Signature> = texts
            .iter()
            .map(|text| {
                simhasher
                    .signature(text, SignatureLayout::RECOMMENDED)
                    .unwrap()
            })
            .collect();
        let mut out: Vec<Document> = Vec::with_capacity(n);
        for _ in 0..n {
            let fingerprint = match out.len() {
                0 => Fingerprint(rng.next_u64()),
                len if rng.chance(70) => {
                    let mut fp = out[usize::try_from(rng.below(len as u64)).unwrap()]
                        .fingerprint
                        .0;
                    for _ in 0..rng.below(15) {
                        fp ^= 1 << rng.below(64);
                    }
                    Fingerprint(fp)
                }
                _ => Fingerprint(rng.next_u64()),
            };
            let signature = (!rng.chance(20)).then(|| {
                signatures[usize::try_from(rng.below(signatures.len() as u64)).unwrap()].clone()
            });
            // Three bits in four weak, so that copies past k are often reached.
            let weak_bits = Some(WeakBits(rng.next_u64() | rng.next_u64()));
            out.push(Document {
                fingerprint,
                shingles: u32::try_from(rng.below(30)).unwrap(),
                signature,
                weak_bits,
            });
        }
        out
    }

    #[test]
    fn corpus_pairs_equal_the_rule_applied_to_every_pair() {
        let mut rng = Rng::new(5);
        for rule in [
            MatchRule {
                k: 3,
                confirmation: Some(Confirmation::recommended()),
            },
            MatchRule {
                k: 2,
                confirmation: Some(
                    Confirmation::new(SignatureLayout::RECOMMENDED, 0.9, 7).unwrap(),
                ),
            },
            MatchRule {
                k: 3,
                confirmation: None,
            },
            MatchRule {
                k: 3,
                confirmation: Some(
                    Confirmation::recommended()
                        .with_weak_bits(4)
                        .unwrap()
                        .with_min_shared(7),
                ),
            },
        ] {
            let documents = documents(&mut rng, 400);
            let mut expected = Vec::new();
            let mut rejected_within_k = 0;
            for (a, x) in documents.iter().enumerate() {
                for (b, y) in documents.iter().enumerate().skip(a + 1) {
                    let xor = x.fingerprint.0 ^ y.fingerprint.0;
                    let distance = xor.count_ones();
                    let bytes = |d: &Document| d.stored_bytes(rule.confirmation.as_ref());
                    match rule.judge(xor, &bytes(x), &bytes(y)) {
                        Some(similarity) => expected.push(DocumentPair {
                            a,
                            b,
                            distance,
                            similarity,
                        }),
                        None if distance <= rule.k => rejected_within_k += 1,
                        None => {}
                    }
                }
            }
            let got = rule.corpus_pairs(&documents).unwrap();
            assert_eq!(got, expected, "{rule:?}");
            if rule.confirmation.is_some() {
                // Both stages were exercised: pairs past k confirmed, and
                // pairs within k rejected by their signatures.
                assert!(got.iter().any(|p| p.distance > rule.k), "{rule:?}");
                assert!(rejected_within_k > 0);
                assert!(got.iter().any(|p| p.similarity.is_none()));
            }
        }
    }
}
