//! `fpdb`: the admin command line of the fpdb near-duplicate fingerprint
//! database. Parsing and printing live here; the work is done by the
//! library, so everything this binary does is possible from Rust too.

mod cli;
mod commands;
mod input;
mod learning_corpus;
mod output;
mod progress;
mod remote;
mod report;
mod target;

use std::process::ExitCode;

use clap::Parser;

/// Exit status when a command reports findings (`verify` found damage).
const FINDINGS: u8 = 1;
/// Exit status of every error, as for an invalid command line (clap's).
const ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    progress::set_quiet(cli.quiet);
    match commands::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // A closed pipe (`fpdb export DB | head`) is not an error
            // worth a message: the reader has what it wanted.
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            if error.is::<commands::FindingsReported>() {
                return ExitCode::from(FINDINGS);
            }
            eprintln!("fpdb: error: {error:#}");
            ExitCode::from(ERROR)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
