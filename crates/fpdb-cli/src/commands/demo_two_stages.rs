//! The demo's second answer: the same corpus in a database that matches
//! in two stages, as `fpdb dedup` does by default and `fpdb create
//! --weights learned --learn-from FILE --confirm` sets up. Word weights
//! are learned from the corpus itself; candidates come from the tables
//! within the confirmation's radius, and each is kept only when the two
//! documents' signatures agree. The pairs are counted against the planted
//! ones, edit by edit beside the single comparison, and checked against
//! applying the same rule to every pair directly.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fpdb::simhash::Weighting;
use fpdb::{BulkOptions, Confirmation, Db, Document, Options, SimhashOptions, LEARN_SAMPLE};

use super::demo_planted::{ordered, Planted};

/// A pair the rule matched: its distance and confirmed resemblance.
type Found<'a> = BTreeMap<(&'a str, &'a str), (u32, Option<f64>)>;

/// Stores `documents` (id, text) in a two-stage database under `dir`,
/// finds every document's near-duplicates, and prints what was found
/// against `planted` and against `one_stage`, the pairs the single
/// comparison found.
pub fn show(
    dir: &Path,
    documents: &[(&str, &str)],
    planted: &[Planted],
    one_stage: &HashSet<(&str, &str)>,
) -> Result<()> {
    let (db, learned_from) = create(dir, documents)?;
    let confirmation = db
        .confirmation()
        .context("the two-stage database has no confirmation")?;
    outln!("two stages: the same corpus as `fpdb dedup` matches it by default");
    outln!(
        "  word weights learned from its {}; candidates within {} bits that both documents' weak bits reach,",
        super::count(learned_from as u64, "text"),
        confirmation.radius()
    );
    outln!(
        "  each kept when their {}-byte signatures estimate a resemblance of at least {}",
        confirmation.layout().bytes(),
        confirmation.threshold()
    );
    // A text without features has no signature and is not stored (as
    // the bulk loader leaves it out).
    let (signed, ids): (Vec<Document>, Vec<&str>) = documents
        .iter()
        .filter_map(|&(id, text)| Some((db.document_text(text).ok()?, id)))
        .unzip();
    if signed.len() < documents.len() {
        outln!(
            "  {} without features left out",
            super::count((documents.len() - signed.len()) as u64, "text")
        );
    }
    let stored_ids: HashSet<&str> = ids.iter().copied().collect();
    let rule = db.match_rule(db.k());
    let started = Instant::now();
    let answers = db.find_batch(&signed, &rule)?;
    let elapsed = started.elapsed();
    let mut found: Found<'_> = BTreeMap::new();
    for (&id, nears) in ids.iter().zip(&answers) {
        for near in nears.iter().filter(|near| near.id != id) {
            let Some(&other) = stored_ids.get(near.id.as_str()) else {
                bail!("the database returned an id that is not in the corpus");
            };
            found.insert(ordered(id, other), (near.distance, near.similarity));
        }
    }
    show_found(documents, planted, one_stage, &found)?;
    check_brute_force(&ids, &signed, &rule, &found)?;
    if !signed.is_empty() {
        outln!(
            "  query: {:.1} µs per document (a batch of {}, both stages)",
            elapsed.as_secs_f64() * 1e6 / signed.len() as f64,
            signed.len()
        );
    }
    Ok(())
}

/// A database confirming with the recommended rule, its weights and
/// common features learned from the documents (as `fpdb create
/// --weights learned --learn-from --confirm` learns them from a file),
/// holding every document; and how many texts it learned from.
fn create(dir: &Path, documents: &[(&str, &str)]) -> Result<(Db, usize)> {
    let simhash = SimhashOptions {
        weighting: Weighting::Tf,
        ..SimhashOptions::default()
    };
    let tokens = fpdb::Simhasher::new(simhash);
    let sample: Vec<Vec<u64>> = documents
        .iter()
        .map(|(_, text)| tokens.feature_hashes(text))
        .filter(|features| !features.is_empty())
        .take(LEARN_SAMPLE)
        .collect();
    let options = Options::default()
        .expected_size(documents.len() as u64)
        .simhash(simhash)
        .confirmation(Some(Confirmation::recommended()))
        .learned_from(&sample, true);
    let mut db = Db::create(dir.join("two-stages.fpdb"), options)?;
    let mut loader = db.bulk_loader(BulkOptions::default())?;
    loader.add_texts(documents)?;
    loader.finish()?;
    Ok((db, sample.len()))
}

/// The planted pairs found, in all and edit by edit beside the single
/// comparison, and the planted pair with the most differing bits that
/// only the two stages found.
fn show_found(
    documents: &[(&str, &str)],
    planted: &[Planted],
    one_stage: &HashSet<(&str, &str)>,
    found: &Found<'_>,
) -> Result<()> {
    if planted.is_empty() {
        outln!("  {} pairs found", found.len());
        return Ok(());
    }
    let planted_pairs: HashSet<(&str, &str)> = planted.iter().map(Planted::pair).collect();
    let hits = planted_pairs
        .iter()
        .filter(|pair| found.contains_key(*pair))
        .count();
    outln!(
        "  planted near-duplicates found: {hits} of {} ({:.0}%); pairs reported that were not planted: {}",
        planted.len(),
        100.0 * hits as f64 / planted.len() as f64,
        found.len() - hits
    );
    let mut edits: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for p in planted {
        let counts = edits.entry(p.edit.as_str()).or_default();
        counts.0 += usize::from(one_stage.contains(&p.pair()));
        counts.1 += usize::from(found.contains_key(&p.pair()));
        counts.2 += 1;
    }
    let by_edit: Vec<String> = edits
        .iter()
        .map(|(edit, (one, two, all))| format!("{edit} {one} → {two} of {all}"))
        .collect();
    outln!(
        "  by edit, one comparison → two stages: {}",
        by_edit.join(", ")
    );
    let widest = planted
        .iter()
        .filter(|p| !one_stage.contains(&p.pair()))
        .filter_map(|p| Some((p, *found.get(&p.pair())?)))
        .max_by_key(|(_, (distance, _))| *distance);
    if let Some((p, (distance, similarity))) = widest {
        let texts: HashMap<&str, &str> = documents.iter().copied().collect();
        let text = |id: &str| texts.get(id).copied().unwrap_or("");
        let resemblance = similarity.map_or_else(|| "-".to_string(), |s| format!("{s:.2}"));
        outln!(
            "  found only in two stages, the pair with the most differing bits ({}):",
            p.edit
        );
        outln!("    distance {distance}, estimated resemblance {resemblance}");
        for id in [&p.a, &p.b] {
            outln!("    {id}\n      {}", super::snippet(text(id)));
        }
    }
    Ok(())
}

/// The database must find exactly the pairs that applying its rule to
/// every pair of documents finds.
fn check_brute_force(
    ids: &[&str],
    signed: &[Document],
    rule: &fpdb::MatchRule,
    found: &Found<'_>,
) -> Result<()> {
    let stored: Vec<(&str, u64, Vec<u8>)> = ids
        .iter()
        .zip(signed)
        .map(|(&id, d)| {
            let bytes = d.stored_bytes(rule.confirmation.as_ref());
            (id, d.fingerprint.0, bytes)
        })
        .collect();
    let mut brute: HashSet<(&str, &str)> = HashSet::new();
    for (i, (a, fa, sa)) in stored.iter().enumerate() {
        for (b, fb, sb) in stored.iter().skip(i + 1) {
            if rule.judge(fa ^ fb, sa, sb).is_some() {
                brute.insert(ordered(a, b));
            }
        }
    }
    let compared = ids.len() * ids.len().saturating_sub(1) / 2;
    let same = brute.len() == found.len() && brute.iter().all(|pair| found.contains_key(pair));
    if !same {
        bail!(
            "the two-stage database found {} pairs but applying its rule to all {compared} pairs finds {}",
            found.len(),
            brute.len()
        );
    }
    outln!(
        "  checked against applying the same rule to all {compared} pairs directly: the same {} pairs",
        brute.len()
    );
    Ok(())
}
