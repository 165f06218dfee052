//! `fpdb dedup`: near-duplicate pairs or clusters of a corpus, without a
//! database.

use anyhow::{Context, Result};
use fpdb::dedup::{self, Corpus, Representative};
use fpdb::{Confirmation, MatchRule, Simhasher};

use crate::cli::{DedupArgs, RepresentativeRule};
use crate::input::{self, fingerprints, Role};
use crate::learning_corpus::LearningInput;
use crate::output::PairsOut;
use crate::progress::Reading;

pub fn run(args: DedupArgs) -> Result<()> {
    // Refuse an impossible k or rule before reading any input.
    dedup::near_pairs(&[], args.k).context("--k")?;
    let confirmation = super::confirmation(&args.rule.confirm_args())?;
    let learn_weights = args.simhash.dedup_learns_weights();
    let simhasher = Simhasher::new(super::learning_options(&args.simhash, learn_weights)?);
    let mut inputs = input::inputs(&args.input, Role::Query).with_extract(args.simhash.extract);
    let mut reading = Reading::new("reading", &inputs, false);
    let (corpus, confirmed, learned) = if confirmation.is_none() && !learn_weights {
        let mut corpus = Corpus::new();
        inputs.stream(|records| -> Result<()> {
            reading.handled(records.len());
            let fps = fingerprints(&simhasher, &records);
            corpus.extend(records.into_iter().map(|record| record.id).zip(fps));
            Ok(())
        })?;
        (corpus, None, None)
    } else {
        let mut learning = LearningInput::new(simhasher, learn_weights, confirmation);
        inputs.stream(|records| -> Result<()> {
            reading.handled(records.len());
            learning.add(records);
            Ok(())
        })?;
        if learning.skipped() > 0 {
            eprintln!(
                "fpdb: {} skipped (no features)",
                super::count(learning.skipped(), "text")
            );
        }
        let (corpus, documents, learned) = learning.finish();
        // Fingerprints alone: nothing was learned, and none is signed.
        if learned.sample == 0 {
            (corpus, None, None)
        } else {
            let confirmed = match learned.confirmation.clone() {
                None => None,
                Some(confirmation) => {
                    let rule = MatchRule {
                        k: args.k,
                        confirmation: Some(confirmation),
                    };
                    let pairs = rule.corpus_pairs(&documents)?;
                    Some((rule, pairs))
                }
            };
            (corpus, confirmed, Some(learned))
        }
    };
    let bar = reading.bar();
    // Pairs are found in one pass with nothing to count: a spinner.
    bar.count(if args.clusters { "clusters" } else { "pairs" }, None);
    super::report_skipped(&inputs);
    let id = |position: usize| corpus.id(position).unwrap_or_default();
    let mut out = PairsOut::new(args.format).with_similarity(confirmed.is_some());
    let found = if args.clusters {
        let representative = match args.representative {
            RepresentativeRule::First => Representative::FirstSeen,
            RepresentativeRule::Smallest => Representative::SmallestId,
        };
        let clusters = match &confirmed {
            None => corpus.clusters(args.k, representative)?,
            Some((_, pairs)) => {
                corpus.clusters_linked_by(pairs.iter().map(|p| (p.a, p.b)), representative)
            }
        };
        bar.finish();
        for (number, cluster) in clusters.iter().enumerate() {
            let ids: Vec<&str> = cluster.members.iter().map(|&m| id(m)).collect();
            out.cluster(number, id(cluster.representative), &ids)?;
        }
        super::count(clusters.len() as u64, "cluster")
    } else {
        let found = match &confirmed {
            None => {
                let pairs = corpus.near_pairs(args.k)?;
                bar.finish();
                for pair in &pairs {
                    out.pair(id(pair.a), id(pair.b), pair.distance)?;
                }
                pairs.len()
            }
            Some((_, pairs)) => {
                bar.finish();
                for pair in pairs {
                    out.confirmed_pair(id(pair.a), id(pair.b), pair.distance, pair.similarity)?;
                }
                pairs.len()
            }
        };
        super::count(found as u64, "pair")
    };
    out.flush()?;
    let rule = match confirmed
        .as_ref()
        .and_then(|(rule, _)| rule.confirmation.as_ref())
    {
        None => format!("within k = {}", args.k),
        Some(confirmation) => confirmed_rule(args.k, confirmation),
    };
    eprintln!(
        "fpdb: {} {} among {}{}",
        found,
        rule,
        super::count(corpus.len() as u64, "document"),
        learned
            .as_ref()
            .and_then(|l| l.idf.as_ref().map(|idf| (l.sample, idf)))
            .map(|(sample, idf)| format!(
                "; weights learned from the first {} ({} weighted features)",
                super::count(sample as u64, "text"),
                idf.len()
            ))
            .unwrap_or_default()
    );
    Ok(())
}

/// The two-stage rule in words, for the closing line.
fn confirmed_rule(k: u32, confirmation: &Confirmation) -> String {
    format!(
        "within {} bits confirmed at resemblance {} ({} common features left out; k = {k} without a signature)",
        confirmation.radius(),
        confirmation.threshold(),
        confirmation.common_features().hashes().len(),
    )
}
