//! A query under the match rule: the stored fingerprints within the
//! rule's retrieval radius (those its weak bits reach, when the rule
//! keeps them), then each of their documents judged by
//! [`MatchRule::judge`] against the query's signature.

use crate::error::Result;
use crate::query::{matching_fingerprints, probed_fingerprints};
use crate::rule::{Document, MatchRule, Near};
use crate::store::Store;
use crate::tables::{State, Tables};

/// The largest distance at which some quarter of two fingerprints is
/// sure to be equal, so that weak bits reach them whatever they are.
pub(crate) const QUARTERS_CLEAN_WITHIN: u32 = 3;

/// Every stored document `rule` matches with `document`, nearest first
/// (ties by fingerprint, then id); `state` is held for reading.
pub(crate) fn find(
    store: &Store,
    tables: &Tables,
    state: &State,
    document: &Document,
    rule: &MatchRule,
) -> Result<Vec<Near>> {
    let candidates = match rule.probed_weak_bits(document) {
        Some(weak) => {
            let mut reached = probed_fingerprints(
                store,
                tables,
                state,
                document.fingerprint,
                weak,
                rule.weak_flips(),
                rule.retrieval_radius(),
            )?;
            // Bare documents match within k, which the weak bits reach
            // only up to 3 bits (one quarter then differs nowhere).
            if rule.k > QUARTERS_CLEAN_WITHIN {
                reached.extend(matching_fingerprints(
                    store,
                    tables,
                    state,
                    document.fingerprint,
                    rule.k,
                )?);
                reached.sort_unstable();
                reached.dedup();
            }
            reached
        }
        None => matching_fingerprints(
            store,
            tables,
            state,
            document.fingerprint,
            rule.retrieval_radius_of(document),
        )?,
    };
    let mut near = Vec::new();
    if candidates.is_empty() {
        return Ok(near);
    }
    let signature = document.stored_bytes(rule.confirmation.as_ref());
    store.with_id_scanner(|scanner| {
        for (fingerprint, distance) in candidates {
            let xor = fingerprint.0 ^ document.fingerprint.0;
            scanner.scan(fingerprint, |id, stored| {
                if let Some(similarity) = rule.judge(xor, &signature, stored) {
                    near.push(Near {
                        id: id.to_string(),
                        fingerprint,
                        distance,
                        similarity,
                    });
                }
                true
            })?;
        }
        Ok(())
    })?;
    near.sort_unstable_by(|a, b| {
        (a.distance, a.fingerprint, &a.id).cmp(&(b.distance, b.fingerprint, &b.id))
    });
    Ok(near)
}
