//! Checking a database by its path, also one that does not open.
//!
//! A database RocksDB refuses to open (a damaged MANIFEST or CURRENT, a
//! missing or unreadable table file) is recovered in a scratch copy
//! ([`Salvage`]) and the copy is checked like any database: the report
//! names why the database does not open, each file that had to be set
//! aside, and then, table by table and id by id, what that left missing.

use std::path::Path;

use crate::error::{Error, Result};
use crate::options::OpenOptions;
use crate::progress::Progress;
use crate::store::{log_damage, options_file_error, Access, Salvage, Store};
use crate::tables::Tables;
use crate::verify::{verify, Problem, VerifyReport};

/// What checking a database by its path found.
pub(crate) struct Inspection {
    /// The problems, as [`crate::Db::verify_at`] reports them.
    pub report: VerifyReport,
    /// The scratch copy a database that did not open was checked in.
    pub salvage: Option<Salvage>,
}

/// Checks the database in `path` (see [`crate::Db::verify_at`]).
pub(crate) fn verify_at(path: &Path, progress: &dyn Progress) -> Result<VerifyReport> {
    Ok(inspect(path, progress)?.report)
}

/// Checks the database in `path`, keeping the scratch copy it salvaged
/// when the database did not open (repair reads it again).
pub(crate) fn inspect(path: &Path, progress: &dyn Progress) -> Result<Inspection> {
    let opened = Store::open(path, Access::Read { replay_log: false }).and_then(|store| {
        let (tables, _) = Tables::load(&store, &OpenOptions::new().read_only(true))?;
        Ok((store, tables))
    });
    let mut salvage = None;
    let mut report = match opened {
        Ok((store, tables)) => {
            let mut report = verify(&store, &tables, progress)?;
            let live_writer = store.follows_writer();
            drop(store);
            if !live_writer {
                if let Some(damage) = log_damage(path) {
                    report.problems.push(Problem::Storage {
                        what: "the write-ahead log".into(),
                        reason: format!("{damage}; every open keeps the writes before it"),
                    });
                }
            }
            report
        }
        Err(error) if is_damage(&error) || lost_current(path, &error) => {
            let salvaged = Salvage::create(path)?;
            let report = verify_salvaged(&salvaged, &error, progress)?;
            salvage = Some(salvaged);
            report
        }
        Err(error) => return Err(error),
    };
    if let Some(error) = options_file_error(path) {
        report.problems.push(Problem::Storage {
            what: "the OPTIONS file".into(),
            reason: error,
        });
    }
    Ok(Inspection { report, salvage })
}

/// Whether an open failed because something stored is damaged or
/// missing, rather than because there is no database, it is held, or it
/// is of a format this version does not read.
fn is_damage(error: &Error) -> bool {
    matches!(error, Error::Corrupt { .. } | Error::Storage { .. })
}

/// Whether "no database" means a database whose CURRENT file is gone:
/// its MANIFEST is still there.
fn lost_current(path: &Path, error: &Error) -> bool {
    matches!(error, Error::NotFound { .. })
        && std::fs::read_dir(path).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|entry| entry.file_name().to_string_lossy().starts_with("MANIFEST-"))
        })
}

/// Checks a scratch copy recovered from a database that did not open.
fn verify_salvaged(
    salvage: &Salvage,
    open_error: &Error,
    progress: &dyn Progress,
) -> Result<VerifyReport> {
    let mut problems = vec![Problem::Storage {
        what: "the database".into(),
        reason: format!("does not open: {open_error}"),
    }];
    problems.extend(salvage.set_aside.iter().map(|file| Problem::Storage {
        what: match salvage.family_of(&file.file) {
            Some(family) => format!("file {} of {}", file.file, family.name()),
            None => format!("file {}", file.file),
        },
        reason: file.reason.clone(),
    }));
    problems.extend(salvage.unplaced.iter().map(|file| Problem::Storage {
        what: format!("file {}", file.file),
        reason: format!(
            "readable, but without the MANIFEST not known to belong to any column family: \
             {}; left out of the check",
            file.reason
        ),
    }));
    problems.extend(salvage.table_files.iter().map(|file| {
        Problem::Storage {
            what: format!(
                "file {}",
                file.file_name().unwrap_or_default().to_string_lossy()
            ),
            reason: "a table's blocks, written by a bulk load or a backup: without the MANIFEST \
                 not known to belong to a table, so its blocks are missing below"
                .into(),
        }
    }));
    let store = Store::open(salvage.path(), Access::Salvage)?;
    let mut report = match Tables::load(&store, &OpenOptions::new()) {
        Ok((tables, _)) => verify(&store, &tables, progress)?,
        Err(error) => {
            problems.push(Problem::Storage {
                what: "the manifest or the block directories".into(),
                reason: format!("unreadable, so no table could be checked: {error}"),
            });
            VerifyReport {
                tables: store.tables(),
                ..VerifyReport::default()
            }
        }
    };
    report.problems.splice(0..0, problems);
    Ok(report)
}
