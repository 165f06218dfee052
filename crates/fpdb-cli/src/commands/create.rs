//! `fpdb create`: a new, empty database.

use std::io::Write;

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use fpdb::simhash::LearnedIdf;
use fpdb::{learn_common_features, Db, DesignChoice, Options, Simhasher};

use crate::cli::CreateArgs;
use crate::input::{self, Payload, Role};
use crate::learning_corpus::SAMPLE;

pub fn run(args: CreateArgs) -> Result<()> {
    let design: DesignChoice = args.design.parse().context("--design")?;
    let learn_weights = args.simhash.learns_weights();
    let mut confirmation = super::confirmation(&args.confirm)?;
    if learn_weights && args.learn_from.is_empty() {
        bail!("--weights learned: give the texts to learn the weights from with --learn-from FILE");
    }
    if !args.learn_from.is_empty() && !learn_weights && confirmation.is_none() {
        bail!("--learn-from: nothing to learn without --weights learned or --confirm");
    }
    let simhash = super::learning_options(&args.simhash)?;
    let mut options = Options::default()
        .k(args.k)
        .expected_size(args.expected)
        .design(design)
        .block_bytes(args.block_bytes)
        .simhash(simhash)
        .extract(args.simhash.extract);
    if !args.learn_from.is_empty() {
        let sample = read_sample(&args, &Simhasher::new(simhash))?;
        if sample.is_empty() {
            bail!("--learn-from: no text with features to learn from");
        }
        if learn_weights {
            let idf = LearnedIdf::learn(sample.iter().map(Vec::as_slice));
            eprintln!(
                "fpdb: weights learned from {}: {} weighted features",
                super::count(sample.len() as u64, "text"),
                idf.len()
            );
            options = options.learned_weights(Arc::new(idf));
        }
        confirmation = confirmation.map(|c| {
            let common = learn_common_features(&sample);
            eprintln!(
                "fpdb: {} common to the {} left out of signatures",
                super::count(common.hashes().len() as u64, "feature"),
                super::count(sample.len() as u64, "text")
            );
            c.with_common_features(common)
        });
    }
    let options = options.confirmation(confirmation);
    let db = Db::create(&args.db, options)
        .with_context(|| format!("cannot create a database in {}", args.db.display()))?;
    writeln!(
        std::io::stdout(),
        "created {}: design {}, {} extract={}",
        args.db.display(),
        db.design_description(),
        db.simhasher().options(),
        db.extract()
    )?;
    if let Some(confirmation) = db.confirmation() {
        writeln!(
            std::io::stdout(),
            "confirming: {} within {} bits at resemblance >= {}",
            confirmation.layout(),
            confirmation.radius(),
            confirmation.threshold()
        )?;
    }
    Ok(())
}

/// The feature hashes of the first texts of `--learn-from` (those with
/// features, up to the sample's size).
fn read_sample(args: &CreateArgs, tokens: &Simhasher) -> Result<Vec<Vec<u64>>> {
    let mut inputs = input::from_parts(None, &args.learn_from, false, Role::Query)
        .with_extract(args.simhash.extract);
    let mut sample: Vec<Vec<u64>> = Vec::new();
    inputs
        .stream(|records| -> Result<()> {
            let room = SAMPLE.saturating_sub(sample.len());
            let texts: Vec<&str> = records
                .iter()
                .filter_map(|record| match &record.payload {
                    Payload::Text(text) => Some(text.as_str()),
                    Payload::Fingerprint(_) => None,
                })
                .collect();
            let features = fpdb_parallel::map(&texts, |text| tokens.feature_hashes(text));
            sample.extend(features.into_iter().filter(|f| !f.is_empty()).take(room));
            Ok(())
        })
        .context("--learn-from")?;
    Ok(sample)
}
