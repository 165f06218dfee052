//! False matches per query as the corpus grows (`--growth RULES`): the
//! planted paragraphs (originals and copies) are asked against a
//! background of every other real paragraph of the source (both halves,
//! less the originals and their reposts) and every paragraph of the
//! language's other sources (`corpus::OTHER_SOURCES`), so every match
//! there is false, or a repost the test missed: the counts are an upper
//! bound. The rate per background document is extrapolated linearly to
//! 10M documents, for the whole background and for each source.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use crate::confirm::{Confirm, Confirmer};
use crate::corpus::Corpus;
use crate::rng::Rng;
use crate::two_stage::Similarity;
use crate::two_stage_report::{candidate_method, feature_hashes};
use crate::{eval, load_average, probes};

/// One matching rule: candidates within `r` bits, confirmed by the
/// signature at `theta` (none: distance alone); with `probes`, only those
/// the query reaches with that many adaptive probes per table
/// (`probes.rs`); with `weak_bits` (`wN`), only those both documents'
/// N weakest bits a quarter reach, as a database keeps them, and with
/// `wNfF` with at most F of them flipped in the reaching quarter
/// (`--all-pairs` only).
#[derive(Debug, Clone)]
pub struct Rule {
    pub candidate: String,
    pub signature: Option<Confirm>,
    pub r: u32,
    pub theta: f64,
    probes: Option<usize>,
    pub weak_bits: Option<usize>,
    /// At most this many weak bits flipped in the reaching quarter.
    pub weak_flips: Option<u32>,
}

impl Rule {
    /// `CANDIDATES|SIGNATURE|R|THETA[|PROBES|wN]`, SIGNATURE `-` for
    /// distance alone.
    pub fn parse(text: &str) -> Result<Rule> {
        let parts: Vec<&str> = text.split('|').collect();
        let (candidate, signature, r, theta, last) = match parts[..] {
            [c, s, r, t] => (c, s, r, t, None),
            [c, s, r, t, last] => (c, s, r, t, Some(last)),
            _ => bail!("rule {text:?} is not CANDIDATES|SIGNATURE|R|THETA[|PROBES|wN]"),
        };
        let (probes, weak_bits, weak_flips) = match last {
            None => (None, None, None),
            Some(last) => match last.strip_prefix('w') {
                Some(spec) => match spec.split_once('f') {
                    Some((n, f)) => (
                        None,
                        Some(n.parse().context("wNfF")?),
                        Some(f.parse().context("wNfF")?),
                    ),
                    None => (None, Some(spec.parse().context("wN")?), None),
                },
                None => (Some(last.parse().context("PROBES")?), None, None),
            },
        };
        Ok(Rule {
            candidate: candidate.to_string(),
            signature: match signature {
                "-" => None,
                spec => Some(Confirm::parse(spec)?),
            },
            r: r.parse().context("R")?,
            theta: theta.parse().context("THETA")?,
            probes,
            weak_bits,
            weak_flips,
        })
    }

    /// Whether the rule reaches candidates by adaptive probes.
    pub fn has_probes(&self) -> bool {
        self.probes.is_some()
    }

    pub fn name(&self) -> String {
        let name = match &self.signature {
            Some(s) => format!(
                "`{}` r ≤ {}, {} ≥ {:.2}{}",
                self.candidate,
                self.r,
                s.sig.name(),
                self.theta,
                s.gate_names()
            ),
            None => format!("`{}` k ≤ {}, distance alone", self.candidate, self.r),
        };
        match (self.probes, self.weak_bits) {
            (Some(b), _) => format!("{name}, {b} adaptive probes per table"),
            (_, Some(n)) => match self.weak_flips {
                Some(f) => format!(
                    "{name}, both documents' {n} weak bits a quarter reach, at most {f} flipped"
                ),
                None => format!("{name}, both documents' {n} weak bits a quarter reach"),
            },
            (None, None) => name,
        }
    }
}

/// Background sizes reported (and the whole background).
const SIZES: [usize; 5] = [1_000, 3_000, 10_000, 30_000, 100_000];

pub fn run(rules: &[Rule], corpora: &[Corpus], show: bool) -> Result<()> {
    if rules.iter().any(|rule| rule.weak_bits.is_some()) {
        bail!("--growth takes rules without weak bits (--all-pairs has them)");
    }
    println!("# False matches per query as the corpus grows\n");
    println!(
        "Queries: the planted paragraphs (originals and their copies); background: every other paragraph \
of the source and every paragraph of the language's other sources (150–600 characters; the \
originals and paragraphs sharing ≥ 20% of their shingles with one left out), each with one \
random edit or none, shuffled. \
Each cell: false matches per query against the first n background paragraphs. \
Extrapolated: the rate per background document × 10,000,000.\n"
    );
    for c in corpora {
        let queries = eval::plant(&c.paragraphs, c.lang, 0x9a7a_9a9b);
        let mut shuffled: Vec<(String, usize)> = c
            .background
            .iter()
            .cloned()
            .zip(c.background_origin.iter().copied())
            .collect();
        Rng::new(0x5eed_0016).shuffle(&mut shuffled);
        let (background, origin): (Vec<String>, Vec<usize>) = shuffled.into_iter().unzip();
        let sizes: Vec<usize> = SIZES
            .iter()
            .copied()
            .filter(|&n| n < background.len())
            .chain([background.len()])
            .collect();
        println!(
            "## {}: {} queries, {} background paragraphs\n",
            c.lang.name(),
            queries.len(),
            background.len()
        );
        let sources: Vec<String> = c
            .background_sources
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        println!("Background paragraphs by source: {}.\n", sources.join(", "));
        let mut by_source = Vec::new();
        print!("| rule |");
        for n in &sizes {
            print!(" n = {n} |");
        }
        println!(" at 10M (extrapolated) |");
        println!("|---|{}---|", "---|".repeat(sizes.len()));
        let texts: Vec<String> = queries.iter().chain(&background).cloned().collect();
        let features = feature_hashes(&texts);
        let crawl = feature_hashes(&c.learn_crawled);
        for rule in rules {
            let method = candidate_method(&rule.candidate, c.lang)?;
            let fps = crate::fingerprints(&method, &texts, c);
            let reach = match rule.probes {
                Some(budget) => Some((
                    budget,
                    probes::query_ranks(&rule.candidate, c, &texts[..queries.len()], budget)?,
                )),
                None => None,
            };
            let sigs = rule
                .signature
                .as_ref()
                .map(|spec| Confirmer::new(spec, &texts, &features, &crawl));
            let q = queries.len();
            // False matches each background paragraph makes.
            let per_background: Vec<usize> = (q..texts.len())
                .into_par_iter()
                .map(|b| {
                    (0..q)
                        .filter(|&a| {
                            (fps[a] ^ fps[b]).count_ones() <= rule.r
                                && reach.as_ref().is_none_or(|(budget, ranks)| {
                                    probes::probes_needed(&ranks[a], fps[a] ^ fps[b]) <= *budget
                                })
                                && sigs
                                    .as_ref()
                                    .is_none_or(|s| s.similarity(a, b) >= rule.theta)
                        })
                        .count()
                })
                .collect();
            if show {
                show_matches(rule, &fps, sigs.as_ref(), &texts, q);
            }
            print!("| {} |", rule.name());
            for &n in &sizes {
                let matches: usize = per_background[..n].iter().sum();
                print!(" {:.5} ({matches}) |", matches as f64 / q as f64);
            }
            let all: usize = per_background.iter().sum();
            let n = per_background.len() as f64;
            let at_10m = if all == 0 {
                // None seen: the 95% upper bound of a Poisson count is 3.
                format!("< {:.4} (none seen)", 3.0 / (q as f64 * n) * 1e7)
            } else {
                format!("{:.4}", all as f64 / (q as f64 * n) * 1e7)
            };
            println!(" {at_10m} |");
            let mut counts = vec![0; c.background_sources.len()];
            for (b, &m) in per_background.iter().enumerate() {
                counts[origin[b]] += m;
            }
            by_source.push((rule.name(), counts));
        }
        println!();
        // The measured source's own paragraphs share its topics and style;
        // other sources' may be easier to tell apart, so each source's
        // rate is shown on its own.
        println!("False matches by background source (count; rate per background paragraph × 10,000,000 per query):\n");
        print!("| rule |");
        for (name, _) in &c.background_sources {
            print!(" {name} |");
        }
        println!();
        println!("|---|{}", "---|".repeat(c.background_sources.len()));
        for (name, counts) in &by_source {
            print!("| {name} |");
            for (&m, &(_, n)) in counts.iter().zip(&c.background_sources) {
                let rate = m as f64 / (queries.len() as f64 * n.max(1) as f64) * 1e7;
                print!(" {m}; {rate:.4} |");
            }
            println!();
        }
        println!();
    }
    println!("Load average at the end: {}.", load_average());
    Ok(())
}

/// False matches shown per rule.
const SHOWN: usize = 12;

/// A few false matches of `rule`, to see what they are, with each text's
/// own shingles (0 when the rule has no gate), and every one counted by
/// the smaller text's own shingles (a rule with a gate; `+min0` counts
/// without rejecting).
fn show_matches(rule: &Rule, fps: &[u64], sigs: Option<&Confirmer>, texts: &[String], q: usize) {
    let start = |i: usize| {
        texts[i]
            .chars()
            .take(160)
            .collect::<String>()
            .replace('\n', " ")
    };
    let own = |i| sigs.map_or(0, |s| s.own(i));
    let mut shown = 0;
    // Every false match by the smaller text's own count.
    let mut by_own: BTreeMap<u32, usize> = BTreeMap::new();
    for b in q..texts.len() {
        for a in 0..q {
            let d = (fps[a] ^ fps[b]).count_ones();
            let s = sigs.map_or(1.0, |s| s.similarity(a, b));
            if d > rule.r || s < rule.theta {
                continue;
            }
            *by_own.entry(own(a).min(own(b))).or_insert(0) += 1;
            if shown < SHOWN {
                println!(
                    "match {d} bits, similarity {s:.2}, query {a} ({} characters, {} own shingles), background {} ({}, {}):\n  {}\n  {}",
                    texts[a].chars().count(),
                    own(a),
                    b - q,
                    texts[b].chars().count(),
                    own(b),
                    start(a),
                    start(b)
                );
                shown += 1;
            }
        }
    }
    if sigs.is_some_and(Confirmer::has_own_counts) && !by_own.is_empty() {
        let counts: Vec<String> = by_own.iter().map(|(n, m)| format!("{n}: {m}")).collect();
        println!(
            "False matches by the smaller text's own shingles (own: matches): {}\n",
            counts.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_refuse_what_they_cannot_read() {
        let rule = Rule::parse("crawl^2|minhash:64x4/w2/df20|12|0.5").unwrap();
        assert_eq!(rule.r, 12);
        assert_eq!(
            rule.signature.map(|c| c.sig),
            Some(crate::two_stage::SigSpec::MinHashRare {
                hashes: 64,
                bits: 4,
                shingle: 2,
                max_df: 20
            })
        );
        let gated = Rule::parse("crawl^2|minhash:64x4/w2/df20+min8|12|0.5").unwrap();
        assert_eq!(
            gated.signature.unwrap().gates,
            vec![crate::confirm::Gate::Min(8)]
        );
        assert!(Rule::parse("crawl^2|minhash:64x4/w2/df20+x|12|0.5").is_err());
        assert!(Rule::parse("jieba/tf|-|3|0").unwrap().signature.is_none());
        assert!(Rule::parse("jieba/tf|-|3").is_err());
        assert!(Rule::parse("jieba/tf|minhash:64x3/w2|3|0").is_err());
        assert!(Rule::parse("jieba/tf|-|x|0").is_err());
        assert_eq!(Rule::parse("jieba/tf|-|16|0|8").unwrap().probes, Some(8));
        assert!(Rule::parse("jieba/tf|-|16|0|x").is_err());
        assert_eq!(
            Rule::parse("jieba/tf|-|14|0|w5").unwrap().weak_bits,
            Some(5)
        );
        assert!(Rule::parse("jieba/tf|-|14|0|wx").is_err());
    }
}
