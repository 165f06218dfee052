//! `fpdb create`: a new, empty database.

use std::io::Write;
use std::ops::ControlFlow;

use anyhow::{bail, Context, Result};
use fpdb::{Db, DesignChoice, Options, Simhasher, LEARN_SAMPLE};

use crate::cli::CreateArgs;
use crate::input::{self, Payload, Role};

pub fn run(args: CreateArgs) -> Result<()> {
    let design: DesignChoice = args.design.parse().context("--design")?;
    let learn_weights = args.simhash.learns_weights();
    let confirmation = super::confirmation(&args.confirm)?;
    if learn_weights && args.learn_from.is_empty() {
        bail!("--weights learned: give the texts to learn the weights from with --learn-from FILE");
    }
    if !args.learn_from.is_empty() && !learn_weights && confirmation.is_none() {
        bail!("--learn-from: nothing to learn without --weights learned or --confirm");
    }
    let simhash = super::learning_options(&args.simhash, args.simhash.learns_weights())?;
    let options = Options::default()
        .k(args.k)
        .expected_size(args.expected)
        .design(design)
        .block_bytes(args.block_bytes)
        .simhash(simhash)
        .extract(args.simhash.extract)
        .confirmation(confirmation);
    let options = if args.learn_from.is_empty() {
        options
    } else {
        let sample = read_sample(&args, &Simhasher::new(simhash))?;
        if sample.is_empty() {
            bail!("--learn-from: no text with features to learn from");
        }
        let options = options.learned_from(&sample, learn_weights);
        if let Some(idf) = &options.learned_weights {
            eprintln!(
                "fpdb: weights learned from {}: {} weighted features",
                super::count(sample.len() as u64, "text"),
                idf.len()
            );
        }
        if let Some(confirmation) = &options.confirmation {
            eprintln!(
                "fpdb: {} common to the {} left out of signatures",
                super::count(
                    confirmation.common_features().hashes().len() as u64,
                    "feature"
                ),
                super::count(sample.len() as u64, "text")
            );
        }
        options
    };
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
/// features, up to the sample's size). Reading stops there: a crawl's
/// dump of any size, or a pipe, costs only its first texts.
fn read_sample(args: &CreateArgs, tokens: &Simhasher) -> Result<Vec<Vec<u64>>> {
    // Texts are what is learned from: standard input, and any file whose
    // name says no other format, is a text a line.
    let mut inputs = input::from_parts(args.learn_input, &args.learn_from, false, Role::Hash)
        .with_extract(args.simhash.extract);
    let mut sample: Vec<Vec<u64>> = Vec::new();
    inputs
        .stream_until(|records| -> Result<ControlFlow<()>> {
            let texts: Vec<&str> = records
                .iter()
                .filter_map(|record| match &record.payload {
                    Payload::Text(text) => Some(text.as_str()),
                    Payload::Fingerprint(_) => None,
                })
                .collect();
            // Only as many texts as the sample still has room for are
            // tokenized at a time: the last batch is seldom needed whole.
            let mut rest = texts.as_slice();
            while !rest.is_empty() && sample.len() < LEARN_SAMPLE {
                let room = LEARN_SAMPLE - sample.len();
                let (next, after) = rest.split_at(room.min(rest.len()));
                let features = fpdb_parallel::map(next, |text| tokens.feature_hashes(text));
                sample.extend(features.into_iter().filter(|f| !f.is_empty()));
                rest = after;
            }
            Ok(if sample.len() < LEARN_SAMPLE {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            })
        })
        .context("--learn-from")?;
    Ok(sample)
}
