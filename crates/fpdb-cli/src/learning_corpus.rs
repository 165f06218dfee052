//! A corpus read for `fpdb dedup --weights learned` or `--confirm`: what
//! the corpus's first texts teach is learned from them, as a database
//! learns it from its first load, then applied to every text. With learned
//! weights, each fingerprint weighs words by their rarity in those texts;
//! with a confirmation, each signature leaves out the features common to
//! them (a site's template). Each text is tokenized once: its fingerprint
//! and signature both come from its feature hashes.

use std::sync::Arc;

use fpdb::dedup::Corpus;
use fpdb::simhash::LearnedIdf;
use fpdb::{learn_common_features, Confirmation, Document, Fingerprint, Simhasher, LEARN_SAMPLE};

use crate::input::{Payload, Record};

/// What one record gave: a document, its features while the tables are not
/// learned yet, or nothing (a text without features).
enum Read {
    Document(Document, Option<Vec<u64>>),
    NoFeatures,
}

/// What the corpus learned from its first texts.
pub struct Learned {
    /// The weights, with `--weights learned`.
    pub idf: Option<Arc<LearnedIdf>>,
    /// The confirmation with its common features, with `--confirm`.
    pub confirmation: Option<Confirmation>,
    /// Texts learned from.
    pub sample: usize,
}

pub struct LearningCorpus {
    /// The tokenizer, and the weights unless they are learned.
    simhasher: Simhasher,
    learn_weights: bool,
    idf: Option<Arc<LearnedIdf>>,
    confirmation: Option<Confirmation>,
    ids: Vec<String>,
    documents: Vec<Document>,
    /// Texts read before the tables were learned: their positions and
    /// their features; `None` once they are.
    sample: Option<(Vec<usize>, Vec<Vec<u64>>)>,
    /// How many texts the tables are learned from.
    sample_limit: usize,
    sample_size: usize,
    skipped: u64,
}

impl LearningCorpus {
    /// `learn_weights`: fingerprints weigh words by the sample's IDF
    /// (`simhasher` then only gives the tokenizer).
    pub fn new(
        simhasher: Simhasher,
        learn_weights: bool,
        confirmation: Option<Confirmation>,
    ) -> Self {
        LearningCorpus {
            simhasher,
            learn_weights,
            idf: None,
            confirmation,
            ids: Vec::new(),
            documents: Vec::new(),
            sample: Some((Vec::new(), Vec::new())),
            sample_limit: LEARN_SAMPLE,
            sample_size: 0,
            skipped: 0,
        }
    }

    /// Reads a batch of records (texts tokenized on every core); texts
    /// without features are named on standard error and left out.
    pub fn add(&mut self, records: Vec<Record>) {
        let learning = self.sample.is_some();
        let read = fpdb_parallel::map(&records, |record| match &record.payload {
            Payload::Fingerprint(fp) => Read::Document(Document::from(*fp), None),
            Payload::Text(text) => self.read_text(text, learning),
        });
        for (record, read) in records.into_iter().zip(read) {
            match read {
                Read::NoFeatures => {
                    eprintln!("fpdb: {}: {}; skipped", record.id, fpdb::Error::NoFeatures);
                    self.skipped += 1;
                }
                Read::Document(document, features) => {
                    if let (Some((positions, sample)), Some(features)) =
                        (self.sample.as_mut(), features)
                    {
                        positions.push(self.documents.len());
                        sample.push(features);
                    }
                    self.ids.push(record.id);
                    self.documents.push(document);
                }
            }
        }
        if self
            .sample
            .as_ref()
            .is_some_and(|(positions, _)| positions.len() >= self.sample_limit)
        {
            self.learn();
        }
    }

    /// One text's document; while the tables are being learned, what
    /// depends on them waits (`learn`) and the features are kept.
    fn read_text(&self, text: &str, learning: bool) -> Read {
        let features = self.simhasher.feature_hashes(text);
        if features.is_empty() {
            return Read::NoFeatures;
        }
        let fingerprint = match (&self.idf, self.learn_weights) {
            (Some(idf), _) => idf.fingerprint(&features),
            // Filled in when the weights are learned.
            (None, true) => Fingerprint(0),
            (None, false) => self.simhasher.fingerprint(text),
        };
        let signature = if learning {
            None
        } else {
            self.confirmation
                .as_ref()
                .and_then(|c| c.signature(&features))
        };
        let document = Document {
            fingerprint,
            signature,
        };
        Read::Document(document, learning.then_some(features))
    }

    /// Learns the tables from the sample and finishes its documents.
    fn learn(&mut self) {
        let Some((positions, sample)) = self.sample.take() else {
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
        for (position, features) in positions.iter().zip(&sample) {
            let Some(document) = self.documents.get_mut(*position) else {
                continue;
            };
            if let Some(idf) = &self.idf {
                document.fingerprint = idf.fingerprint(features);
            }
            if let Some(confirmation) = &self.confirmation {
                document.signature = confirmation.signature(features);
            }
        }
    }

    /// Texts left out for having no features.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The corpus (ids and fingerprints by position), each position's
    /// document, and what was learned.
    pub fn finish(mut self) -> (Corpus, Vec<Document>, Learned) {
        self.learn();
        let mut corpus = Corpus::new();
        corpus.extend(
            self.ids
                .into_iter()
                .zip(self.documents.iter().map(|d| d.fingerprint)),
        );
        let learned = Learned {
            idf: self.idf,
            confirmation: self.confirmation,
            sample: self.sample_size,
        };
        (corpus, self.documents, learned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpdb::simhash::Tokenizer;

    fn record(id: usize, text: &str) -> Record {
        Record {
            id: format!("d{id}"),
            payload: Payload::Text(text.to_string()),
        }
    }

    /// Texts after the sample get the sample's tables; texts in it get
    /// them once learned: every document is what the learned simhasher
    /// and confirmation make of its text.
    #[test]
    fn every_text_gets_the_tables_of_the_first_ones() {
        let texts: Vec<String> = (0..40)
            .map(|i| format!("page {i} about river {} and harbour {} news", i % 7, i % 5))
            .collect();
        let mut corpus = LearningCorpus::new(
            Simhasher::default(),
            true,
            Some(Confirmation::recommended()),
        );
        corpus.sample_limit = 25;
        for (start, end) in [(0, 10), (10, 30), (30, 40)] {
            let batch = (start..end).map(|i| record(i, &texts[i])).collect();
            corpus.add(batch);
        }
        let (fingerprints, documents, learned) = corpus.finish();
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
            assert_eq!(documents[i], expected, "text {i}");
            assert_eq!(fingerprints.fingerprint(i), Some(expected.fingerprint));
        }
    }
}
