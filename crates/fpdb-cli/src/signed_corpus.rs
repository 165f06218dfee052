//! A corpus read for two-stage matching (`fpdb dedup --confirm`): each
//! document's fingerprint and confirming signature, the signature without
//! the features common to the corpus's first documents (a site's
//! template), learned as a database learns them from its first load.

use fpdb::dedup::Corpus;
use fpdb::{learn_common_features, Confirmation, Document, Simhasher};

use crate::input::{Payload, Record};

/// Documents whose features teach the common-feature table: the first
/// this many texts (fewer when the corpus has fewer).
const SAMPLE: usize = 10_000;

/// What one record gave: a document, its features while the table is not
/// learned yet, or nothing (a text without features).
enum Read {
    Document(Document, Option<Vec<u64>>),
    NoFeatures,
}

pub struct SignedCorpus {
    simhasher: Simhasher,
    confirmation: Confirmation,
    corpus: Corpus,
    documents: Vec<Document>,
    /// Texts read before the table was learned: their positions and
    /// their features; `None` once it is.
    sample: Option<(Vec<usize>, Vec<Vec<u64>>)>,
    skipped: u64,
}

impl SignedCorpus {
    pub fn new(simhasher: Simhasher, confirmation: Confirmation) -> Self {
        SignedCorpus {
            simhasher,
            confirmation,
            corpus: Corpus::new(),
            documents: Vec::new(),
            sample: Some((Vec::new(), Vec::new())),
            skipped: 0,
        }
    }

    /// Reads a batch of records (texts hashed on every core); texts
    /// without features are named on standard error and left out.
    pub fn add(&mut self, records: Vec<Record>) {
        let learning = self.sample.is_some();
        let (simhasher, confirmation) = (&self.simhasher, &self.confirmation);
        let read = fpdb_parallel::map(&records, |record| match &record.payload {
            Payload::Fingerprint(fp) => Read::Document(Document::from(*fp), None),
            Payload::Text(text) => {
                let features = simhasher.feature_hashes(text);
                if features.is_empty() {
                    return Read::NoFeatures;
                }
                // While the table is being learned, the signature waits
                // for it (`learn`), and the features are kept until then.
                let signature = (!learning)
                    .then(|| confirmation.signature(&features))
                    .flatten();
                let document = Document {
                    fingerprint: simhasher.fingerprint(text),
                    signature,
                };
                Read::Document(document, learning.then_some(features))
            }
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
                    self.corpus.push(record.id, document.fingerprint);
                    self.documents.push(document);
                }
            }
        }
        if self
            .sample
            .as_ref()
            .is_some_and(|(positions, _)| positions.len() >= SAMPLE)
        {
            self.learn();
        }
    }

    /// Learns the common features from the sample and signs its texts.
    fn learn(&mut self) {
        let Some((positions, sample)) = self.sample.take() else {
            return;
        };
        self.confirmation = self
            .confirmation
            .clone()
            .with_common_features(learn_common_features(&sample));
        for (position, features) in positions.iter().zip(&sample) {
            if let Some(document) = self.documents.get_mut(*position) {
                document.signature = self.confirmation.signature(features);
            }
        }
    }

    /// Texts left out for having no features.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The corpus (ids and fingerprints by position), each position's
    /// document, and the confirmation with the learned table.
    pub fn finish(mut self) -> (Corpus, Vec<Document>, Confirmation) {
        self.learn();
        (self.corpus, self.documents, self.confirmation)
    }
}
