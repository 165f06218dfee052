//! What can still be read of a damaged database, without touching it.
//!
//! The database's files are linked (table files, which RocksDB never
//! changes) or copied (its MANIFEST, CURRENT, OPTIONS and logs) into a
//! scratch directory beside it. There a CURRENT that names no MANIFEST is
//! pointed at the newest one, and the copy opens as a secondary instance
//! ([`super::Access::Salvage`]), which leaves out the table files it
//! cannot read or find instead of failing. Only when the MANIFEST itself
//! cannot be read does RocksDB's repairer rebuild it from the table files.
//! What the files left out held is missing from the copy; the layers above
//! name it and rebuild it from fpdb's other copies.

use std::path::{Path, PathBuf};

use rocksdb::DB;

use super::db_files::{self, Vanished};
use super::error::{io, storage};
use super::families;
use super::keys::{Family, FIXED_FAMILIES};
use super::paths::parent_dir;
use super::placement::{self, LoggedFiles};
use super::reader::open_following;
use crate::error::Result;

/// A file of the database a salvage left out (or, for CURRENT, rewrote).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetAside {
    /// Its name in the database directory.
    pub file: String,
    /// Why (as RocksDB said it, when it did).
    pub reason: String,
}

/// A repaired scratch copy of a database, removed when dropped.
#[derive(Debug)]
pub(crate) struct Salvage {
    dir: PathBuf,
    /// The database it copies.
    source: PathBuf,
    /// What RocksDB's info logs say of the database's files (read when the
    /// MANIFEST is rebuilt; empty otherwise).
    logged: LoggedFiles,
    /// Files left out of the copy (or, for CURRENT, rewritten).
    pub set_aside: Vec<SetAside>,
    /// Files RocksDB's repairer could not place in a column family (a bulk
    /// load's or a backup's: they record none), placed by what they hold.
    pub placed: Vec<(String, Family)>,
    /// Such files holding table blocks: not in the copy (which table they
    /// belong to takes the code books to tell; see [`Salvage::scan_file`]).
    pub table_files: Vec<PathBuf>,
    /// Such files whose content names no family: what they hold is not in
    /// the copy, though it is not damaged.
    pub unplaced: Vec<SetAside>,
}

impl Salvage {
    /// Copies the database in `path` into a scratch directory beside it and
    /// recovers RocksDB's view of it there. The database itself is only
    /// read.
    pub fn create(path: &Path) -> Result<Salvage> {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "db".into());
        let dir = parent_dir(path).join(format!(".{name}.salvage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).map_err(io(&dir))?;
        let mut salvage = Salvage {
            dir,
            source: path.into(),
            logged: LoggedFiles::default(),
            set_aside: Vec::new(),
            placed: Vec::new(),
            table_files: Vec::new(),
            unplaced: Vec::new(),
        };
        salvage.copy_files(path)?;
        if let Some(fixed) = fix_current(&salvage.dir)? {
            salvage.set_aside.push(fixed);
        }
        match unreadable_tables(&salvage.dir) {
            Ok(left_out) if left_out.is_empty() => {}
            Ok(_) => {
                // RocksDB reads the database as of the last state whose
                // files it can all read, which loses every later write;
                // its repairer keeps every file that is left instead.
                salvage.rebuild_manifest()?;
                if !salvage
                    .set_aside
                    .iter()
                    .any(|file| file.file.ends_with(".sst"))
                {
                    salvage.set_aside.push(SetAside {
                        file: UNKNOWN_FILE.into(),
                        reason: "the MANIFEST lists a file that cannot be read or found, and no \
                                 info log of RocksDB's names it"
                            .into(),
                    });
                }
            }
            // The MANIFEST itself is damaged.
            Err(_) => salvage.rebuild_manifest()?,
        }
        Ok(salvage)
    }

    /// Rebuilds the copy's MANIFEST from its table files, as RocksDB's
    /// repairer does (it sets aside the files it cannot read), then places
    /// the files it could not place by what they hold, and has it place
    /// them.
    fn rebuild_manifest(&mut self) -> Result<()> {
        self.run_repairer()?;
        let (unplaced, damaged) = self.repairer_set_aside(&[]);
        self.note_set_aside(damaged);
        self.logged = LoggedFiles::read(&self.source);
        let missing = self
            .logged
            .missing(&self.source)
            .into_iter()
            .map(|number| SetAside {
                file: format!("{number:06}.sst"),
                reason: "missing (RocksDB's info log records it made and never deleted); left out"
                    .into(),
            })
            .collect();
        self.note_set_aside(missing);
        if !unplaced.is_empty() {
            let files: Vec<PathBuf> = unplaced
                .iter()
                .map(|file| self.dir.join(LOST_DIR).join(&file.file))
                .collect();
            let placed = placement::place(&self.dir, &files)?;
            if !placed.rewritten.is_empty() {
                self.run_repairer()?;
                // Anything set aside now is new: a rewritten file it still
                // could not place, or damage it met.
                let (still, damaged) = self.repairer_set_aside(&unplaced);
                self.note_set_aside(damaged);
                self.unplaced.extend(still);
            }
            self.placed = placed.rewritten;
            self.table_files = placed.blocks;
            self.unplaced.extend(
                placed
                    .unknown
                    .into_iter()
                    .map(|(file, reason)| SetAside { file, reason }),
            );
        }
        self.add_missing_families()
    }

    fn run_repairer(&self) -> Result<()> {
        let mut options = rocksdb::Options::default();
        options.create_if_missing(false);
        DB::repair(&options, &self.dir).map_err(storage(|| {
            format!(
                "recovering a copy of {} in {}",
                self.source.display(),
                self.dir.display()
            )
        }))
    }

    /// The files the repairer set aside, less `known` ones: those it could
    /// not place in a column family, and the damaged ones.
    fn repairer_set_aside(&self, known: &[SetAside]) -> (Vec<SetAside>, Vec<SetAside>) {
        set_aside_tables(&self.dir)
            .into_iter()
            .filter(|file| !known.iter().any(|old| old.file == file.file))
            .partition(|file| file.reason.contains("inconsistent column family name"))
    }

    /// Adds files to those set aside; the repairer's reason replaces an
    /// earlier, vaguer one for the same file.
    fn note_set_aside(&mut self, files: Vec<SetAside>) {
        for file in files {
            match self.set_aside.iter_mut().find(|old| old.file == file.file) {
                Some(old) => *old = file,
                None => self.set_aside.push(file),
            }
        }
    }

    /// The family a file set aside belonged to, when RocksDB's logs
    /// recorded it ([`LoggedFiles`]).
    pub fn family_of(&self, file: &str) -> Option<Family> {
        self.logged.family(placement::file_number(file)?)
    }

    /// The family of a table file set aside (one of
    /// [`Salvage::table_files`]), when the info logs name it.
    pub fn family_of_path(&self, file: &Path) -> Option<Family> {
        self.family_of(&file.file_name()?.to_string_lossy())
    }

    /// Calls `visit` with every entry of a table file set aside (one of
    /// [`Salvage::table_files`]).
    pub fn scan_file(
        &self,
        file: &Path,
        visit: impl FnMut(&[u8], &[u8]) -> Result<()>,
    ) -> Result<()> {
        placement::scan_file(&self.dir.join("scanning"), file, visit)
    }

    /// The scratch database's directory (open it as a writable store).
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Links or copies every file RocksDB needs.
    fn copy_files(&self, path: &Path) -> Result<()> {
        for (name, kind) in db_files::list(path)? {
            db_files::link_or_copy(path, &self.dir, &name, kind, Vanished::Fail)?;
        }
        Ok(())
    }

    /// Creates the fixed families, and the table families below the
    /// highest one found, that lost every file: empty, so the copy opens.
    fn add_missing_families(&self) -> Result<()> {
        let names = DB::list_cf(&rocksdb::Options::default(), &self.dir)
            .map_err(storage(|| "the recovered copy's column families".into()))?;
        // Tables whose every file was set aside have no family left; the
        // info logs still name them.
        let tables = names
            .iter()
            .filter_map(|name| Family::from_name(name))
            .chain(self.logged.families())
            .filter_map(|family| match family {
                Family::Table(index) => Some(index),
                _ => None,
            })
            .max()
            .map_or(0, |highest| highest + 1);
        let mut wanted: Vec<String> = FIXED_FAMILIES
            .iter()
            .chain(&(0..tables).map(Family::Table).collect::<Vec<_>>())
            .map(|family| family.name().into_owned())
            .collect();
        for name in &names {
            if !wanted.contains(name) {
                wanted.push(name.clone());
            }
        }
        let mut options = rocksdb::Options::default();
        options.create_missing_column_families(true);
        let descriptors = wanted.iter().map(|name| {
            let family_options = Family::from_name(name)
                .map(|family| families::options(family, None))
                .unwrap_or_default();
            rocksdb::ColumnFamilyDescriptor::new(name, family_options)
        });
        let db = DB::open_cf_descriptors(&options, &self.dir, descriptors)
            .map_err(storage(|| "opening the recovered copy".into()))?;
        drop(db);
        Ok(())
    }
}

impl Drop for Salvage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The name a lost table file goes by when nothing names it.
const UNKNOWN_FILE: &str = "(unknown).sst";

/// Where RocksDB's repairer moves the files it sets aside.
const LOST_DIR: &str = "lost";

/// The table files the repairer moved to `lost/`, with the reason its
/// info log gives ("Table #12: ignoring Corruption: …").
fn set_aside_tables(dir: &Path) -> Vec<SetAside> {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(dir.join(LOST_DIR)) else {
        return Vec::new();
    };
    let mut set_aside: Vec<SetAside> = entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|file| file.ends_with(".sst") || file.ends_with(".blob"))
        .map(|file| {
            let number = file
                .split('.')
                .next()
                .and_then(|digits| digits.parse::<u64>().ok());
            let reason = number
                .and_then(|number| {
                    let marker = format!("Table #{number}: ignoring ");
                    log.lines().find_map(|line| {
                        line.split_once(&marker)
                            .map(|(_, reason)| reason.trim().to_string())
                    })
                })
                .map_or_else(
                    || "unreadable; left out".into(),
                    |reason| format!("{reason}; left out"),
                );
            SetAside { file, reason }
        })
        .collect();
    set_aside.sort_by(|a, b| a.file.cmp(&b.file));
    set_aside
}

/// Why RocksDB's OPTIONS file in `path` does not parse, if it does not.
/// RocksDB never reads it back (fpdb passes its options on every open,
/// and a writable open writes a new one), so a damaged one harms nothing
/// until a tool relies on it; verify still names it.
pub(crate) fn options_file_error(path: &Path) -> Option<String> {
    let env = match rocksdb::Env::new() {
        Ok(env) => env,
        Err(error) => return Some(error.to_string()),
    };
    let cache = rocksdb::Cache::new_lru_cache(1 << 20);
    rocksdb::Options::load_latest(path, env, true, cache)
        .err()
        .map(|error| error.to_string())
}

/// Points a CURRENT that names no MANIFEST of `dir` at the newest one.
fn fix_current(dir: &Path) -> Result<Option<SetAside>> {
    let current = dir.join("CURRENT");
    let named = std::fs::read(&current).unwrap_or_default();
    let named = String::from_utf8_lossy(&named).trim_end().to_string();
    if named.starts_with("MANIFEST-") && dir.join(&named).is_file() {
        return Ok(None);
    }
    let newest = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let number = name.strip_prefix("MANIFEST-")?.parse::<u64>().ok()?;
            Some((number, name))
        })
        .max();
    let Some((_, manifest)) = newest else {
        return Ok(None);
    };
    std::fs::write(&current, format!("{manifest}\n")).map_err(io(&current))?;
    Ok(Some(SetAside {
        file: "CURRENT".into(),
        reason: format!("names no MANIFEST ({named:?}); read with {manifest}"),
    }))
}

/// The table files in `dir` that a tolerant open leaves out (damaged,
/// or not listed by the MANIFEST); an error when even that open fails.
fn unreadable_tables(dir: &Path) -> Result<Vec<SetAside>> {
    let names = DB::list_cf(&rocksdb::Options::default(), dir)
        .map_err(storage(|| "the copy's column families".into()))?;
    let (db, _reader) = open_following(dir, &names, false)?;
    let live: Vec<String> = db
        .live_files()
        .map_err(storage(|| "the copy's live files".into()))?
        .into_iter()
        .map(|file| file.name.trim_start_matches('/').to_string())
        .collect();
    drop(db);
    let mut left_out: Vec<SetAside> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sst") && !live.contains(name))
        .map(|file| SetAside {
            file,
            reason: "cannot be read (or is not listed by the MANIFEST); left out".into(),
        })
        .collect();
    left_out.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(left_out)
}

/// A key range a salvaging scan could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The family.
    pub family: Family,
    /// The last key read before it (`None`: from the family's start).
    pub after: Option<Box<[u8]>>,
    /// The first key read after it (`None`: to the family's end).
    pub until: Option<Box<[u8]>>,
    /// What the storage engine said.
    pub reason: String,
}

/// Keys are searched for up to this many bytes when a scan looks for the
/// first readable key past damage (ids are at most 1024 bytes).
const RESUME_KEY_BYTES: usize = 1032;

impl super::Store {
    /// Calls `visit` with every readable entry of `family` in key order,
    /// stepping over the key ranges RocksDB cannot read (a damaged data
    /// block), which it returns. Past damage the scan searches, by
    /// bisection over keys, for the first key it can seek to: it loses the
    /// damaged block's entries, not the rest of the file.
    pub fn scan_salvaging(
        &self,
        family: Family,
        mut visit: impl FnMut(&[u8], &[u8]) -> Result<()>,
    ) -> Result<Vec<Unreadable>> {
        let handle = self.family(family)?;
        // A fresh iterator for every seek: one that met damage may answer
        // a later seek into the same block from the failed read.
        let cursor_at = |key: Option<&[u8]>| {
            let mut read = rocksdb::ReadOptions::default();
            read.set_total_order_seek(true);
            read.fill_cache(false);
            let mut cursor = self.db().raw_iterator_cf_opt(handle, read);
            match key {
                Some(key) => cursor.seek(key),
                None => cursor.seek_to_first(),
            }
            cursor
        };
        let mut cursor = cursor_at(None);
        let mut unreadable = Vec::new();
        let mut last: Option<Box<[u8]>> = None;
        loop {
            while let (Some(key), Some(value)) = (cursor.key(), cursor.value()) {
                visit(key, value)?;
                last = Some(key.into());
                cursor.next();
            }
            let Err(error) = cursor.status() else {
                return Ok(unreadable);
            };
            // The first position past the damage: a seek there succeeds,
            // one just before it lands in the damaged block and fails.
            let mut low = padded(last.as_deref().unwrap_or_default());
            let mut high = vec![0xff; RESUME_KEY_BYTES];
            if cursor_at(Some(&high)).status().is_err() {
                unreadable.push(Unreadable {
                    family,
                    after: last,
                    until: None,
                    reason: error.to_string(),
                });
                return Ok(unreadable);
            }
            while let Some(middle) = midpoint(&low, &high) {
                if cursor_at(Some(&middle)).status().is_ok() {
                    high = middle;
                } else {
                    low = middle;
                }
            }
            cursor = cursor_at(Some(&high));
            unreadable.push(Unreadable {
                family,
                after: last.clone(),
                until: cursor.key().map(Into::into),
                reason: error.to_string(),
            });
        }
    }
}

/// `key` as a [`RESUME_KEY_BYTES`]-byte big-endian number, zero-padded
/// (keys are shorter: ids are at most 1024 bytes).
fn padded(key: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; RESUME_KEY_BYTES];
    for (slot, byte) in out.iter_mut().zip(key) {
        *slot = *byte;
    }
    out
}

/// The number halfway between `low` and `high` (equal lengths,
/// big-endian), or `None` when no number lies strictly between them.
fn midpoint(low: &[u8], high: &[u8]) -> Option<Vec<u8>> {
    // sum = low + high, one bit wider; then halve.
    let mut sum = vec![0u16; low.len()];
    let mut carry = 0u16;
    for ((slot, &a), &b) in sum.iter_mut().zip(low).zip(high).rev() {
        let total = u16::from(a) + u16::from(b) + carry;
        *slot = total & 0xff;
        carry = total >> 8;
    }
    let mut middle = Vec::with_capacity(low.len());
    let mut remainder = carry;
    for digit in sum {
        // value ≤ 511, so its half fits in a byte.
        let value = (remainder << 8) | digit;
        middle.push(u8::try_from(value >> 1).unwrap_or(u8::MAX));
        remainder = value & 1;
    }
    (middle.as_slice() > low && middle.as_slice() < high).then_some(middle)
}
