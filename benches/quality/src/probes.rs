//! Query-adaptive probing measured by brute force: instead of every
//! neighbouring prefix within a radius, a query probes the prefixes that
//! flip its weakest bits first (the bits whose weighted vote is closest
//! to zero, which an edit flips most easily), cheapest flip sets first.
//!
//! The tables are modelled as 4 tables keyed by one 16-bit piece of the
//! fingerprint each (the split the default design uses at 10M). A stored
//! fingerprint is a candidate of a budget of B probes per table when, in
//! some piece, the bits where it differs from the query are one of the
//! query's B cheapest flip sets of that piece; the exact radius r probes
//! every flip set of up to ⌊r/4⌋ bits (1, 17, 137 sets for r = 3, 7, 11).
//! Either way a probe costs the same (one prefix, one block), so equal
//! budgets cost the same: the question is which finds more copies.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use anyhow::Result;
use rayon::prelude::*;

use crate::corpus::Corpus;
use crate::two_stage::{near_pairs, SigSpec, Signatures, Truth, R_MAX};
use crate::two_stage_report::{feature_hashes, text_truth};
use crate::{eval, parse_proto, pct, prepare, Args};

const PIECES: usize = 4;
const PIECE_BITS: usize = 16;
/// Probes per table measured.
const BUDGETS: [usize; 9] = [1, 2, 4, 8, 17, 32, 64, 137, 256];
/// Exact radii and the probes per table they take.
const EXACT: [(u32, usize); 3] = [(3, 1), (7, 17), (11, 137)];
/// The learned weights' prototype and the recommended signature.
const CANDIDATE: &str = "crawl^3~0.01";
const SIGNATURE: &str = "minhash:64x4/w2/df20";
const THETA: f64 = 0.5;

/// A flip set's cost, ordered by `total_cmp`.
#[derive(Clone, Copy, PartialEq)]
struct Cost(f64);

impl Eq for Cost {}

impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cost {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The rank of each of the `budget` cheapest flip sets of `piece` (masks
/// of the piece's 16 bits, most significant first), cheapest first: a
/// set costs the sum of its bits' |vote|. Best-first enumeration of
/// subsets as increasing index lists over the bits sorted by cost: a set
/// ending at index i begets the set with i replaced by i + 1 and the set
/// with i + 1 added; each subset is reached once.
pub fn flip_ranks(votes: &[f64; 64], piece: usize, budget: usize) -> HashMap<u16, usize> {
    let mut bits: Vec<(f64, u16)> = (0..PIECE_BITS)
        .map(|i| {
            (
                votes[piece * PIECE_BITS + i].abs(),
                1u16 << (PIECE_BITS - 1 - i),
            )
        })
        .collect();
    bits.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut ranks = HashMap::with_capacity(budget);
    ranks.insert(0u16, 0);
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((Cost(bits[0].0), bits[0].1, 0usize)));
    while ranks.len() < budget {
        let Some(Reverse((Cost(cost), mask, last))) = heap.pop() else {
            break;
        };
        let rank = ranks.len();
        ranks.insert(mask, rank);
        if let Some(&(next_cost, next_bit)) = bits.get(last + 1) {
            let shifted = (mask & !bits[last].1) | next_bit;
            heap.push(Reverse((
                Cost(cost - bits[last].0 + next_cost),
                shifted,
                last + 1,
            )));
            heap.push(Reverse((Cost(cost + next_cost), mask | next_bit, last + 1)));
        }
    }
    ranks
}

/// The fewest probes per table at which `query` reaches `stored`.
pub fn probes_needed(ranks: &[HashMap<u16, usize>], diff: u64) -> usize {
    (0..PIECES)
        .filter_map(|p| {
            let piece = (diff >> (64 - PIECE_BITS * (p + 1))) as u16;
            ranks[p].get(&piece).map(|rank| rank + 1)
        })
        .min()
        .unwrap_or(usize::MAX)
}

/// A pair within `R_MAX` bits: its distance, the probes the later
/// document needs to reach the earlier, and whether the signature
/// confirms it.
struct Reach {
    distance: u32,
    probes: usize,
    confirmed: bool,
}

/// Each query's flip-set ranks under the prototype `candidate` (its
/// votes are what rank the flips), up to `budget` per table.
pub fn query_ranks(
    candidate: &str,
    c: &Corpus,
    queries: &[String],
    budget: usize,
) -> Result<Vec<Vec<HashMap<u16, usize>>>> {
    let proto = parse_proto(candidate, c.lang)?;
    let votes = proto.vote_sums(&prepare(&proto, queries, c));
    Ok(votes
        .par_iter()
        .map(|v| (0..PIECES).map(|p| flip_ranks(v, p, budget)).collect())
        .collect())
}

pub fn run(args: &Args, corpora: &[Corpus]) -> Result<()> {
    println!("# Query-adaptive probing\n");
    println!(
        "Candidates `{CANDIDATE}`, confirmed by `{SIGNATURE}` at θ = {THETA}; 4 tables of 16-bit pieces; \
each cell is recall / false pairs. Adaptive rows report pairs within {R_MAX} bits.\n"
    );
    let spec = SigSpec::parse(SIGNATURE)?;
    let max_budget = *BUDGETS.iter().max().unwrap_or(&1);
    for c in corpora {
        let proto = parse_proto(CANDIDATE, c.lang)?;
        for (set, originals, seed) in [
            ("articles", &c.articles, 0xa271_c1e5),
            ("paragraphs", &c.paragraphs, 0x9a7a_9a9b),
        ] {
            let name = format!("{}-{set}", c.lang.code());
            if !args.wants(&name) {
                continue;
            }
            let texts = eval::plant(originals, c.lang, seed);
            let truth = text_truth(texts.len());
            let features = feature_hashes(&texts);
            let crawl = feature_hashes(&c.learn_crawled);
            let sigs = Signatures::new(spec, &features, &crawl);
            let votes = proto.vote_sums(&prepare(&proto, &texts, c));
            let fps: Vec<u64> = votes.iter().map(crate::proto::sign_bits).collect();
            let ranks: Vec<Vec<HashMap<u16, usize>>> = votes
                .par_iter()
                .map(|v| (0..PIECES).map(|p| flip_ranks(v, p, max_budget)).collect())
                .collect();
            let reach = |a: u32, b: u32| {
                let diff = fps[a as usize] ^ fps[b as usize];
                Reach {
                    distance: diff.count_ones(),
                    probes: probes_needed(&ranks[b as usize], diff),
                    confirmed: sigs.similarity(a as usize, b as usize) >= THETA,
                }
            };
            let planted: Vec<Reach> = truth.planted.iter().map(|&(a, b, _)| reach(a, b)).collect();
            let false_pairs: Vec<Reach> = near_pairs(&fps)
                .into_iter()
                .filter(|&(a, b, _)| truth.group[a as usize] != truth.group[b as usize])
                .map(|(a, b, _)| reach(a, b))
                .collect();
            report(&name, texts.len(), &truth, &planted, &false_pairs);
        }
    }
    Ok(())
}

fn report(name: &str, documents: usize, truth: &Truth, planted: &[Reach], false_pairs: &[Reach]) {
    let total = truth.planted.len() as f64;
    println!(
        "## {name}: {documents} documents, {} planted copies\n",
        truth.planted.len()
    );
    println!("| probes per table | exact radius: recall / false | adaptive: recall / false |");
    println!("|---|---|---|");
    for budget in BUDGETS {
        let exact =
            EXACT
                .iter()
                .find(|(_, b)| *b == budget)
                .map_or("–".to_string(), |&(r, _)| {
                    let hit = |x: &Reach| x.distance <= r && x.confirmed;
                    format!(
                        "r = {r}: {} / {}",
                        pct(planted.iter().filter(|x| hit(x)).count() as f64 / total),
                        false_pairs.iter().filter(|x| hit(x)).count()
                    )
                });
        let hit = |x: &Reach| x.probes <= budget && x.confirmed;
        println!(
            "| {budget} | {exact} | {} / {} |",
            pct(planted.iter().filter(|x| hit(x)).count() as f64 / total),
            false_pairs.iter().filter(|x| hit(x)).count()
        );
    }
    let beyond = planted.iter().filter(|x| x.distance > R_MAX).count();
    println!("\n({beyond} planted copies lie beyond {R_MAX} bits.)\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_sets_come_cheapest_first_and_each_once() {
        let mut votes = [0f64; 64];
        for (i, v) in votes.iter_mut().enumerate() {
            *v = ((i * 37) % 64) as f64 - 31.5;
        }
        let ranks = flip_ranks(&votes, 1, 200);
        assert_eq!(ranks.len(), 200);
        let cost = |mask: u16| -> f64 {
            (0..16)
                .filter(|i| mask & (1 << (15 - i)) != 0)
                .map(|i| votes[16 + i].abs())
                .sum()
        };
        let mut by_rank: Vec<(usize, u16)> = ranks.iter().map(|(&m, &r)| (r, m)).collect();
        by_rank.sort_unstable();
        for pair in by_rank.windows(2) {
            assert!(cost(pair[0].1) <= cost(pair[1].1) + 1e-9);
        }
        // Nothing left out is cheaper than the dearest set taken.
        let dearest = cost(by_rank[199].1);
        let cheaper = (0..=u16::MAX).filter(|&m| cost(m) < dearest - 1e-9).count();
        assert!(cheaper <= 200, "{cheaper} sets are cheaper than the 200th");
    }
}
