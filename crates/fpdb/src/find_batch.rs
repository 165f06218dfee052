//! Many queries under the match rule at once, the paper's batch mode for
//! two stages: every query's weak-bit probes are sorted per table and
//! walked against the table in one pass ([`join_table_flips`]), so each
//! block is read and decoded once however many probes want it; then the
//! stored values of every candidate are read once, in key order, and each
//! pair is judged by [`MatchRule::judge`] as [`find`] judges it. A fresh
//! process answering many texts otherwise reads a block from the store
//! for nearly every one of a query's 128 probes.

use fpdb_parallel::in_parallel;
use fpdb_simhash::Fingerprint;

use crate::batch::{join_table_flips, read_sorted, BatchStrategy, MERGE_BATCH_THRESHOLD};
use crate::error::{Error, Result};
use crate::find::{find, QUARTERS_CLEAN_WITHIN};
use crate::query::weak_bit_flips;
use crate::rule::{Document, MatchRule, Near};
use crate::store::Store;
use crate::tables::{State, Tables};

/// Queries walked together, so that their flip sets (at most 1 KiB a
/// query under split-4 with 5 weak bits a quarter, every subset) and a
/// table's probes (at most 32 a query, 16 bytes each) stay near 100 MB.
const WALK_PART: usize = 65_536;

/// The (id, stored bytes) of every document with one fingerprint.
type Stored = Vec<(String, Vec<u8>)>;

/// Answers for `documents` in input order, each what [`find`] gives. A
/// batch whose rule probes weak bits and keeps k within 3 bits is
/// merged against the tables when `strategy` says so (Auto: from
/// [`MERGE_BATCH_THRESHOLD`] documents); other documents are found one
/// by one, in parallel.
pub(crate) fn find_batch(
    store: &Store,
    tables: &Tables,
    documents: &[Document],
    rule: &MatchRule,
    strategy: BatchStrategy,
) -> Result<Vec<Vec<Near>>> {
    let merge = match strategy {
        BatchStrategy::Auto => documents.len() >= MERGE_BATCH_THRESHOLD,
        BatchStrategy::Probe => false,
        BatchStrategy::Merge => true,
    } && rule.k <= QUARTERS_CLEAN_WITHIN;
    let state = tables.read();
    // Documents whose weak bits are probed go into the walk; the rest
    // (bare, or under a rule without weak bits) are found one by one.
    let (walked, alone): (Vec<usize>, Vec<usize>) = (0..documents.len()).partition(|&i| {
        merge
            && documents
                .get(i)
                .and_then(|d| rule.probed_weak_bits(d))
                .is_some()
    });
    let mut answers: Vec<Vec<Near>> = vec![Vec::new(); documents.len()];
    let found_alone = in_parallel(alone.len(), |at| {
        let document = alone
            .get(at)
            .and_then(|&i| documents.get(i))
            .ok_or_else(|| out_of_range(at))?;
        find(store, tables, &state, document, rule)
    });
    for (&i, near) in alone.iter().zip(found_alone) {
        *answers.get_mut(i).ok_or_else(|| out_of_range(i))? = near?;
    }
    for part in walked.chunks(WALK_PART) {
        let batch: Vec<&Document> = part
            .iter()
            .map(|&i| documents.get(i).ok_or_else(|| out_of_range(i)))
            .collect::<Result<_>>()?;
        for (&i, near) in part.iter().zip(walk(store, tables, &state, &batch, rule)?) {
            *answers.get_mut(i).ok_or_else(|| out_of_range(i))? = near;
        }
    }
    Ok(answers)
}

/// [`find`] for `documents`, each with weak bits the rule probes, in
/// one walk of each table.
fn walk(
    store: &Store,
    tables: &Tables,
    state: &State,
    documents: &[&Document],
    rule: &MatchRule,
) -> Result<Vec<Vec<Near>>> {
    let fps: Vec<Fingerprint> = documents.iter().map(|d| d.fingerprint).collect();
    let flips: Vec<Vec<Vec<u64>>> = documents
        .iter()
        .map(|d| {
            let weak = rule
                .probed_weak_bits(d)
                .ok_or_else(|| Error::corrupt("batch find", "a document without weak bits"))?;
            weak_bit_flips(tables, weak, rule.weak_flips())
        })
        .collect::<Result<_>>()?;
    let radius = rule.retrieval_radius();
    let per_table = in_parallel(tables.design.tables().len(), |index| {
        join_table_flips(store, tables, state, index, (&fps, &flips), radius)
    });
    let mut hits = Vec::new();
    for table_hits in per_table {
        hits.extend(table_hits?);
    }
    let wanted: Vec<Fingerprint> = hits.iter().map(|&(_, fp, _)| fp).collect();
    let stored: Vec<(Fingerprint, Stored)> = read_sorted(store, wanted, |scanner, fp| {
        let mut documents = Vec::new();
        scanner.scan(fp, |id, bytes| {
            documents.push((id.to_string(), bytes.to_vec()));
            true
        })?;
        Ok(documents)
    })?;
    let own: Vec<Vec<u8>> = documents
        .iter()
        .map(|d| d.stored_bytes(rule.confirmation.as_ref()))
        .collect();
    let mut answers: Vec<Vec<Near>> = vec![Vec::new(); documents.len()];
    for (number, fingerprint, distance) in hits {
        let number = number as usize;
        let (Some(query), Some(signature), Some(answer)) =
            (fps.get(number), own.get(number), answers.get_mut(number))
        else {
            return Err(out_of_range(number));
        };
        let Ok(at) = stored.binary_search_by_key(&fingerprint, |(fp, _)| *fp) else {
            continue;
        };
        let xor = fingerprint.0 ^ query.0;
        for (id, bytes) in stored
            .get(at)
            .map(|(_, s)| s.as_slice())
            .unwrap_or_default()
        {
            if let Some(similarity) = rule.judge(xor, signature, bytes) {
                answer.push(Near {
                    id: id.clone(),
                    fingerprint,
                    distance,
                    similarity,
                });
            }
        }
    }
    for answer in &mut answers {
        answer.sort_unstable_by(|a, b| {
            (a.distance, a.fingerprint, &a.id).cmp(&(b.distance, b.fingerprint, &b.id))
        });
    }
    Ok(answers)
}

/// An index the code just computed that is out of range: a bug, reported
/// rather than answered with a default.
fn out_of_range(index: usize) -> Error {
    Error::corrupt("batch find", format!("index {index} out of range"))
}
