//! `fpdb pairs`: near-duplicate pairs or clusters inside a database.

use anyhow::{Context, Result};
use fpdb::dedup::Representative;

use crate::cli::PairsArgs;
use crate::output::PairsOut;
use crate::progress::Bar;

pub fn run(args: PairsArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let k = super::pairs_k(&db, args.k)?;
    if db.confirmation().is_some() {
        return under_the_rule(&args, &db, k);
    }
    let bar = Bar::new("pairs", false);
    let pairs = db
        .near_pairs_with_progress(k, &bar)
        .with_context(|| format!("reading {}", args.db.display()))?;
    bar.finish();
    let mut out = PairsOut::new(args.format);
    let found = if args.clusters {
        let clusters = fpdb::id_clusters(&pairs);
        for (number, cluster) in clusters.iter().enumerate() {
            let ids: Vec<&str> = cluster.ids.iter().map(String::as_str).collect();
            out.cluster(number, &cluster.representative, &ids)?;
        }
        super::count(clusters.len() as u64, "cluster")
    } else {
        let mut count = 0u64;
        for pair in &pairs {
            for (a, b) in pair.id_pairs() {
                out.pair(a, b, pair.distance)?;
                count += 1;
            }
        }
        super::count(count, "pair")
    };
    out.flush()?;
    eprintln!("fpdb: {found} within k = {k}");
    Ok(())
}

/// A confirming database's pairs: its documents within the retrieval
/// radius confirmed by their signatures, within k by distance alone where
/// one has no signature.
fn under_the_rule(args: &PairsArgs, db: &fpdb::Db, k: u32) -> Result<()> {
    let rule = db.match_rule(k);
    let bar = Bar::new("pairs", false);
    let (corpus, pairs) = db
        .rule_pairs(&rule, &bar)
        .with_context(|| format!("reading {}", args.db.display()))?;
    bar.finish();
    let id = |position: usize| corpus.id(position).unwrap_or_default();
    let mut out = PairsOut::new(args.format).with_similarity(true);
    let found = if args.clusters {
        let links = pairs.iter().map(|p| (p.a, p.b));
        let clusters = corpus.clusters_linked_by(links, Representative::SmallestId);
        for (number, cluster) in clusters.iter().enumerate() {
            let ids: Vec<&str> = cluster.members.iter().map(|&m| id(m)).collect();
            out.cluster(number, id(cluster.representative), &ids)?;
        }
        super::count(clusters.len() as u64, "cluster")
    } else {
        for pair in &pairs {
            out.confirmed_pair(id(pair.a), id(pair.b), pair.distance, pair.similarity)?;
        }
        super::count(pairs.len() as u64, "pair")
    };
    out.flush()?;
    let radius = rule.retrieval_radius();
    eprintln!("fpdb: {found} within {radius} bits confirmed by signatures (k = {k} without one)");
    Ok(())
}
