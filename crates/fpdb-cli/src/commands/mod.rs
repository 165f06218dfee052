//! One module per subcommand, each with a `run` that calls the library.

mod demo;
mod hash;

use anyhow::{Context, Result};
use fpdb::{SimhashOptions, Simhasher};

use crate::cli::{Command, SimhashArgs};

pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Hash(args) => hash::run(args),
        Command::Demo(args) => demo::run(args),
    }
}

/// The simhasher the flags describe.
fn simhasher(args: &SimhashArgs) -> Result<Simhasher> {
    let options = SimhashOptions {
        tokenizer: args.tokenizer.parse().context("--tokenizer")?,
        weighting: args.weights.parse().context("--weights")?,
    };
    Ok(Simhasher::new(options))
}
