//! A corpus that learns from its first texts before it judges them
//! (`fpdb dedup --weights learned --confirm`, Python's `fpdb.dedup(...,
//! confirm=True)`): with learned weights, each fingerprint weighs words by
//! their rarity in those texts; with a confirmation, each signature leaves
//! out the features common to them (a site's template), as a database
//! learns both from its first texts ([`crate::learn`]). Until the tables
//! are learned, what depends on them waits; each text is tokenized once,
//! its fingerprint and signature both made from its feature hashes.

use std::sync::Arc;

use fpdb_simhash::{Fingerprint, LearnedIdf, Simhasher, WeakBits};

use crate::learn::{learn_common_features, LEARN_SAMPLE};
use crate::rule::{Confirmation, Document};

/// What the corpus learned from its first texts.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The weights, when they were to be learned.
    pub idf: Option<Arc<LearnedIdf>>,
    /// The confirmation with its common features, when there is one.
    pub confirmation: Option<Confirmation>,
    /// Texts learned from.
    pub sample: usize,
}

/// Texts read before the tables were learned, by position: their word
/// features, and their signature features where those differ
/// ([`Confirmation::number_features`]).
#[derive(Debug, Default)]
struct Sample {
    positions: Vec<usize>,
    features: Vec<Vec<u64>>,
    with_numbers: Vec<Option<Vec<u64>>>,
}

/// What a text read while the tables are learned keeps for them.
struct Sampled {
    features: Vec<u64>,
    with_numbers: Option<Vec<u64>>,
}

/// Documents by position, learning from the first texts.
#[derive(Debug)]
pub struct LearningCorpus {
    /// The tokenizer, and the weights unless they are learned.
    simhasher: Simhasher,
    learn_weights: bool,
    idf: Option<Arc<LearnedIdf>>,
    confirmation: Option<Confirmation>,
    documents: Vec<Document>,
    /// Texts read before the tables were learned; `None` once they are.
    sample: Option<Sample>,
    /// How many texts the tables are learned from.
    sample_limit: usize,
    sample_size: usize,
}

impl LearningCorpus {
    /// A corpus whose texts `simhasher` tokenizes (and weighs, unless
    /// `learn_weights`), signed by `confirmation` if given; both learn
    /// from the first [`LEARN_SAMPLE`] texts.
    pub fn new(
        simhasher: Simhasher,
        learn_weights: bool,
        confirmation: Option<Confirmation>,
    ) -> Self {
        Self::learning_from(simhasher, learn_weights, confirmation, LEARN_SAMPLE)
    }

    /// [`LearningCorpus::new`], learning from the first `sample_limit`
    /// texts.
    pub fn learning_from(
        simhasher: Simhasher,
        learn_weights: bool,
        confirmation: Option<Confirmation>,
        sample_limit: usize,
    ) -> Self {
        LearningCorpus {
            simhasher,
            learn_weights,
            idf: None,
            confirmation,
            documents: Vec::new(),
            sample: Some(Sample::default()),
            sample_limit: sample_limit.max(1),
            sample_size: 0,
        }
    }

    /// Takes a document given as a bare fingerprint (matched by distance
    /// alone); returns its position.
    pub fn add_fingerprint(&mut self, fp: Fingerprint) -> usize {
        self.documents.push(Document::from(fp));
        self.documents.len() - 1
    }

    /// Takes texts (tokenized on every core); returns each one's position,
    /// or `None` for a text without features, which is left out.
    pub fn add_texts<T: AsRef<str> + Sync>(&mut self, texts: &[T]) -> Vec<Option<usize>> {
        let learning = self.sample.is_some();
        let read = fpdb_parallel::map(texts, |text| self.read_text(text.as_ref(), learning));
        let mut positions = Vec::with_capacity(read.len());
        for read in read {
            let Some((document, features)) = read else {
                positions.push(None);
                continue;
            };
            if let (Some(sample), Some(sampled)) = (self.sample.as_mut(), features) {
                sample.positions.push(self.documents.len());
                sample.features.push(sampled.features);
                sample.with_numbers.push(sampled.with_numbers);
            }
            positions.push(Some(self.documents.len()));
            self.documents.push(document);
        }
        if self
            .sample
            .as_ref()
            .is_some_and(|sample| sample.positions.len() >= self.sample_limit)
        {
            self.learn();
        }
        positions
    }

    fn weak_bits_per_quarter(&self) -> u32 {
        self.confirmation
            .as_ref()
            .map_or(0, Confirmation::weak_bits)
    }

    /// One text's document, with its features while the tables are being
    /// learned (what depends on them waits for [`LearningCorpus::learn`]).
    fn read_text(&self, text: &str, learning: bool) -> Option<(Document, Option<Sampled>)> {
        let features = self.simhasher.feature_hashes(text);
        if features.is_empty() {
            return None;
        }
        let per_quarter = self.weak_bits_per_quarter();
        let (fingerprint, weak_bits) = match (&self.idf, self.learn_weights) {
            (Some(idf), _) => idf.fingerprint_and_weak_bits(&features, per_quarter),
            // Made when the weights are learned.
            (None, true) => (Fingerprint(0), WeakBits(0)),
            (None, false) => self.simhasher.fingerprint_and_weak_bits(text, per_quarter),
        };
        let with_numbers = self
            .confirmation
            .as_ref()
            .and_then(|c| c.number_features(&self.simhasher, text));
        let signed = if learning {
            None
        } else {
            self.confirmation
                .as_ref()
                .and_then(|c| c.signed(with_numbers.as_deref().unwrap_or(&features)))
        };
        let document = Document {
            fingerprint,
            shingles: signed.as_ref().map_or(0, |(_, shingles)| *shingles),
            signature: signed.map(|(signature, _)| signature),
            weak_bits: (per_quarter > 0).then_some(weak_bits),
        };
        Some((
            document,
            learning.then_some(Sampled {
                features,
                with_numbers,
            }),
        ))
    }

    /// Learns the tables from the sample and finishes its documents.
    fn learn(&mut self) {
        let Some(Sample {
            positions,
            features: sample,
            with_numbers,
        }) = self.sample.take()
        else {
            return;
        };
        self.sample_size = sample.len();
        if self.learn_weights {
            self.idf = Some(Arc::new(LearnedIdf::learn(
                sample.iter().map(Vec::as_slice),
            )));
        }
        self.confirmation = self
            .confirmation
            .take()
            .map(|c| c.with_common_features(learn_common_features(&sample)));
        for ((position, features), with_numbers) in positions.iter().zip(&sample).zip(&with_numbers)
        {
            let Some(document) = self.documents.get_mut(*position) else {
                continue;
            };
            if let Some(idf) = &self.idf {
                let per_quarter = self
                    .confirmation
                    .as_ref()
                    .map_or(0, Confirmation::weak_bits);
                let (fingerprint, weak_bits) = idf.fingerprint_and_weak_bits(features, per_quarter);
                document.fingerprint = fingerprint;
                document.weak_bits = (per_quarter > 0).then_some(weak_bits);
            }
            if let Some(confirmation) = &self.confirmation {
                let signed = confirmation.signed(with_numbers.as_deref().unwrap_or(features));
                document.shingles = signed.as_ref().map_or(0, |(_, shingles)| *shingles);
                document.signature = signed.map(|(signature, _)| signature);
            }
        }
    }

    /// Every document by position, and what was learned (from the texts
    /// taken, if fewer than the sample).
    pub fn finish(mut self) -> (Vec<Document>, Learned) {
        self.learn();
        let learned = Learned {
            idf: self.idf,
            confirmation: self.confirmation,
            sample: self.sample_size,
        };
        (self.documents, learned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpdb_simhash::Tokenizer;

    /// Texts after the sample get the sample's tables; texts in it get
    /// them once learned: every document is what the learned simhasher
    /// and confirmation make of its text.
    #[test]
    fn every_text_gets_the_tables_of_the_first_ones() {
        let texts: Vec<String> = (0..40)
            .map(|i| format!("page {i} about river {} and harbour {} news", i % 7, i % 5))
            .collect();
        let mut corpus = LearningCorpus::learning_from(
            Simhasher::default(),
            true,
            Some(Confirmation::recommended()),
            25,
        );
        let mut positions = Vec::new();
        for (start, end) in [(0, 10), (10, 30), (30, 40)] {
            positions.extend(corpus.add_texts(&texts[start..end]));
        }
        assert_eq!(corpus.add_texts(&["，。"]), vec![None]);
        let (documents, learned) = corpus.finish();
        assert_eq!(learned.sample, 30, "learned at the first batch past 25");
        let tokens = Simhasher::default();
        let sample: Vec<Vec<u64>> = texts[..30]
            .iter()
            .map(|t| tokens.feature_hashes(t))
            .collect();
        let idf = Arc::new(LearnedIdf::learn(sample.iter().map(Vec::as_slice)));
        assert_eq!(learned.idf.as_deref(), Some(&*idf));
        let confirmation =
            Confirmation::recommended().with_common_features(learn_common_features(&sample));
        let simhasher = Simhasher::learned(Tokenizer::Jieba, idf);
        for (i, text) in texts.iter().enumerate() {
            let expected =
                Document::of_text(&simhasher, Some(&confirmation), text).expect("features");
            assert_eq!(positions[i], Some(i));
            assert_eq!(documents[i], expected, "text {i}");
        }
    }
}
