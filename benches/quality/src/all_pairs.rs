//! False matches among every pair of a language's texts (`--all-pairs
//! RULES`): the planted paragraphs (originals and copies) and the whole
//! background of the growth report, each text asked against every other,
//! as a database of all of them would be. A pair is true when both texts
//! come from one planted original; a *repost* when their texts before the
//! edits share [`REPOST_SHARE`] of either one's shingles (the sources
//! repeat themselves: the same criterion that keeps reposts out of the
//! originals), counted apart; every other match is false. With n texts
//! there are about n² / 2 pairs against the growth report's 12,000 × n,
//! so the same text bounds a rate about n / 24,000 times lower. The rate
//! per pair is what a query meets per stored document, extrapolated
//! linearly to 10M.

use std::sync::OnceLock;

use anyhow::{bail, Result};
use rayon::prelude::*;

use fpdb_tune::{shingles, Planted, REPOST_SHARE};

use crate::confirm::Confirmer;
use crate::corpus::Corpus;
use crate::growth::Rule;
use crate::probes::{weak_masks, weak_reaches, weak_reaches_flipping};
use crate::proto::sign_bits;
use crate::rare::{shared, RareWords};
use crate::two_stage::{Similarity, R_MAX};
use crate::two_stage_report::{candidate_method, feature_hashes};
use crate::{load_average, parse_proto, prepare};

/// Pairs of each kind shown per rule, to see what they are.
const SHOWN: usize = 8;

pub fn run(rules: &[Rule], corpora: &[Corpus], show: bool) -> Result<()> {
    if rules.iter().any(Rule::has_probes) {
        bail!("--all-pairs takes rules without adaptive probes");
    }
    println!("# False matches among every pair of texts\n");
    println!(
        "Texts: the planted paragraphs (originals and copies) and the growth report's background \
(150–600 characters, each with one random edit or none). Every pair is judged once. True: both \
from one planted original. Reposts: the two texts before their edits share ≥ {:.0}% of either \
one's shingles (counted apart, neither true nor false). At 10M: false matches per pair × \
10,000,000 (with none seen, the 95% Poisson bound, 3 ÷ pairs × 10,000,000).\n",
        REPOST_SHARE * 100.0
    );
    for c in corpora {
        let originals: Vec<String> = c.paragraphs.iter().map(|o| o.text.clone()).collect();
        let planted = Planted::from_sample_in(&originals, originals.len(), 0x9a7a_9a9b, c.lang);
        let q = planted.texts.len();
        let texts: Vec<String> = planted.texts.iter().chain(&c.background).cloned().collect();
        // Each text before its edit, and its group (planted texts share
        // their original's).
        let mut plain: Vec<&str> = planted.texts.iter().map(String::as_str).collect();
        for copy in &planted.copies {
            plain[copy.copy] = planted.texts[copy.original].as_str();
        }
        plain.extend(c.background_plain.iter().map(String::as_str));
        let first_free = planted.groups.iter().max().map_or(0, |g| g + 1);
        let groups: Vec<u32> = planted
            .groups
            .iter()
            .copied()
            .chain((0..c.background.len()).map(|b| first_free + b as u32))
            .collect();
        // Where each text comes from: planted, or a background source.
        let source: Vec<&str> = std::iter::repeat_n("planted", q)
            .chain(
                c.background_origin
                    .iter()
                    .map(|&o| c.background_sources[o].0),
            )
            .collect();
        let n = texts.len();
        let mut same_group = 0u64;
        {
            let mut sizes = std::collections::HashMap::new();
            for &g in &groups {
                *sizes.entry(g).or_insert(0u64) += 1;
            }
            for size in sizes.values() {
                same_group += size * (size - 1) / 2;
            }
        }
        let pairs = (n as u64) * (n as u64 - 1) / 2 - same_group;
        println!(
            "## {}: {n} texts ({q} planted, {} background), {pairs} pairs of different originals\n",
            c.lang.name(),
            c.background.len()
        );
        // Each text's repost shingles, taken once, when a rule first
        // matches it with a text of another original.
        let plain_shingles: Vec<OnceLock<Vec<u64>>> = (0..n).map(|_| OnceLock::new()).collect();
        let shingles_of = |i: usize| plain_shingles[i].get_or_init(|| shingles(plain[i], c.lang));
        let features = feature_hashes(&texts);
        let crawl = feature_hashes(&c.learn_crawled);
        // What a weighted rule learns its weights from: every other text,
        // as a database learns from a sample of what it holds.
        let sample: Vec<Vec<u64>> = features.iter().step_by(2).cloned().collect();
        for rule in rules {
            let method = candidate_method(&rule.candidate, c.lang)?;
            let (fps, weak) = match rule.weak_bits {
                // The prototype's votes give both the fingerprint and its
                // weakest bits.
                Some(bits) => {
                    let proto = parse_proto(&rule.candidate, c.lang)?;
                    let votes = proto.vote_sums(&prepare(&proto, &texts, c));
                    let fps: Vec<u64> = votes.iter().map(sign_bits).collect();
                    let masks: Vec<_> = votes.iter().map(|v| weak_masks(v, bits)).collect();
                    (fps, Some(masks))
                }
                None => (crate::fingerprints(&method, &texts, c), None),
            };
            let sigs = rule
                .signature
                .as_ref()
                .map(|spec| Confirmer::with_weights_from(spec, &texts, &features, &crawl, &sample));
            let rare = rule
                .signature
                .as_ref()
                .and_then(|spec| spec.rare)
                .map(|(keep, shared)| {
                    RareWords::new(&texts, &c.registry_idf, c.lang, keep, shared)
                });
            let matched: Vec<(u32, u32)> = (0..n)
                .into_par_iter()
                .flat_map_iter(|a| {
                    let fp = fps[a];
                    let (fps, sigs, weak, rare) =
                        (&fps, sigs.as_ref(), weak.as_ref(), rare.as_ref());
                    (a + 1..n).filter_map(move |b| {
                        let diff = fp ^ fps[b];
                        (diff.count_ones() <= rule.r
                            && weak.is_none_or(|masks| match rule.weak_flips {
                                Some(f) => {
                                    weak_reaches_flipping(&masks[a], diff, f)
                                        && weak_reaches_flipping(&masks[b], diff, f)
                                }
                                None => {
                                    weak_reaches(&masks[a], diff) && weak_reaches(&masks[b], diff)
                                }
                            })
                            && sigs.is_none_or(|s| s.similarity(a, b) >= rule.theta)
                            && rare.is_none_or(|r| r.passes(a, b)))
                        .then_some((a as u32, b as u32))
                    })
                })
                .collect();
            let mut true_pairs = 0;
            let mut reposts = Vec::new();
            let mut false_pairs = Vec::new();
            for &(a, b) in &matched {
                let (a, b) = (a as usize, b as usize);
                if groups[a] == groups[b] {
                    true_pairs += 1;
                } else if is_repost(shingles_of(a), shingles_of(b)) {
                    reposts.push((a, b));
                } else {
                    false_pairs.push((a, b));
                }
            }
            let per_pair = false_pairs.len() as f64 / pairs as f64;
            let at_10m = if false_pairs.is_empty() {
                format!("< {:.5} (none seen)", 3.0 / pairs as f64 * 1e7)
            } else {
                format!("{:.5}", per_pair * 1e7)
            };
            println!("| rule | matched pairs | true | reposts | false | false per query at n | at 10M (extrapolated) |");
            println!("|---|---|---|---|---|---|---|");
            println!(
                "| {} | {} | {true_pairs} | {} | {} | {:.5} | {at_10m} |\n",
                rule.name(),
                matched.len(),
                reposts.len(),
                false_pairs.len(),
                per_pair * (n - 1) as f64,
            );
            print_by_source(&false_pairs, &source);
            if show {
                let true_pairs: Vec<(usize, usize)> = matched
                    .iter()
                    .map(|&(a, b)| (a as usize, b as usize))
                    .filter(|&(a, b)| groups[a] == groups[b])
                    .collect();
                print_digit_shares(&texts, &false_pairs, &true_pairs);
                let score = |a: usize, b: usize| sigs.as_ref().map_or(1.0, |s| s.similarity(a, b));
                let distance = |a: usize, b: usize| (fps[a] ^ fps[b]).count_ones();
                for (kind, list) in [("true", &true_pairs), ("false", &false_pairs)] {
                    print_distance_by_similarity(kind, list, distance, score);
                }
                for (kind, list) in [("false", &false_pairs), ("repost", &reposts)] {
                    let step = list.len().div_ceil(SHOWN).max(1);
                    for &(a, b) in list.iter().step_by(step) {
                        println!(
                            "{kind}: {} bits, similarity {:.2}:\n  {}\n  {}",
                            distance(a, b),
                            score(a, b),
                            start(&texts[a]),
                            start(&texts[b])
                        );
                    }
                }
            }
        }
        println!();
    }
    println!("Load average at the end: {}.", load_average());
    Ok(())
}

/// How much of each pair's more numeric text is digits (of its letters
/// and digits), for the false pairs and the true ones: whether numbers,
/// which no signature feature holds, are what the false pairs differ in.
fn print_digit_shares(
    texts: &[String],
    false_pairs: &[(usize, usize)],
    true_pairs: &[(usize, usize)],
) {
    let share = |text: &str| {
        let (digits, all) = text
            .chars()
            .filter(|c| c.is_alphanumeric())
            .fold((0, 0), |(d, a), c| (d + usize::from(c.is_numeric()), a + 1));
        digits as f64 / all.max(1) as f64
    };
    for (kind, pairs) in [("false", false_pairs), ("true", true_pairs)] {
        let shares: Vec<f64> = pairs
            .iter()
            .map(|&(a, b)| share(&texts[a]).max(share(&texts[b])))
            .collect();
        let at_least = |x: f64| shares.iter().filter(|&&s| s >= x).count();
        println!(
            "Digit share of the more numeric text, {kind} pairs ({}): ≥ 10% {}, ≥ 20% {}, ≥ 30% {}, ≥ 40% {}.",
            shares.len(),
            at_least(0.1),
            at_least(0.2),
            at_least(0.3),
            at_least(0.4)
        );
    }
}

/// How a kind of pair spreads over fingerprint distance and estimated
/// similarity: whether a rule on both would tell false pairs from true
/// ones better than a threshold on either.
fn print_distance_by_similarity(
    kind: &str,
    pairs: &[(usize, usize)],
    distance: impl Fn(usize, usize) -> u32,
    similarity: impl Fn(usize, usize) -> f64,
) {
    const EDGES: [f64; 6] = [0.50, 0.55, 0.60, 0.70, 0.80, 0.90];
    let max = R_MAX as usize;
    let mut counts = vec![[0usize; EDGES.len() + 1]; max + 1];
    for &(a, b) in pairs {
        let d = (distance(a, b) as usize).min(max);
        let s = similarity(a, b);
        counts[d][EDGES.iter().filter(|&&e| s >= e).count()] += 1;
    }
    println!(
        "\n{kind} pairs ({}) by distance and similarity:\n",
        pairs.len()
    );
    let columns: Vec<String> = std::iter::once(format!("< {:.2}", EDGES[0]))
        .chain(EDGES.iter().map(|e| format!("{e:.2}–")))
        .collect();
    println!("| bits | {} |", columns.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    for (d, row) in counts.iter().enumerate() {
        if row.iter().any(|&c| c > 0) {
            let cells: Vec<String> = row.iter().map(usize::to_string).collect();
            println!("| {d} | {} |", cells.join(" | "));
        }
    }
    println!();
}

/// The false pairs by the sources of their two texts, most first.
fn print_by_source(pairs: &[(usize, usize)], source: &[&str]) {
    if pairs.is_empty() {
        return;
    }
    let mut counts: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for &(a, b) in pairs {
        let (x, y) = (source[a].min(source[b]), source[a].max(source[b]));
        *counts.entry((x, y)).or_insert(0) += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let cells: Vec<String> = counts
        .iter()
        .map(|((x, y), m)| format!("{x} × {y}: {m}"))
        .collect();
    println!(
        "False pairs by the sources of their texts: {}.\n",
        cells.join(", ")
    );
}

/// Whether two texts before their edits, by their sorted, distinct
/// shingles, share [`REPOST_SHARE`] of either one's.
fn is_repost(a: &[u64], b: &[u64]) -> bool {
    let smaller = a.len().min(b.len()).max(1);
    shared(a, b) as f64 >= REPOST_SHARE * smaller as f64
}

fn start(text: &str) -> String {
    text.chars()
        .take(160)
        .collect::<String>()
        .replace('\n', " ")
}
