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
//! The flip sets are the engine's (`fpdb_codec::engine::cheapest_flips`).
//! Either way a probe costs the same (one prefix, one block), so equal
//! budgets cost the same: the question is which finds more copies.

use std::collections::HashMap;

use anyhow::Result;
use fpdb_codec::engine::cheapest_flips;
use rayon::prelude::*;

use crate::confirm::{Confirm, Confirmer};
use crate::corpus::Corpus;
use crate::two_stage::{near_pairs, SigSpec, Signatures, Similarity, Truth, R_MAX};
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
/// The gated confirmation (`crate::confirm`): a lower θ, and at least
/// this many shingles estimated shared.
const GATED: &str = "minhash:64x4/w2/df20+shared7";
const GATED_THETA: f64 = 0.45;
/// The gated confirmation of the last column: [`GATED`] at
/// [`GATED_THETA`], or `FPDB_QUALITY_GATED=RULE|θ` to measure another.
fn gated_rule() -> Result<(Confirm, f64)> {
    match std::env::var("FPDB_QUALITY_GATED") {
        Ok(spec) => {
            let (rule, theta) = spec
                .split_once('|')
                .ok_or_else(|| anyhow::anyhow!("FPDB_QUALITY_GATED is RULE|θ"))?;
            Ok((Confirm::parse(rule)?, theta.parse()?))
        }
        Err(_) => Ok((Confirm::parse(GATED)?, GATED_THETA)),
    }
}

/// The narrower radius adaptive candidates are also kept within (fewer
/// random candidates for the signature to turn down).
const NEAR: u32 = 12;

/// The rank of each of the `budget` cheapest flip sets of `piece`
/// (masks of the fingerprint's bits, `fpdb_codec::engine::cheapest_flips`
/// over the piece's 16 bits with their vote sizes), keyed by the
/// piece's 16 bits.
pub fn flip_ranks(votes: &[f64; 64], piece: usize, budget: usize) -> HashMap<u16, usize> {
    let shift = 64 - PIECE_BITS * (piece + 1);
    let bits: Vec<(u64, u64)> = (0..PIECE_BITS)
        .map(|i| {
            let bit = piece * PIECE_BITS + i;
            // Vote sizes to integers, as the engine takes them.
            (1u64 << (63 - bit), (votes[bit].abs() * 1e6) as u64)
        })
        .collect();
    cheapest_flips(&bits, budget)
        .into_iter()
        .enumerate()
        .map(|(rank, mask)| ((mask >> shift) as u16, rank))
        .collect()
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
    /// Whether the gated confirmation confirms it.
    gated: bool,
    /// Per entry of [`KEYED_BY_WEAK_SET`]: whether the pair meets that
    /// keyed rule ([`keyed_reaches`]).
    keyed: Vec<bool>,
    /// Per entry of [`FLIPS_AT_MOST`]: whether both documents' n weak
    /// bits reach with at most f of them flipped.
    capped: Vec<bool>,
    /// Per entry of [`WEAK_BITS`]: whether some subset of the later
    /// document's weakest bits per piece reaches the earlier one, whether
    /// either document's do, and whether both documents' do (what the
    /// database keeps: no insertion order needed).
    weak: Vec<WeakReach>,
}

#[derive(Clone, Copy)]
struct WeakReach {
    later: bool,
    either: bool,
    both: bool,
}

/// Bits of a piece kept per document in the storable variant, measured.
const WEAK_BITS: [usize; 4] = [3, 4, 5, 6];

/// Tables keyed by a document's own weak set: each document is stored,
/// per piece, under its 5 weakest bits and the piece's other 11 bits; a
/// query probes every 5 of its `m` weakest (`m` choose 5 probes a table,
/// each about one key at 10M against a 16-bit prefix's 150). Measured for
/// m = 5, 6 and 7: a pair is found when, in some piece, each document's 5
/// weakest lie inside the other's `m` weakest and the pieces differ only
/// in bits weak in both (the symmetric rule such tables answer, the
/// stored document's `m` weakest read with its signature).
const KEYED_BY_WEAK_SET: [usize; 3] = [5, 6, 7];

/// Weak bits a quarter and at most how many of them flipped in the
/// reaching quarter: `C(n, 0) + … + C(n, f)` probes a table, against 32
/// for every subset of 5.
const FLIPS_AT_MOST: [(usize, u32); 7] = [(5, 1), (5, 2), (5, 3), (6, 2), (6, 3), (7, 2), (7, 3)];

/// [`weak_reaches`] through a piece where at most `flips` bits differ.
pub fn weak_reaches_flipping(masks: &[u16; PIECES], diff: u64, flips: u32) -> bool {
    masks.iter().enumerate().any(|(p, &mask)| {
        let piece = (diff >> (64 - PIECE_BITS * (p + 1))) as u16;
        piece & !mask == 0 && piece.count_ones() <= flips
    })
}

/// Whether some piece of `diff` lies in both documents' 5 weakest bits
/// while each one's 5 weakest lie in the other's `m` weakest (`five_*`
/// and `wide_*` are the 5 and `m` weakest of each).
pub fn keyed_reaches(
    five_a: &[u16; PIECES],
    wide_a: &[u16; PIECES],
    five_b: &[u16; PIECES],
    wide_b: &[u16; PIECES],
    diff: u64,
) -> bool {
    (0..PIECES).any(|p| {
        let piece = (diff >> (64 - PIECE_BITS * (p + 1))) as u16;
        five_a[p] & !wide_b[p] == 0
            && five_b[p] & !wide_a[p] == 0
            && piece & !(five_a[p] & five_b[p]) == 0
    })
}

/// Each piece's `n` weakest bits (smallest vote sizes, ties to the lower
/// bit), as a mask of the piece's 16 bits.
pub fn weak_masks(votes: &[f64; 64], n: usize) -> [u16; PIECES] {
    let mut masks = [0u16; PIECES];
    for (piece, mask) in masks.iter_mut().enumerate() {
        let mut bits: Vec<usize> = (0..PIECE_BITS).collect();
        bits.sort_by(|&x, &y| {
            votes[piece * PIECE_BITS + x]
                .abs()
                .total_cmp(&votes[piece * PIECE_BITS + y].abs())
                .then(x.cmp(&y))
        });
        for &bit in bits.iter().take(n) {
            *mask |= 1 << (PIECE_BITS - 1 - bit);
        }
    }
    masks
}

/// Whether some piece of `diff` lies inside the weak bits of `masks`
/// (a subset of them flipped, the empty one included).
pub fn weak_reaches(masks: &[u16; PIECES], diff: u64) -> bool {
    masks.iter().enumerate().any(|(p, &mask)| {
        let piece = (diff >> (64 - PIECE_BITS * (p + 1))) as u16;
        piece & !mask == 0
    })
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
        for (set, seed) in crate::export::SEEDS {
            let originals = if set == "articles" {
                &c.articles
            } else {
                &c.paragraphs
            };
            let name = format!("{}-{set}", c.lang.code());
            if !args.wants(&name) {
                continue;
            }
            let texts = eval::plant(originals, c.lang, seed);
            let truth = text_truth(texts.len());
            let features = feature_hashes(&texts);
            let crawl = feature_hashes(&c.learn_crawled);
            let sigs = Signatures::new(spec, &features, &crawl);
            let (gated_rule, gated_theta) = gated_rule()?;
            let gated = Confirmer::new(&gated_rule, &texts, &features, &crawl);
            let votes = proto.vote_sums(&prepare(&proto, &texts, c));
            let fps: Vec<u64> = votes.iter().map(crate::proto::sign_bits).collect();
            let ranks: Vec<Vec<HashMap<u16, usize>>> = votes
                .par_iter()
                .map(|v| (0..PIECES).map(|p| flip_ranks(v, p, max_budget)).collect())
                .collect();
            let weak: Vec<Vec<[u16; PIECES]>> = WEAK_BITS
                .iter()
                .map(|&n| votes.iter().map(|v| weak_masks(v, n)).collect())
                .collect();
            let keyed_masks: Vec<Vec<[u16; PIECES]>> = [5, 6, 7]
                .iter()
                .map(|&n| votes.iter().map(|v| weak_masks(v, n)).collect())
                .collect();
            let reach = |a: u32, b: u32| {
                let diff = fps[a as usize] ^ fps[b as usize];
                let (a_, b_) = (a as usize, b as usize);
                Reach {
                    capped: FLIPS_AT_MOST
                        .iter()
                        .map(|&(n, f)| {
                            let masks = &keyed_masks[n - 5];
                            weak_reaches_flipping(&masks[a_], diff, f)
                                && weak_reaches_flipping(&masks[b_], diff, f)
                        })
                        .collect(),
                    keyed: KEYED_BY_WEAK_SET
                        .iter()
                        .map(|&m| {
                            let wide = &keyed_masks[m - 5];
                            let five = &keyed_masks[0];
                            keyed_reaches(&five[a_], &wide[a_], &five[b_], &wide[b_], diff)
                        })
                        .collect(),
                    distance: diff.count_ones(),
                    probes: probes_needed(&ranks[b as usize], diff),
                    confirmed: sigs.similarity(a as usize, b as usize) >= THETA,
                    gated: gated.similarity(a as usize, b as usize) >= gated_theta,
                    weak: weak
                        .iter()
                        .map(|masks| {
                            let later = weak_reaches(&masks[b as usize], diff);
                            let earlier = weak_reaches(&masks[a as usize], diff);
                            WeakReach {
                                later,
                                either: later || earlier,
                                both: later && earlier,
                            }
                        })
                        .collect(),
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
    println!(
        "| probes per table | exact radius: recall / false | adaptive, within {R_MAX} bits: recall / false | adaptive, within {NEAR} bits |"
    );
    println!("|---|---|---|---|");
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
        let adaptive = |within: u32| {
            let hit = |x: &Reach| x.probes <= budget && x.distance <= within && x.confirmed;
            format!(
                "{} / {}",
                pct(planted.iter().filter(|x| hit(x)).count() as f64 / total),
                false_pairs.iter().filter(|x| hit(x)).count()
            )
        };
        println!(
            "| {budget} | {exact} | {} | {} |",
            adaptive(R_MAX),
            adaptive(NEAR)
        );
    }
    println!(
        "\nStorable weak bits (n per piece, their 2^n subsets probed, within {NEAR} bits): recall / false pairs\n"
    );
    println!(
        "| n | from the later document | from either | from both (the database's rule) | from both, confirmed by {} |",
        gated_rule().map_or_else(|e| e.to_string(), |(rule, theta)| format!("{} ≥ {theta}", rule.name()))
    );
    println!("|---|---|---|---|---|");
    for (i, n) in WEAK_BITS.iter().enumerate() {
        let weak_gated = |gated: bool, side: fn(&WeakReach) -> bool| {
            let confirmed = |x: &Reach| if gated { x.gated } else { x.confirmed };
            let hit = |x: &Reach| side(&x.weak[i]) && x.distance <= NEAR && confirmed(x);
            format!(
                "{} / {}",
                pct(planted.iter().filter(|x| hit(x)).count() as f64 / total),
                false_pairs.iter().filter(|x| hit(x)).count()
            )
        };
        let weak = |side: fn(&WeakReach) -> bool| weak_gated(false, side);
        println!(
            "| {n} | {} | {} | {} | {} |",
            weak(|w| w.later),
            weak(|w| w.either),
            weak(|w| w.both),
            weak_gated(true, |w| w.both)
        );
    }
    println!(
        "\nKeyed by the weak set (m weakest probed as every 5 of them, within {NEAR} bits, confirmed as the last column above): recall / false pairs\n"
    );
    println!("| m | probes a table | recall / false |");
    println!("|---|---|---|");
    for (i, m) in KEYED_BY_WEAK_SET.iter().enumerate() {
        let hit = |x: &Reach| x.keyed[i] && x.distance <= NEAR && x.gated;
        let probes = (1..=*m).product::<usize>() / (120 * (1..=m - 5).product::<usize>());
        println!(
            "| {m} | {probes} | {} / {} |",
            pct(planted.iter().filter(|x| hit(x)).count() as f64 / total),
            false_pairs.iter().filter(|x| hit(x)).count()
        );
    }
    println!(
        "\nBoth documents' n weak bits with at most f of them flipped in the reaching piece (within {NEAR} bits, confirmed as above): recall / false pairs\n"
    );
    println!("| n | f | probes a table | recall / false |");
    println!("|---|---|---|---|");
    for (i, &(n, f)) in FLIPS_AT_MOST.iter().enumerate() {
        let hit = |x: &Reach| x.capped[i] && x.distance <= NEAR && x.gated;
        let probes: usize = (0..=f as usize)
            .map(|k| (0..k).fold(1, |c, j| c * (n - j) / (j + 1)))
            .sum();
        println!(
            "| {n} | {f} | {probes} | {} / {} |",
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
    fn keyed_rule_asks_each_weak_set_inside_the_others_and_the_difference_inside_both() {
        let five = [0b1_1111u16; PIECES];
        let six = [0b11_1111u16; PIECES];
        let mut moved = five;
        moved[0] = 0b11_1110;
        // Pieces 1 to 3 differ outside every weak set, so only piece 0
        // can reach.
        let elsewhere = (1 << 47) | (1 << 31) | (1 << 15);
        let bit = |b: u32| elsewhere | 1u64 << (48 + b);
        // The same five: any subset of them may differ.
        assert!(keyed_reaches(&five, &five, &five, &five, bit(0) | bit(4)));
        assert!(!keyed_reaches(&five, &five, &five, &five, bit(5)));
        // One weak bit moved: allowed within six, the difference only
        // where both are weak.
        assert!(!keyed_reaches(&five, &five, &moved, &six, bit(1)));
        assert!(keyed_reaches(&five, &six, &moved, &six, bit(1)));
        assert!(!keyed_reaches(&five, &six, &moved, &six, bit(0)));
        // A piece that does not differ at all reaches.
        assert!(keyed_reaches(&five, &five, &five, &five, 1 << 63));
    }

    #[test]
    fn weak_bits_are_each_pieces_smallest_votes_and_reach_their_subsets() {
        let mut votes = [100f64; 64];
        // Piece 0: bits 2, 5 and 9 are weakest; piece 3: 60, 61, 63.
        for (bit, vote) in [
            (2, 1.0),
            (5, -2.0),
            (9, 3.0),
            (60, 0.5),
            (61, -0.5),
            (63, 0.0),
        ] {
            votes[bit] = vote;
        }
        let masks = weak_masks(&votes, 3);
        assert_eq!(masks[0], (1 << 13) | (1 << 10) | (1 << 6));
        assert_eq!(masks[3], (1 << 3) | (1 << 2) | 1);
        // A subset of piece 0's weak bits (bits 2 and 9 of the fingerprint).
        assert!(weak_reaches(&masks, (1 << 61) | (1 << 54)));
        // Bit 3 is not weak, and every other piece differs outside its
        // weak bits too (pieces 1 and 2 tie, so their first three are).
        let elsewhere = (1 << 37) | (1 << 21) | (1 << 15);
        assert!(!weak_reaches(&masks, (1 << 60) | elsewhere));
        assert!(weak_reaches(&masks, (1 << 61) | (1 << 47) | (1 << 31)));
    }
}
