//! Printing query answers: JSON Lines (one object per query) or TSV (one
//! row per match and id).

use std::io::{self, BufWriter, StdoutLock, Write};

use anyhow::Result;
use fpdb::{Fingerprint, Match};
use serde::Serialize;

use crate::cli::OutputFormat;

#[derive(Serialize)]
struct Answer<'a> {
    query: &'a str,
    fp: String,
    matches: Vec<MatchOut<'a>>,
}

#[derive(Serialize)]
struct MatchOut<'a> {
    fp: String,
    distance: u32,
    ids: &'a [String],
}

/// Writes answers to standard output.
pub struct Answers {
    format: OutputFormat,
    out: BufWriter<StdoutLock<'static>>,
    header_written: bool,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl Answers {
    pub fn new(format: OutputFormat) -> Self {
        Answers {
            format,
            out: BufWriter::new(io::stdout().lock()),
            header_written: false,
        }
    }

    /// The answer to one query: `query` (its id or hex), its fingerprint
    /// and the stored near-duplicates.
    pub fn write(&mut self, query: &str, fp: Fingerprint, matches: &[Match]) -> Result<()> {
        match self.format {
            OutputFormat::Json => {
                let answer = Answer {
                    query,
                    fp: fp.to_string(),
                    matches: matches
                        .iter()
                        .map(|m| MatchOut {
                            fp: m.fingerprint.to_string(),
                            distance: m.distance,
                            ids: &m.ids,
                        })
                        .collect(),
                };
                serde_json::to_writer(&mut self.out, &answer)?;
                self.out.write_all(b"\n")?;
            }
            OutputFormat::Tsv => {
                if !self.header_written {
                    writeln!(self.out, "query\tfp\tmatch_fp\tdistance\tid")?;
                    self.header_written = true;
                }
                for m in matches {
                    for id in &m.ids {
                        writeln!(
                            self.out,
                            "{query}\t{fp}\t{}\t{}\t{id}",
                            m.fingerprint, m.distance
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}
