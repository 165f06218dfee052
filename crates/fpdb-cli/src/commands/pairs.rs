//! `fpdb pairs`: near-duplicate pairs or clusters inside a database.

use anyhow::{Context, Result};

use crate::cli::PairsArgs;
use crate::output::PairsOut;
use crate::progress::Bar;

pub fn run(args: PairsArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let k = super::pairs_k(&db, args.k)?;
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
