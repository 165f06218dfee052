//! The database `add`, `query` and `check` work on: a directory opened
//! here, or the one a running `fpdb serve` owns (`--server URL`). Either
//! way the command reads, fingerprints and prints the same, so its output
//! does not depend on where the database is.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use fpdb::{Db, Extract, Fingerprint, Match, OpenOptions, Simhasher};

use crate::cli::TargetArgs;
use crate::remote::Remote;

/// A database directory or a server.
#[derive(Debug)]
pub enum Target {
    // Boxed: a handle is much larger than a client.
    Dir(Box<Db>),
    Server(Remote),
}

impl Target {
    /// The database of `args`, open for writing. With `--server`, a path
    /// given where the database goes is the first of `inputs`.
    pub fn writable(args: &TargetArgs, inputs: &mut Vec<PathBuf>, sync: bool) -> Result<Target> {
        match Target::server(args, inputs)? {
            Some(remote) => Ok(Target::Server(remote)),
            None => open_writable(dir(args)?, sync).map(|db| Target::Dir(Box::new(db))),
        }
    }

    /// The database of `args`, open for reading only.
    pub fn read_only(args: &TargetArgs, inputs: &mut Vec<PathBuf>) -> Result<Target> {
        match Target::server(args, inputs)? {
            Some(remote) => Ok(Target::Server(remote)),
            None => open_read_only(dir(args)?).map(|db| Target::Dir(Box::new(db))),
        }
    }

    fn server(args: &TargetArgs, inputs: &mut Vec<PathBuf>) -> Result<Option<Remote>> {
        let Some(url) = &args.server else {
            return Ok(None);
        };
        if let Some(first) = &args.db {
            inputs.insert(0, first.clone());
        }
        Remote::connect(url, args.token_file.as_deref()).map(Some)
    }

    /// The database directory's handle; `None` for a server.
    pub fn local(&self) -> Option<&Db> {
        match self {
            Target::Dir(db) => Some(db),
            Target::Server(_) => None,
        }
    }

    /// The server, when it must be sent the texts themselves
    /// ([`Remote::needs_texts`]).
    pub fn remote_texts(&self) -> Option<&Remote> {
        match self {
            Target::Server(remote) if remote.needs_texts => Some(remote),
            _ => None,
        }
    }

    /// Whether matches are confirmed by signatures (answers carry the
    /// similarity).
    pub fn confirming(&self) -> bool {
        match self {
            Target::Dir(db) => db.confirmation().is_some(),
            Target::Server(remote) => remote.confirming,
        }
    }

    /// How the database turns texts into fingerprints.
    pub fn simhasher(&self) -> &Simhasher {
        match self {
            Target::Dir(db) => db.simhasher(),
            Target::Server(remote) => &remote.simhasher,
        }
    }

    /// Which text of an HTML page the database fingerprints.
    pub fn extract(&self) -> Extract {
        match self {
            Target::Dir(db) => db.extract(),
            Target::Server(remote) => remote.extract,
        }
    }

    /// The radius to query with: the asked one, else the database's. Fails
    /// now, before any input is read, when no query reaches it.
    pub fn query_k(&self, asked: Option<u32>) -> Result<u32> {
        let k = match self {
            Target::Dir(db) => asked.unwrap_or_else(|| db.k()),
            Target::Server(remote) => asked.unwrap_or(remote.k),
        };
        let reached = match self {
            Target::Dir(db) => db.check_radius(k),
            // The library's own check and message, without a database.
            Target::Server(_) if k > fpdb::MAX_RADIUS => Err(fpdb::Error::RadiusTooLarge {
                k,
                max: fpdb::MAX_RADIUS,
            }),
            Target::Server(_) => Ok(()),
        };
        reached.context("--k")?;
        Ok(k)
    }

    /// Check-and-insert of each document in order: `each` gets each
    /// document with the fingerprint its id had and its matches.
    pub fn check_and_insert(
        &self,
        documents: &[(&str, Fingerprint)],
        k: u32,
        mut each: impl FnMut(&str, Fingerprint, Option<Fingerprint>, Vec<Match>) -> Result<()>,
    ) -> Result<()> {
        match self {
            Target::Dir(db) => {
                for &(id, fp) in documents {
                    let checked = db.check_and_insert(id, fp, k)?;
                    each(id, fp, checked.previous, checked.matches)?;
                }
                Ok(())
            }
            Target::Server(remote) => remote.check_and_insert(documents, k, each),
        }
    }

    /// The matches within `k` of each fingerprint, in order.
    pub fn query(&self, fps: &[Fingerprint], k: u32) -> Result<Vec<Vec<Match>>> {
        match self {
            Target::Dir(db) => Ok(db.query_batch(fps, k)?),
            Target::Server(remote) => remote.query(fps, k),
        }
    }

    /// Stores the documents (atomically per batch of the directory, per
    /// request of the server).
    pub fn insert(&self, documents: &[(&str, Fingerprint)]) -> Result<()> {
        match self {
            Target::Dir(db) => Ok(db.insert_batch(documents)?),
            Target::Server(remote) => remote.insert(documents),
        }
    }
}

fn dir(args: &TargetArgs) -> Result<&Path> {
    args.db
        .as_deref()
        .context("no database given (a directory, or --server URL)")
}

/// Opens `path` for writing.
pub fn open_writable(path: &Path, sync: bool) -> Result<Db> {
    OpenOptions::new()
        .sync(sync)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}

/// Opens `path` for reading only (a writer may have it open too).
pub fn open_read_only(path: &Path) -> Result<Db> {
    OpenOptions::new()
        .read_only(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}
