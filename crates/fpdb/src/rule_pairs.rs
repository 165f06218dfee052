//! The near-duplicate pairs of a database's documents under a match rule:
//! every stored document (its fingerprint, id and signature, from one scan
//! of `fp_ids`) paired as a corpus is ([`MatchRule::corpus_pairs`]), so a
//! database and a corpus of the same documents agree. Memory grows with
//! the documents (their ids and signatures are held while pairing).

use fpdb_codec::dedup::Corpus;

use crate::corpus_rule::DocumentPair;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::rule::{Document, MatchRule};
use crate::store::{Family, Record, Store};

/// Every stored document as a corpus (ids and fingerprints by position,
/// in fingerprint order) and the pairs of positions `rule` matches.
pub(crate) fn rule_pairs(
    store: &Store,
    rule: &MatchRule,
    documents_stored: u64,
    progress: &dyn Progress,
) -> Result<(Corpus, Vec<DocumentPair>)> {
    let mut corpus = Corpus::new();
    let mut documents = Vec::new();
    progress.phase("documents", Some(documents_stored));
    for entry in store.entries(Family::FpToIds)? {
        let (key, value) = entry?;
        let record = Record::decode(Family::FpToIds, &key, &value)
            .map_err(|malformed| Error::corrupt("fp_ids", malformed.to_string()))?;
        let Record::FpId { fp, id, signature } = record else {
            return Err(Error::corrupt("fp_ids", "an entry of another family"));
        };
        let document = match &rule.confirmation {
            Some(confirmation) if !signature.is_empty() => {
                let document = confirmation.stored_document(fp, signature);
                if document.signature.is_none() {
                    return Err(Error::corrupt(
                        "fp_ids",
                        format!(
                            "a signature of {} bytes where the confirmation stores {}",
                            signature.len(),
                            confirmation.stored_bytes()
                        ),
                    ));
                }
                document
            }
            _ => Document::from(fp),
        };
        corpus.push(String::from_utf8_lossy(id), fp);
        documents.push(document);
        progress.advance(1);
    }
    progress.phase("pairs", None);
    let pairs = rule.corpus_pairs(&documents)?;
    Ok((corpus, pairs))
}
