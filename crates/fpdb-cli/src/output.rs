//! Printing query answers: JSON Lines (one object per query) or TSV (one
//! row per match and id); and near-duplicate pairs and clusters.

use std::io::{self, BufWriter, StdoutLock, Write};

use anyhow::Result;
use fpdb::{CheckedDocument, Fingerprint, Match, Near};
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
    /// Under a confirming database: the estimated resemblance that
    /// confirmed the match (absent for a match by distance alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
}

/// One stored fingerprint of an answer with the ids it matched: a
/// [`Match`] (every id of the fingerprint) or a [`Near`] (one document).
struct Row<'a> {
    fingerprint: Fingerprint,
    distance: u32,
    ids: &'a [String],
    similarity: Option<f64>,
}

impl<'a> From<&'a Match> for Row<'a> {
    fn from(found: &'a Match) -> Self {
        Row {
            fingerprint: found.fingerprint,
            distance: found.distance,
            ids: &found.ids,
            similarity: None,
        }
    }
}

impl<'a> From<&'a Near> for Row<'a> {
    fn from(near: &'a Near) -> Self {
        Row {
            fingerprint: near.fingerprint,
            distance: near.distance,
            ids: std::slice::from_ref(&near.id),
            similarity: near.similarity,
        }
    }
}

/// A server's matches, a row per id: as a directory's confirming
/// database answers (one document per match), whether the server grouped
/// a bare fingerprint's ids or not.
fn rows_of(matches: &[fpdb_server::api::MatchOut]) -> impl Iterator<Item = Row<'_>> {
    matches.iter().flat_map(|found| {
        found.ids.iter().map(move |id| Row {
            fingerprint: found.fingerprint.0,
            distance: found.distance,
            ids: std::slice::from_ref(id),
            similarity: found.similarity,
        })
    })
}

/// Writes answers to standard output.
pub struct Answers {
    format: OutputFormat,
    out: BufWriter<StdoutLock<'static>>,
    header_written: bool,
    /// TSV rows end with the similarity (a confirming database's answers).
    similarity_column: bool,
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
            similarity_column: false,
        }
    }

    /// Answers of a database that confirms matches: TSV rows get a last
    /// `similarity` column (empty for a match by distance alone).
    pub fn with_similarity(mut self, confirming: bool) -> Self {
        self.similarity_column = confirming;
        self
    }

    /// The answer to one query under the database's match rule: the
    /// stored documents it matched.
    pub fn write_near(&mut self, query: &str, fp: Fingerprint, near: &[Near]) -> Result<()> {
        self.write_answer(query, fp, None, near.iter().map(Row::from))
    }

    /// The answer to one `check` under the database's match rule.
    pub fn write_checked_document(
        &mut self,
        query: &str,
        fp: Fingerprint,
        checked: &CheckedDocument,
    ) -> Result<()> {
        let previous = Some(checked.previous.map(|fp| fp.to_string()));
        self.write_answer(query, fp, previous, checked.near.iter().map(Row::from))
    }

    /// The answer to one query: `query` (its id or hex), its fingerprint
    /// and the stored near-duplicates.
    pub fn write(&mut self, query: &str, fp: Fingerprint, matches: &[Match]) -> Result<()> {
        self.write_answer(query, fp, None, matches.iter().map(Row::from))
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
        self.write_answer(query, fp, previous, matches.iter().map(Row::from))
    }

    /// A server's answer to one `check`, as [`Answers::write_checked`].
    pub fn write_checked_answer(
        &mut self,
        query: &str,
        checked: &fpdb_server::api::CheckedOut,
    ) -> Result<()> {
        let previous = Some(checked.previous.map(|fp| fp.0.to_string()));
        let rows = rows_of(&checked.matches);
        self.write_answer(query, checked.fingerprint.0, previous, rows)
    }

    /// A server's answer to one query, as [`Answers::write`].
    pub fn write_query_answer(
        &mut self,
        query: &str,
        answer: &fpdb_server::api::QueryOut,
    ) -> Result<()> {
        self.write_answer(query, answer.fingerprint.0, None, rows_of(&answer.matches))
    }

    fn write_answer<'a>(
        &mut self,
        query: &str,
        fp: Fingerprint,
        previous: Option<Option<String>>,
        rows: impl Iterator<Item = Row<'a>>,
    ) -> Result<()> {
        match self.format {
            OutputFormat::Json => {
                let answer = Answer {
                    query,
                    fp: fp.to_string(),
                    previous,
                    matches: rows
                        .map(|row| MatchOut {
                            fp: row.fingerprint.to_string(),
                            distance: row.distance,
                            ids: row.ids,
                            similarity: row.similarity,
                        })
                        .collect(),
                };
                serde_json::to_writer(&mut self.out, &answer)?;
                self.out.write_all(b"\n")?;
            }
            OutputFormat::Tsv => {
                if !self.header_written {
                    let similarity = if self.similarity_column {
                        "\tsimilarity"
                    } else {
                        ""
                    };
                    writeln!(self.out, "query\tfp\tmatch_fp\tdistance\tid{similarity}")?;
                    self.header_written = true;
                }
                for row in rows {
                    for id in row.ids {
                        write!(
                            self.out,
                            "{query}\t{fp}\t{}\t{}\t{id}",
                            row.fingerprint, row.distance
                        )?;
                        match (self.similarity_column, row.similarity) {
                            (false, _) => writeln!(self.out)?,
                            (true, None) => writeln!(self.out, "\t")?,
                            (true, Some(similarity)) => writeln!(self.out, "\t{similarity:.3}")?,
                        }
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
    /// TSV rows end with the similarity (pairs under a two-stage rule).
    similarity_column: bool,
}

#[derive(Serialize)]
struct PairOut<'a> {
    a: &'a str,
    b: &'a str,
    distance: u32,
    /// Under a two-stage rule: the estimated resemblance that confirmed
    /// the pair (absent for a pair matched by distance alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
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
            similarity_column: false,
        }
    }

    /// Pairs under a two-stage rule: TSV rows get a last `similarity`
    /// column (empty for a pair matched by distance alone).
    pub fn with_similarity(mut self, confirming: bool) -> Self {
        self.similarity_column = confirming;
        self
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
        self.confirmed_pair(a, b, distance, None)
    }

    /// One unordered pair of documents, with the resemblance that
    /// confirmed it under a two-stage rule (`None`: by distance alone).
    pub fn confirmed_pair(
        &mut self,
        a: &str,
        b: &str,
        distance: u32,
        similarity: Option<f64>,
    ) -> Result<()> {
        match self.format {
            PairsFormat::Json => {
                let pair = PairOut {
                    a,
                    b,
                    distance,
                    similarity,
                };
                serde_json::to_writer(&mut self.out, &pair)?;
                self.out.write_all(b"\n")?;
            }
            PairsFormat::Tsv => {
                if self.similarity_column {
                    self.header("a\tb\tdistance\tsimilarity")?;
                } else {
                    self.header("a\tb\tdistance")?;
                }
                write!(self.out, "{a}\t{b}\t{distance}")?;
                match (self.similarity_column, similarity) {
                    (false, _) => writeln!(self.out)?,
                    (true, None) => writeln!(self.out, "\t")?,
                    (true, Some(similarity)) => writeln!(self.out, "\t{similarity:.3}")?,
                }
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
