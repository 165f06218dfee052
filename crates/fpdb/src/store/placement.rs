//! Which column family a table file belongs to, when RocksDB cannot say.
//!
//! RocksDB's repairer rebuilds a lost MANIFEST from the table files, each
//! of which records its column family, except the files written outside
//! the database: a bulk load's and a backup copy's record none, and the
//! repairer sets them aside. Their family is told here by what they hold
//! (every family's entries have their own shape, [`keys::fits`]); a
//! scratch database then rewrites each with a compaction into a file that
//! records the family and sequence number 0, older than every write the
//! database made itself. That is where their entries belong: fpdb ingests
//! files only into empty families (a bulk load, a backup's copy), so every
//! later write, removals included, must still win over them.
//!
//! A file that is missing altogether can only be placed by what RocksDB
//! wrote in its info logs when the file was made ([`LoggedFiles`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rocksdb::{BottommostLevelCompaction, CompactOptions, IngestExternalFileOptions, DB};

use super::error::{io, storage};
use super::families::{self, family_handle};
use super::keys::{self, Family, FIXED_FAMILIES};
use crate::error::Result;

/// The scratch database's directory inside the salvage's.
const SCRATCH_DIR: &str = "placing";
/// The scratch family a file is read through.
const READING_FAMILY: &str = "reading";

/// What a table file holds, judged by every entry in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Content {
    /// The entries of this fixed family.
    Family(Family),
    /// Some table's blocks (which one takes the code books to tell).
    Blocks,
    /// No entries.
    Empty,
    /// Entries of no single family, or unreadable ones.
    Unknown,
}

/// The outcome of placing set-aside files.
#[derive(Debug, Default)]
pub(crate) struct Placed {
    /// Files rewritten into the directory, with the family each held.
    pub rewritten: Vec<(String, Family)>,
    /// Files holding table blocks, left where they are.
    pub blocks: Vec<PathBuf>,
    /// Files whose content names no family, with why.
    pub unknown: Vec<(String, String)>,
}

/// Reads the table files `files` (paths), which RocksDB could not place,
/// and writes those of the fixed families as files it can place into
/// `dir`, a database directory, numbered after every file in it.
pub(crate) fn place(dir: &Path, files: &[PathBuf]) -> Result<Placed> {
    let scratch = dir.join(SCRATCH_DIR);
    let _ = std::fs::remove_dir_all(&scratch);
    let mut placed = Placed::default();
    {
        let mut db = open_scratch(&scratch)?;
        let mut rewritten: Vec<Family> = Vec::new();
        for file in files {
            let name = file_name(file);
            match content(&mut db, file)? {
                Content::Family(family) => {
                    ingest(&db, family_handle(&db, family)?, file)?;
                    rewritten.push(family);
                    placed.rewritten.push((name, family));
                }
                Content::Blocks => placed.blocks.push(file.clone()),
                Content::Empty => {}
                Content::Unknown => placed
                    .unknown
                    .push((name, "holds entries of no single column family".into())),
            }
        }
        rewritten.sort_unstable();
        rewritten.dedup();
        let mut compact = CompactOptions::default();
        compact.set_bottommost_level_compaction(BottommostLevelCompaction::Force);
        for &family in &rewritten {
            db.compact_range_cf_opt(
                family_handle(&db, family)?,
                None::<&[u8]>,
                None::<&[u8]>,
                &compact,
            );
        }
        // Only the rewritten families' files (never the scratch family's).
        let live = db
            .live_files()
            .map_err(storage(|| "the rewritten files".into()))?
            .into_iter()
            .filter(|file| {
                Family::from_name(&file.column_family_name)
                    .is_some_and(|family| rewritten.contains(&family))
            });
        let numbers = highest_file_number(dir)? + 1..;
        for (number, file) in numbers.zip(live) {
            let from = scratch.join(file.name.trim_start_matches('/'));
            let to = dir.join(format!("{number:06}.sst"));
            std::fs::copy(&from, &to).map_err(io(&from))?;
        }
    }
    std::fs::remove_dir_all(&scratch).map_err(io(&scratch))?;
    Ok(placed)
}

/// Calls `visit` with every entry of the table file `file`, read through
/// a scratch database in `scratch` (removed after).
pub(crate) fn scan_file(
    scratch: &Path,
    file: &Path,
    mut visit: impl FnMut(&[u8], &[u8]) -> Result<()>,
) -> Result<()> {
    let _ = std::fs::remove_dir_all(scratch);
    let outcome = (|| {
        let mut db = open_scratch(scratch)?;
        read(&mut db, file, &mut visit)
    })();
    let _ = std::fs::remove_dir_all(scratch);
    outcome
}

/// A database with fpdb's fixed families, created in the order fpdb
/// creates them, so each has the id it has in fpdb's databases (a file
/// records its family's id and name, and the repairer wants both).
fn open_scratch(dir: &Path) -> Result<DB> {
    let mut options = rocksdb::Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    options.set_disable_auto_compactions(true);
    DB::open_cf_descriptors(&options, dir, families::descriptors(0)).map_err(storage(|| {
        format!("a scratch database in {}", dir.display())
    }))
}

/// Copies `file` into `family` of `db`.
fn ingest(db: &DB, family: &rocksdb::ColumnFamily, file: &Path) -> Result<()> {
    let mut options = IngestExternalFileOptions::default();
    // The file is the damaged database's own (a link to it): copied, never
    // moved or changed.
    options.set_move_files(false);
    db.ingest_external_file_cf_opts(family, &options, vec![file.to_path_buf()])
        .map_err(storage(|| format!("reading {}", file.display())))
}

/// What `file` holds: the one shape every entry has.
fn content(db: &mut DB, file: &Path) -> Result<Content> {
    let mut candidates: Vec<Family> = FIXED_FAMILIES
        .into_iter()
        .chain([Family::Table(0)])
        .collect();
    let mut entries = 0u64;
    let mut has_manifest = false;
    let readable = read(db, file, &mut |key, value| {
        entries += 1;
        has_manifest |= keys::is_manifest_key(key);
        candidates.retain(|&family| keys::fits(family, key, value));
        Ok(())
    });
    if readable.is_err() {
        return Ok(Content::Unknown);
    }
    if !has_manifest {
        // Every meta family holds the manifest; ids can look like meta keys.
        candidates.retain(|&family| family != Family::Meta);
    }
    Ok(match candidates.as_slice() {
        _ if entries == 0 => Content::Empty,
        [Family::Table(_)] => Content::Blocks,
        [family] => Content::Family(*family),
        _ => Content::Unknown,
    })
}

/// What a scan calls with each entry.
type Visit<'a> = dyn FnMut(&[u8], &[u8]) -> Result<()> + 'a;

/// Ingests a copy of `file` into a scratch family of `db`, visits its
/// entries, and drops the family.
fn read(db: &mut DB, file: &Path, visit: &mut Visit<'_>) -> Result<()> {
    db.create_cf(READING_FAMILY, &rocksdb::Options::default())
        .map_err(storage(|| "a scratch column family".into()))?;
    let outcome = (|| {
        let db: &DB = db;
        let handle = db
            .cf_handle(READING_FAMILY)
            .ok_or_else(|| crate::Error::corrupt("a scratch column family", "missing"))?;
        ingest(db, handle, file)?;
        let mut cursor = db.raw_iterator_cf(handle);
        cursor.seek_to_first();
        while let (Some(key), Some(value)) = (cursor.key(), cursor.value()) {
            visit(key, value)?;
            cursor.next();
        }
        cursor
            .status()
            .map_err(storage(|| format!("reading {}", file.display())))
    })();
    db.drop_cf(READING_FAMILY)
        .map_err(storage(|| "a scratch column family".into()))?;
    outcome
}

/// The highest number in a RocksDB file name in `dir` (table files, logs,
/// MANIFESTs), or 0.
fn highest_file_number(dir: &Path) -> Result<u64> {
    Ok(std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .filter_map(|entry| file_number(&entry.file_name().to_string_lossy()))
        .max()
        .unwrap_or(0))
}

/// The number in a RocksDB file name: `000123.sst`, `000123.log`,
/// `MANIFEST-000123`.
pub(crate) fn file_number(name: &str) -> Option<u64> {
    let digits = name
        .strip_prefix("MANIFEST-")
        .or_else(|| name.split('.').next())?;
    digits.parse().ok()
}

fn file_name(file: &Path) -> String {
    file.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A table file's history as RocksDB's info logs record it.
enum Logged {
    /// A flush or compaction made file `number` (`table_file_creation`).
    Made { number: u64, family: Option<Family> },
    /// An ingestion took in a file, which fpdb names after its family
    /// (`id_fp-0000.sst`), as file `number`.
    Ingested { number: u64, family: Option<Family> },
    /// File `number` was deleted (`table_file_deletion`).
    Deleted { number: u64 },
}

/// What RocksDB's info logs in `dir` (`LOG`, `LOG.old.*`; pruned after
/// 1,000) say about table files.
fn logged(dir: &Path) -> Vec<Logged> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut events = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != "LOG" && !name.starts_with("LOG.old.") {
            continue;
        }
        let Ok(text) = std::fs::read(entry.path()) else {
            continue;
        };
        events.extend(
            String::from_utf8_lossy(&text)
                .lines()
                .filter_map(parse_logged),
        );
    }
    events
}

fn parse_logged(line: &str) -> Option<Logged> {
    let json_field = |field: &str| {
        let (_, rest) = line.split_once(&format!("\"{field}\": "))?;
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim_matches('"'))
    };
    if line.contains("\"event\": \"table_file_creation\"") {
        Some(Logged::Made {
            number: json_field("file_number")?.parse().ok()?,
            family: json_field("cf_name").and_then(Family::from_name),
        })
    } else if line.contains("\"event\": \"table_file_deletion\"") {
        Some(Logged::Deleted {
            number: json_field("file_number")?.parse().ok()?,
        })
    } else if line.contains("[AddFile] External SST file ") {
        let (_, rest) = line.split_once("External SST file ")?;
        let (external, rest) = rest.split_once(" was ingested")?;
        let (_, rest) = rest.split_once(" with path ")?;
        let (internal, _) = rest.split_once(" (global_seqno")?;
        Some(Logged::Ingested {
            number: file_number(&file_name(Path::new(internal)))?,
            family: family_of_ingested(external),
        })
    } else {
        None
    }
}

/// The family in the name fpdb gives a file it ingests:
/// `…/<family>-<part>.sst`.
fn family_of_ingested(path: &str) -> Option<Family> {
    let name = Path::new(path).file_stem()?.to_string_lossy().into_owned();
    let (family, part) = name.rsplit_once('-')?;
    part.chars()
        .all(|c| c.is_ascii_digit())
        .then(|| Family::from_name(family))
        .flatten()
}

/// What RocksDB's info logs say of a database's table files, read once.
#[derive(Debug, Default)]
pub(crate) struct LoggedFiles {
    /// Each file made or ingested, with its family when the log names it.
    made: BTreeMap<u64, Option<Family>>,
    deleted: BTreeSet<u64>,
}

impl LoggedFiles {
    /// Reads the info logs of the database in `dir`.
    pub fn read(dir: &Path) -> LoggedFiles {
        let mut files = LoggedFiles::default();
        for event in logged(dir) {
            match event {
                Logged::Made { number, family } | Logged::Ingested { number, family } => {
                    let known = files.made.entry(number).or_insert(None);
                    *known = known.or(family);
                }
                Logged::Deleted { number } => {
                    files.deleted.insert(number);
                }
            }
        }
        files
    }

    /// The family of table file `number`, as the log recorded it when the
    /// file was made; `None` when no log says.
    pub fn family(&self, number: u64) -> Option<Family> {
        self.made.get(&number).copied().flatten()
    }

    /// Every family the logs name a file of.
    pub fn families(&self) -> impl Iterator<Item = Family> + '_ {
        self.made.values().filter_map(|family| *family)
    }

    /// The files made or ingested and never deleted, yet not in `dir`.
    pub fn missing(&self, dir: &Path) -> Vec<u64> {
        self.made
            .keys()
            .copied()
            .filter(|number| {
                !self.deleted.contains(number) && !dir.join(format!("{number:06}.sst")).exists()
            })
            .collect()
    }
}
