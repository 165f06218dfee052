//! `fpdb dedup`: near-duplicate pairs or clusters of a corpus, without a
//! database.

use anyhow::{Context, Result};
use fpdb::dedup::{self, Corpus, Representative};
use fpdb::Simhasher;

use crate::cli::{DedupArgs, RepresentativeRule};
use crate::input::{self, fingerprints, Role};
use crate::output::PairsOut;
use crate::progress::Reading;

pub fn run(args: DedupArgs) -> Result<()> {
    // Refuse an impossible k before reading any input.
    dedup::near_pairs(&[], args.k).context("--k")?;
    let simhasher = Simhasher::new(super::simhash_options(&args.simhash)?);
    let mut inputs = input::inputs(&args.input, Role::Query).with_extract(args.simhash.extract);
    let mut corpus = Corpus::new();
    let mut reading = Reading::new("reading", &inputs, false);
    inputs.stream(|records| -> Result<()> {
        reading.handled(records.len());
        let fps = fingerprints(&simhasher, &records);
        corpus.extend(records.into_iter().map(|record| record.id).zip(fps));
        Ok(())
    })?;
    let bar = reading.bar();
    // Pairs are found in one pass with nothing to count: a spinner.
    bar.count(if args.clusters { "clusters" } else { "pairs" }, None);
    super::report_skipped(&inputs);
    let id = |position: usize| corpus.id(position).unwrap_or_default();
    let mut out = PairsOut::new(args.format);
    let found = if args.clusters {
        let rule = match args.representative {
            RepresentativeRule::First => Representative::FirstSeen,
            RepresentativeRule::Smallest => Representative::SmallestId,
        };
        let clusters = corpus.clusters(args.k, rule)?;
        bar.finish();
        for (number, cluster) in clusters.iter().enumerate() {
            let ids: Vec<&str> = cluster.members.iter().map(|&m| id(m)).collect();
            out.cluster(number, id(cluster.representative), &ids)?;
        }
        super::count(clusters.len() as u64, "cluster")
    } else {
        let pairs = corpus.near_pairs(args.k)?;
        bar.finish();
        for pair in &pairs {
            out.pair(id(pair.a), id(pair.b), pair.distance)?;
        }
        super::count(pairs.len() as u64, "pair")
    };
    out.flush()?;
    eprintln!(
        "fpdb: {} within k = {} among {}",
        found,
        args.k,
        super::count(corpus.len() as u64, "document")
    );
    Ok(())
}
