//! Printing query answers: JSON Lines (one object per query) or TSV (one
//! row per match and id); and near-duplicate pairs and clusters.

use std::io::{self, BufWriter, StdoutLock, Write};

use anyhow::Result;
use fpdb::{Fingerprint, Match};
use serde::Serialize;

use crate::cli::{OutputFormat, PairsFormat};

#[derive(Serialize)]
struct Answer<'a> {
    query: &'a str,
    fp: String,
    /// `fpdb check` only: the fingerprint the id had before, `null` for
    /// an id that was not stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<Option<String>>,
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
        self.write_answer(query, fp, None, matches)
    }

    /// The answer to one `check`: as [`Answers::write`], plus the
    /// fingerprint the id had before (JSON only: TSV rows are matches).
    pub fn write_checked(
        &mut self,
        query: &str,
        fp: Fingerprint,
        previous: Option<Fingerprint>,
        matches: &[Match],
    ) -> Result<()> {
        let previous = Some(previous.map(|fp| fp.to_string()));
        self.write_answer(query, fp, previous, matches)
    }

    fn write_answer(
        &mut self,
        query: &str,
        fp: Fingerprint,
        previous: Option<Option<String>>,
        matches: &[Match],
    ) -> Result<()> {
        match self.format {
            OutputFormat::Json => {
                let answer = Answer {
                    query,
                    fp: fp.to_string(),
                    previous,
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

/// Writes near-duplicate pairs and clusters (`fpdb dedup`, `fpdb pairs`)
/// to standard output.
pub struct PairsOut {
    format: PairsFormat,
    out: BufWriter<StdoutLock<'static>>,
    header_written: bool,
}

#[derive(Serialize)]
struct PairOut<'a> {
    a: &'a str,
    b: &'a str,
    distance: u32,
}

#[derive(Serialize)]
struct ClusterOut<'a> {
    cluster: usize,
    representative: &'a str,
    ids: &'a [&'a str],
}

impl PairsOut {
    pub fn new(format: PairsFormat) -> Self {
        PairsOut {
            format,
            out: BufWriter::new(io::stdout().lock()),
            header_written: false,
        }
    }

    fn header(&mut self, columns: &str) -> Result<()> {
        if !self.header_written {
            writeln!(self.out, "{columns}")?;
            self.header_written = true;
        }
        Ok(())
    }

    /// One unordered pair of documents.
    pub fn pair(&mut self, a: &str, b: &str, distance: u32) -> Result<()> {
        match self.format {
            PairsFormat::Json => {
                serde_json::to_writer(&mut self.out, &PairOut { a, b, distance })?;
                self.out.write_all(b"\n")?;
            }
            PairsFormat::Tsv => {
                self.header("a\tb\tdistance")?;
                writeln!(self.out, "{a}\t{b}\t{distance}")?;
            }
        }
        Ok(())
    }

    /// Cluster number `cluster` with its members.
    pub fn cluster(&mut self, cluster: usize, representative: &str, ids: &[&str]) -> Result<()> {
        match self.format {
            PairsFormat::Json => {
                let out = ClusterOut {
                    cluster,
                    representative,
                    ids,
                };
                serde_json::to_writer(&mut self.out, &out)?;
                self.out.write_all(b"\n")?;
            }
            PairsFormat::Tsv => {
                self.header("cluster\trepresentative\tid")?;
                for id in ids {
                    writeln!(self.out, "{cluster}\t{representative}\t{id}")?;
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
