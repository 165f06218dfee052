//! How many documents of a sample hold each feature: what the crawl-learned
//! tables ([`crate::CommonFeatures`], [`crate::LearnedIdf`]) are made of.

use std::collections::HashMap;

/// The number of `documents` (each given as its feature hashes, repeats
/// allowed) and, for each feature hash, how many of them hold it.
pub(crate) fn document_frequencies<'d>(
    documents: impl IntoIterator<Item = &'d [u64]>,
) -> (u64, HashMap<u64, u64>) {
    let mut frequency: HashMap<u64, u64> = HashMap::new();
    let mut count = 0u64;
    let mut distinct = Vec::new();
    for features in documents {
        count += 1;
        distinct.clear();
        distinct.extend_from_slice(features);
        distinct.sort_unstable();
        distinct.dedup();
        for &hash in &distinct {
            *frequency.entry(hash).or_insert(0) += 1;
        }
    }
    (count, frequency)
}
