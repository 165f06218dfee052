//! Input records for `fpdb dedup` when it learns weights or confirms (its defaults): each
//! record's id beside the library's [`LearningCorpus`], which learns from
//! the first texts what it applies to every text. Texts without features
//! are named on standard error and left out.

use fpdb::dedup::Corpus;
use fpdb::{Confirmation, Document, Learned, LearningCorpus, Simhasher};

use crate::input::{Payload, Record};

pub struct LearningInput {
    corpus: LearningCorpus,
    /// The id of each document, by position.
    ids: Vec<String>,
    /// Texts waiting to be taken together, in input order.
    texts: Vec<Record>,
    skipped: u64,
}

impl LearningInput {
    pub fn new(
        simhasher: Simhasher,
        learn_weights: bool,
        confirmation: Option<Confirmation>,
    ) -> Self {
        LearningInput {
            corpus: LearningCorpus::new(simhasher, learn_weights, confirmation),
            ids: Vec::new(),
            texts: Vec::new(),
            skipped: 0,
        }
    }

    /// Takes a batch of records in input order (runs of texts together).
    pub fn add(&mut self, records: Vec<Record>) {
        for record in records {
            match record.payload {
                Payload::Text(_) => self.texts.push(record),
                Payload::Fingerprint(fp) => {
                    self.take_texts();
                    self.corpus.add_fingerprint(fp);
                    self.ids.push(record.id);
                }
            }
        }
        self.take_texts();
    }

    fn take_texts(&mut self) {
        if self.texts.is_empty() {
            return;
        }
        let texts: Vec<&str> = self
            .texts
            .iter()
            .map(|record| match &record.payload {
                Payload::Text(text) => text.as_str(),
                Payload::Fingerprint(_) => "",
            })
            .collect();
        let positions = self.corpus.add_texts(&texts);
        for (record, position) in self.texts.drain(..).zip(positions) {
            if position.is_some() {
                self.ids.push(record.id);
            } else {
                eprintln!("fpdb: {}: {}; skipped", record.id, fpdb::Error::NoFeatures);
                self.skipped += 1;
            }
        }
    }

    /// Texts left out for having no features.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The corpus (ids and fingerprints by position), each position's
    /// document, and what was learned.
    pub fn finish(self) -> (Corpus, Vec<Document>, Learned) {
        let (documents, learned) = self.corpus.finish();
        let mut corpus = Corpus::new();
        corpus.extend(
            self.ids
                .into_iter()
                .zip(documents.iter().map(|d| d.fingerprint)),
        );
        (corpus, documents, learned)
    }
}
