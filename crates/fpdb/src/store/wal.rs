//! RocksDB's write-ahead log files, read record by record without RocksDB.
//!
//! A writer reuses its old log files (`recycle_log_file_num`): a sync of
//! a reused file overwrites blocks the file already has, so it writes no
//! inode, where a sync of an appended file also writes the file's new
//! size (on ext4 without a journal, one I/O more to wait for). A reused file
//! ends in the bytes of the log it held before, which RocksDB's strictest
//! recovery mode cannot tell from damage. Every record of a reused file
//! carries its log's number, so this reader can: the live records end at
//! the first one that does not read back and is not one of this log's,
//! and a record of this log that does not read back is torn or damaged
//! (docs/FORMAT.md, "Writes, merges and what a crash can leave"). The
//! same reading cuts the copies of the logs a read-only handle beside a
//! writer replays: RocksDB's reader for those never gets past an older
//! log's record.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::io;
use crate::error::Result;

/// RocksDB's log block: records never cross one (long ones are cut into
/// fragments, each in one block), and a block's last bytes too short for
/// a header are padding.
const BLOCK: usize = 32 * 1024;
/// checksum (4), length (2), type (1).
const HEADER: usize = 7;
/// The header of a reusable file's records: the log's number (4) added.
const RECYCLABLE_HEADER: usize = 11;
/// RocksDB's checksum mask (`util/crc32c.h`).
const MASK_DELTA: u32 = 0xa282_ead8;
/// Record types with this bit set may be skipped by a reader that does not
/// know them.
const SAFE_TO_IGNORE: u8 = 0x80;

/// What one log file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogScan {
    /// Where this log's records end: an open replays the bytes before it.
    pub live_bytes: u64,
    /// A record of this log that does not read back, if one does not.
    pub damage: Option<LogDamage>,
    /// Whether the reading stopped at the end of the bytes (the file's
    /// end, or a record cut by it), not at bytes of another log or damage
    /// before it: of a prefix of a file, that the log may go on.
    pub reaches_end: bool,
}

/// A record of a log that an open would stop at, dropping what follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogDamage {
    /// The record's first byte in the file.
    pub offset: u64,
    /// Where a later record of the same log starts: then the stop drops
    /// writes that reached the log whole, so it is damage, not a torn
    /// last write.
    pub records_after: Option<u64>,
    /// What is wrong with the record.
    pub reason: &'static str,
}

impl fmt::Display for LogDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the record at byte {} {}", self.offset, self.reason)?;
        match self.records_after {
            Some(later) => write!(
                f,
                "; the log's records go on at byte {later}: damage, and an open drops them"
            ),
            None => write!(
                f,
                "; it is the log's last (a write in flight when a process died, or damage)"
            ),
        }
    }
}

/// The first record an open would stop at in the logs of the database
/// in `path`, as "FILE: what is wrong", if one would. Only asked when no
/// writer is live (a live writer's last record may be half written).
pub(crate) fn damage_in(path: &Path) -> Option<String> {
    log_files(path).into_iter().find_map(|(number, file)| {
        let name = file.file_name()?.to_string_lossy().into_owned();
        match std::fs::read(&file) {
            Ok(bytes) => Some(format!("{name}: {}", scan(&bytes, number).damage?)),
            Err(error) => Some(format!("{name}: cannot be read: {error}")),
        }
    })
}

/// Copies into `dest` the logs of the database in `path` numbered
/// `first` or later, each cut where its records end: what a RocksDB
/// secondary instance replays. Its reader loops forever on a record of
/// the log a reused file held before (RocksDB 11.8.1's
/// `FragmentBufferedReader` returns such a record without consuming it).
/// With `limit`, copies nothing and returns false when the logs hold more
/// than `limit` bytes of records, reading at most a block past it: a
/// reused file is as long as the log it held before, whatever this one
/// holds. A log deleted or reused while it is read was flushed: none of
/// it is needed.
pub(crate) fn copy_live_logs(
    path: &Path,
    dest: &Path,
    first: u64,
    limit: Option<u64>,
) -> Result<bool> {
    let mut copies = Vec::new();
    let mut total = 0u64;
    for (number, file) in log_files(path) {
        if number < first {
            continue;
        }
        // A record cut where the reading stops is not counted: read a
        // block past the limit.
        let cap = limit.map(|limit| limit.saturating_sub(total) + BLOCK as u64);
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&file).and_then(|file| match cap {
            Some(cap) => file.take(cap).read_to_end(&mut bytes),
            None => (&file).read_to_end(&mut bytes),
        });
        if read.is_err() {
            continue;
        }
        let scan = scan(&bytes, number);
        total = total.saturating_add(scan.live_bytes);
        let cut = cap.is_some_and(|cap| bytes.len() as u64 == cap);
        // Records running into the end of what was read go on past it.
        if limit.is_some_and(|limit| total > limit || (cut && scan.reaches_end)) {
            return Ok(false);
        }
        bytes.truncate(usize::try_from(scan.live_bytes).unwrap_or(usize::MAX));
        copies.push((file.file_name().unwrap_or_default().to_owned(), bytes));
    }
    for (name, records) in copies {
        let copy = dest.join(name);
        std::fs::write(&copy, records).map_err(io(&copy))?;
    }
    Ok(true)
}

/// The log files of the database in `path` (`NUMBER.log`), by number.
fn log_files(path: &Path) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(path) else {
        return Vec::new();
    };
    let mut logs: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let number = name.strip_suffix(".log")?.parse().ok()?;
            Some((number, entry.path()))
        })
        .collect();
    logs.sort();
    logs
}

/// Reads the records of `bytes`, the log file numbered `number`, up to
/// where they end. `bytes` may be a prefix of the file: then a record cut
/// by its end is reported as torn, and `live_bytes` stops before it.
pub(crate) fn scan(bytes: &[u8], number: u64) -> LogScan {
    let mut reader = Reader {
        bytes,
        // RocksDB writes the number's low 32 bits.
        number: u32::try_from(number & u64::from(u32::MAX)).unwrap_or_default(),
        pos: 0,
        recyclable: false,
        write_start: None,
        reaches_end: false,
    };
    let damage = loop {
        match reader.next() {
            Step::Record { offset, kind } => {
                if let Err(damage) = reader.follow(offset, kind) {
                    break Some(damage);
                }
            }
            Step::End => break reader.unfinished_write(),
            Step::Old { offset } => match reader.record_of_ours_after(offset) {
                None => break reader.unfinished_write(),
                Some(later) => {
                    break Some(LogDamage {
                        offset,
                        records_after: Some(later),
                        reason: "names another log",
                    })
                }
            },
            Step::Bad {
                offset,
                ours,
                reason,
            } => {
                let records_after = reader.record_of_ours_after(offset);
                // A reused file's live records end at the old log's bytes.
                if !ours && reader.recyclable && records_after.is_none() {
                    break reader.unfinished_write();
                }
                break Some(LogDamage {
                    offset,
                    records_after,
                    reason,
                });
            }
        }
    };
    let live_bytes = match &damage {
        Some(damage) => damage.offset,
        None => reader.pos as u64,
    };
    LogScan {
        live_bytes,
        damage,
        reaches_end: reader.reaches_end,
    }
}

/// The records of one log file, in order.
struct Reader<'a> {
    bytes: &'a [u8],
    number: u32,
    /// Where the next record starts: the end of the records read.
    pos: usize,
    /// Whether a reusable record of this log was read: then bytes that
    /// are not one of this log's records end the log.
    recyclable: bool,
    /// Where the write whose fragments are being read began.
    write_start: Option<u64>,
    /// Whether the reading ran into the end of the bytes.
    reaches_end: bool,
}

/// What the reader found next.
enum Step {
    Record {
        offset: u64,
        kind: Kind,
    },
    /// The end of the file.
    End,
    /// A record of the log this file held before (or one of this log
    /// whose number is damaged).
    Old {
        offset: u64,
    },
    /// Bytes where a record should start that do not read back as one.
    Bad {
        offset: u64,
        /// Whether the bytes are a record of this log (a reusable record
        /// with this log's number, or a legacy one, which names no log).
        ours: bool,
        reason: &'static str,
    },
}

/// A record's place in a write: whole, or a fragment of a long one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Full,
    First,
    Middle,
    Last,
    /// A record about the log itself (compression, timestamp sizes, the
    /// log before it), or one a reader may skip.
    Other,
}

impl Reader<'_> {
    fn next(&mut self) -> Step {
        loop {
            let room = BLOCK - self.pos % BLOCK;
            let left = self.bytes.len() - self.pos;
            if left == 0 {
                self.reaches_end = true;
                return Step::End;
            }
            if room < HEADER {
                // A block's padding.
                self.pos += room.min(left);
                continue;
            }
            let offset = self.pos as u64;
            let Some(header) = array::<HEADER>(self.bytes, self.pos) else {
                self.reaches_end = true;
                let rest = self.bytes.get(self.pos..).unwrap_or_default();
                if rest.iter().all(|&byte| byte == 0) {
                    return Step::End;
                }
                return Step::Bad {
                    offset,
                    ours: true,
                    reason: "is cut short inside its header",
                };
            };
            let length = usize::from(u16::from_le_bytes([header[4], header[5]]));
            let record_type = header[6];
            if record_type == 0 && length == 0 {
                // Preallocated and never written: RocksDB skips the block.
                self.pos += room.min(left);
                continue;
            }
            let number = log_number(self.bytes, self.pos);
            let recyclable = is_recyclable(record_type);
            let header_bytes = if recyclable {
                let Some(number) = number.filter(|_| room >= RECYCLABLE_HEADER) else {
                    self.reaches_end = room >= RECYCLABLE_HEADER;
                    return Step::Bad {
                        offset,
                        ours: !self.recyclable,
                        reason: "is cut short inside its header",
                    };
                };
                if number != self.number {
                    return Step::Old { offset };
                }
                RECYCLABLE_HEADER
            } else {
                HEADER
            };
            // A legacy header names no log: in a legacy file it is this
            // log's; in a reused one, old bytes, unless where a reusable
            // header has its number this one has this log's (a damaged
            // type).
            let ours = recyclable || !self.recyclable || number == Some(self.number);
            let end = self.pos + header_bytes + length;
            let record = self.bytes.get(self.pos..end);
            let reason = if header_bytes + length > room {
                Some("says it is longer than its block")
            } else if record.is_none() {
                self.reaches_end = true;
                Some("is cut short")
            } else if !record.is_some_and(checksum_matches) {
                Some("does not match its checksum")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Step::Bad {
                    offset,
                    ours,
                    reason,
                };
            }
            let kind = match record_type {
                1 | 5 => Kind::Full,
                2 | 6 => Kind::First,
                3 | 7 => Kind::Middle,
                4 | 8 => Kind::Last,
                9..=11 => Kind::Other,
                _ if record_type & SAFE_TO_IGNORE != 0 => Kind::Other,
                _ => {
                    return Step::Bad {
                        offset,
                        ours: true,
                        reason: "has a type no RocksDB writes",
                    }
                }
            };
            self.pos = end;
            self.recyclable |= recyclable;
            return Step::Record { offset, kind };
        }
    }

    /// Follows the record at `offset` through the fragments of a write.
    fn follow(&mut self, offset: u64, kind: Kind) -> Result<(), LogDamage> {
        match (kind, self.write_start) {
            (Kind::Full | Kind::First, Some(start)) => Err(LogDamage {
                offset: start,
                records_after: Some(offset),
                reason: "begins a write whose last fragment is missing",
            }),
            (Kind::Middle | Kind::Last, None) => Err(LogDamage {
                offset,
                records_after: Some(offset),
                reason: "continues a write whose first fragment is missing",
            }),
            (Kind::First, None) => {
                self.write_start = Some(offset);
                Ok(())
            }
            (Kind::Last, Some(_)) => {
                self.write_start = None;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The write whose fragments stop where the log ends, if one does.
    fn unfinished_write(&self) -> Option<LogDamage> {
        self.write_start.map(|start| LogDamage {
            offset: start,
            records_after: None,
            reason: "begins a write whose last fragment never reached the log",
        })
    }

    /// Where a reusable record of this log that reads back starts after
    /// `offset`, if one does. (A legacy record names no log, so in a
    /// legacy file any record that does not read back is reported anyway.)
    fn record_of_ours_after(&self, offset: u64) -> Option<u64> {
        let first = usize::try_from(offset).ok()? + 1;
        (first..self.bytes.len()).find_map(|pos| {
            let room = BLOCK - pos % BLOCK;
            let header = array::<RECYCLABLE_HEADER>(self.bytes, pos)?;
            if room < RECYCLABLE_HEADER
                || !is_recyclable(header[6])
                || log_number(self.bytes, pos) != Some(self.number)
            {
                return None;
            }
            let length = usize::from(u16::from_le_bytes([header[4], header[5]]));
            let record = self.bytes.get(pos..pos + RECYCLABLE_HEADER + length)?;
            (RECYCLABLE_HEADER + length <= room && checksum_matches(record)).then_some(pos as u64)
        })
    }
}

/// Types whose header carries the log's number (RocksDB's
/// `db/log_format.h`).
fn is_recyclable(record_type: u8) -> bool {
    matches!(record_type, 5..=8 | 11 | 131)
}

/// The log number in the header at `pos`, where a reusable record has it.
fn log_number(bytes: &[u8], pos: usize) -> Option<u32> {
    array::<4>(bytes, pos + HEADER).map(u32::from_le_bytes)
}

/// The `N` bytes at `at`, if the slice holds them.
fn array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Whether a record's stored checksum is that of its type, log number
/// (if any) and payload: the bytes after the length.
fn checksum_matches(record: &[u8]) -> bool {
    let (Some(stored), Some(checked)) = (array::<4>(record, 0), record.get(6..)) else {
        return false;
    };
    let unmasked = u32::from_le_bytes(stored)
        .wrapping_sub(MASK_DELTA)
        .rotate_left(15);
    crc32c::crc32c(checked) == unmasked
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Writes records as RocksDB's `log::Writer` does.
    struct Log {
        bytes: Vec<u8>,
        number: u32,
        recyclable: bool,
        /// Where each write's first record starts.
        writes: Vec<usize>,
    }

    impl Log {
        fn new(number: u32, recyclable: bool) -> Log {
            Log {
                bytes: Vec::new(),
                number,
                recyclable,
                writes: Vec::new(),
            }
        }

        fn header_bytes(&self) -> usize {
            if self.recyclable {
                RECYCLABLE_HEADER
            } else {
                HEADER
            }
        }

        fn write(&mut self, payload: &[u8]) {
            let mut rest = payload;
            let mut first = true;
            loop {
                let room = BLOCK - self.bytes.len() % BLOCK;
                if room < self.header_bytes() {
                    self.bytes.extend(std::iter::repeat_n(0, room));
                    continue;
                }
                if first {
                    self.writes.push(self.bytes.len());
                }
                let fits = room - self.header_bytes();
                let (part, last) = if rest.len() <= fits {
                    (rest, true)
                } else {
                    (&rest[..fits], false)
                };
                let kind: u8 = match (first, last) {
                    (true, true) => 1,
                    (true, false) => 2,
                    (false, false) => 3,
                    (false, true) => 4,
                };
                self.record(kind + if self.recyclable { 4 } else { 0 }, part);
                rest = &rest[part.len()..];
                first = false;
                if last {
                    return;
                }
            }
        }

        fn record(&mut self, record_type: u8, payload: &[u8]) {
            let mut checked = vec![record_type];
            if self.recyclable {
                checked.extend(self.number.to_le_bytes());
            }
            checked.extend(payload);
            let crc = crc32c::crc32c(&checked);
            let masked = crc.rotate_right(15).wrapping_add(MASK_DELTA);
            self.bytes.extend(masked.to_le_bytes());
            self.bytes
                .extend(u16::try_from(payload.len()).unwrap().to_le_bytes());
            self.bytes.extend(checked);
        }
    }

    fn payload(seed: usize, length: usize) -> Vec<u8> {
        (0..length)
            .map(|i| u8::try_from((i * 31 + seed * 7) % 256).unwrap())
            .collect()
    }

    fn log_of(number: u32, recyclable: bool, lengths: &[usize]) -> Log {
        let mut log = Log::new(number, recyclable);
        for (seed, &length) in lengths.iter().enumerate() {
            log.write(&payload(seed, length));
        }
        log
    }

    /// `new` written over the start of `old`, as a reused file holds it.
    fn reused(old: &Log, new: &Log) -> Vec<u8> {
        let mut bytes = old.bytes.clone();
        bytes[..new.bytes.len()].copy_from_slice(&new.bytes);
        bytes
    }

    const LENGTHS: [usize; 8] = [100, 3_000, 70_000, 5, 40_000, 1, 900, 33_000];

    #[test]
    fn whole_logs_of_either_kind_read_to_their_end() {
        for recyclable in [false, true] {
            let log = log_of(12, recyclable, &LENGTHS);
            let scan = scan(&log.bytes, 12);
            assert_eq!(scan.damage, None, "recyclable {recyclable}");
            assert_eq!(scan.live_bytes, log.bytes.len() as u64);
            // Zeros a writer preallocated, after the records.
            let mut padded = log.bytes.clone();
            padded.extend(vec![0; 2 * BLOCK]);
            assert_eq!(super::scan(&padded, 12).damage, None);
        }
        assert_eq!(
            scan(&[], 3),
            LogScan {
                live_bytes: 0,
                damage: None,
                reaches_end: true,
            }
        );
    }

    /// The copies `copy_live_logs` makes of `files` (number, bytes)
    /// numbered `first` on, with `limit`; None when it declines.
    fn copies(
        files: &[(u32, Vec<u8>)],
        first: u64,
        limit: Option<u64>,
    ) -> Option<Vec<(String, Vec<u8>)>> {
        let db = tempfile::tempdir().unwrap();
        let dest = tempfile::tempdir().unwrap();
        for (number, bytes) in files {
            std::fs::write(db.path().join(format!("{number:06}.log")), bytes).unwrap();
        }
        if !copy_live_logs(db.path(), dest.path(), first, limit).unwrap() {
            assert_eq!(std::fs::read_dir(dest.path()).unwrap().count(), 0);
            return None;
        }
        let mut copied: Vec<(String, Vec<u8>)> = std::fs::read_dir(dest.path())
            .unwrap()
            .flatten()
            .map(|entry| {
                let name = entry.file_name().into_string().unwrap();
                (name, std::fs::read(entry.path()).unwrap())
            })
            .collect();
        copied.sort();
        Some(copied)
    }

    #[test]
    fn a_reused_file_is_copied_up_to_its_records_reading_little_past_them() {
        // 1 MB of an older log's records behind 3 writes of the new one.
        let old = log_of(5, true, &[700; 1_500]);
        let new = log_of(9, true, &[100, 3_000, 200]);
        let file = reused(&old, &new);
        let limit = Some(64 * 1024);
        let copied = copies(&[(9, file.clone())], 0, limit).expect("short: copied");
        assert_eq!(copied, vec![("000009.log".to_string(), new.bytes.clone())]);
        // Logs numbered before `first` (flushed, kept to be reused) are
        // neither counted nor copied, whatever they hold.
        let older = log_of(4, true, &[700; 1_500]);
        let copied = copies(&[(4, older.bytes.clone()), (9, file)], 9, limit).unwrap();
        assert_eq!(copied, vec![("000009.log".to_string(), new.bytes)]);
        assert_eq!(copies(&[(4, older.bytes)], 0, limit), None);
    }

    #[test]
    fn logs_holding_more_than_the_limit_are_not_copied() {
        let limit = 64 * 1024;
        // Records past the limit, in one log or across two.
        let long = log_of(7, true, &[1_000; 80]);
        assert_eq!(copies(&[(7, long.bytes.clone())], 0, Some(limit)), None);
        let half = log_of(8, true, &[1_000; 40]);
        let other = log_of(9, true, &[1_000; 40]);
        let both = [(8, half.bytes.clone()), (9, other.bytes.clone())];
        assert_eq!(copies(&both, 0, Some(limit)), None);
        assert!(copies(&both, 0, Some(2 * limit)).is_some());
        // One write longer than the limit: cut where the reading stops, it
        // reads as a torn write, and is not taken for the log's end.
        let one_write = log_of(7, true, &[100, 300_000]);
        assert_eq!(copies(&[(7, one_write.bytes)], 0, Some(limit)), None);
        // Without a limit, everything is copied.
        assert_eq!(
            copies(&[(7, long.bytes.clone())], 0, None),
            Some(vec![("000007.log".to_string(), long.bytes)])
        );
    }

    #[test]
    fn a_reused_file_ends_where_the_old_logs_bytes_begin() {
        let old = log_of(5, true, &[700; 1_500]);
        for count in [0, 1, 3, 9, 40] {
            let new = log_of(9, true, &LENGTHS.repeat(5)[..count]);
            let bytes = reused(&old, &new);
            let scan = scan(&bytes, 9);
            assert_eq!(scan.damage, None, "{count} writes");
            assert_eq!(scan.live_bytes, new.bytes.len() as u64, "{count} writes");
        }
    }

    #[test]
    fn a_torn_last_write_is_named_as_the_logs_last() {
        let old = log_of(5, true, &[700; 300]);
        for recyclable in [false, true] {
            let new = log_of(9, recyclable, &LENGTHS);
            let last = *new.writes.last().unwrap();
            // Cut inside the last write: the file ends there.
            for cut in [3, 9, 20, 5_000] {
                let bytes = &new.bytes[..new.bytes.len() - cut];
                let damage = scan(bytes, 9).damage.expect("torn write found");
                assert_eq!(damage.records_after, None);
                assert!(damage.offset >= last as u64, "{damage}");
            }
            // A byte of the last write's payload wrong, old bytes after it.
            let mut bytes = if recyclable {
                reused(&old, &new)
            } else {
                new.bytes.clone()
            };
            bytes[new.bytes.len() - 2] ^= 0x10;
            let scan = scan(&bytes, 9);
            let damage = scan.damage.expect("damaged last write found");
            assert_eq!(damage.records_after, None, "{damage}");
            assert!(damage.offset >= last as u64);
            assert_eq!(scan.live_bytes, damage.offset);
        }
    }

    #[test]
    fn damage_before_the_last_write_says_where_the_records_go_on() {
        let old = log_of(5, true, &[700; 300]);
        let new = log_of(9, true, &LENGTHS);
        for (write, byte) in [(0, 0), (1, 4), (1, 6), (3, 8), (3, 12), (5, 11), (6, 20)] {
            let mut bytes = reused(&old, &new);
            let at = new.writes[write] + byte;
            bytes[at] ^= 0x01;
            let damage = scan(&bytes, 9).damage.expect("damage found");
            assert_eq!(damage.offset, new.writes[write] as u64, "byte {at}");
            let later = damage.records_after.expect("later records found");
            assert!(later > at as u64, "{damage}");
        }
    }

    #[test]
    fn a_write_missing_its_last_fragment_is_named_by_its_first() {
        let mut new = log_of(9, true, &[100]);
        let first = new.bytes.len();
        new.write(&payload(1, 50_000));
        // Keep the first fragment only, with the old log's bytes after it.
        let old = log_of(5, true, &[700; 300]);
        let mut bytes = old.bytes.clone();
        bytes[..BLOCK].copy_from_slice(&new.bytes[..BLOCK]);
        let damage = scan(&bytes, 9).damage.expect("unfinished write found");
        assert_eq!(damage.offset, first as u64);
        assert_eq!(damage.records_after, None);
    }

    /// The log files of `dir`, by number.
    fn logs(dir: &std::path::Path) -> Vec<(u64, Vec<u8>)> {
        let mut logs: Vec<(u64, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let number = name.strip_suffix(".log")?.parse().ok()?;
                Some((number, std::fs::read(entry.path()).unwrap()))
            })
            .collect();
        logs.sort();
        logs
    }

    /// Values of other lengths in each round, so that no record of a
    /// reused file ends where one of the old log did.
    fn length(round: usize, i: usize) -> usize {
        300 + (i * 37 + round * 101) % 900
    }

    #[test]
    fn rocksdbs_reused_logs_read_back_whole_where_its_strict_mode_sees_damage() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.set_recycle_log_file_num(4);
        let db = rocksdb::DB::open(&options, dir.path()).unwrap();
        let mut sync = rocksdb::WriteOptions::default();
        sync.set_sync(true);
        // Three logs of 600 writes, each made old by a flush, then a short
        // one in a reused file: what a writer killed mid-run leaves.
        for round in 0..4 {
            let writes = if round < 3 { 600 } else { 7 };
            for i in 0..writes {
                let value = payload(i, length(round, i));
                db.put_opt(format!("{round}-{i}"), value, &sync).unwrap();
            }
            if round < 3 {
                db.flush().unwrap();
            }
        }
        let crashed = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.file_name() != "LOCK" {
                std::fs::copy(entry.path(), crashed.path().join(entry.file_name())).unwrap();
            }
        }
        drop(db);
        let logs = logs(crashed.path());
        let (number, newest) = logs.last().unwrap();
        let scanned = scan(newest, *number);
        assert_eq!(scanned.damage, None);
        assert!(
            scanned.live_bytes > 0 && scanned.live_bytes + 100_000 < newest.len() as u64,
            "a reused file: {} live bytes of {}",
            scanned.live_bytes,
            newest.len()
        );
        for (number, bytes) in &logs {
            assert_eq!(scan(bytes, *number).damage, None, "log {number}");
        }
        // RocksDB's strict mode takes the old log's bytes for damage.
        let mut strict = rocksdb::Options::default();
        strict.set_wal_recovery_mode(rocksdb::DBRecoveryMode::AbsoluteConsistency);
        let opened = rocksdb::DB::open_for_read_only(&strict, crashed.path(), false);
        assert!(opened.is_err(), "strict open of a reused log");
        // Its point-in-time mode replays every write, none of the old log,
        // read-only and writable.
        let read_only =
            rocksdb::DB::open_for_read_only(&rocksdb::Options::default(), crashed.path(), false)
                .unwrap();
        for i in 0..7 {
            let value = read_only.get(format!("3-{i}")).unwrap();
            assert_eq!(value, Some(payload(i, length(3, i))));
        }
        drop(read_only);
        let reopened = rocksdb::DB::open(&options, crashed.path()).unwrap();
        for i in 0..7 {
            let value = reopened.get(format!("3-{i}")).unwrap();
            assert_eq!(value, Some(payload(i, length(3, i))));
        }
        // One byte of the first record changed: named, with the records
        // after it.
        let mut damaged = newest.clone();
        damaged[RECYCLABLE_HEADER + 5] ^= 0x40;
        let damage = scan(&damaged, *number).damage.expect("damage found");
        assert_eq!(damage.offset, 0);
        assert!(damage.records_after.is_some(), "{damage}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_changed_byte_of_a_record_is_found(
            lengths in prop::collection::vec(0usize..40_000, 1..12),
            old_lengths in prop::collection::vec(1usize..3_000, 1..200),
            reuse in any::<bool>(),
            which in any::<prop::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let new = log_of(77, true, &lengths);
            let old = log_of(76, true, &old_lengths);
            let mut bytes = if reuse && old.bytes.len() >= new.bytes.len() {
                reused(&old, &new)
            } else {
                new.bytes.clone()
            };
            let clean = scan(&bytes, 77);
            prop_assert_eq!(&clean.damage, &None);
            prop_assert_eq!(clean.live_bytes, new.bytes.len() as u64);
            // A byte of some record (not a block's padding), except the
            // last record's log number: changed, it names another log, as
            // the old bytes after it do.
            let mut record_bytes = Vec::new();
            let mut reader = Reader { bytes: &new.bytes, number: 77, pos: 0, recyclable: false, write_start: None, reaches_end: false };
            let mut starts = Vec::new();
            while let Step::Record { offset, .. } = reader.next() {
                starts.push((usize::try_from(offset).unwrap(), reader.pos));
            }
            let last = starts.last().unwrap().0;
            for &(start, end) in &starts {
                record_bytes.extend((start..end).filter(|&at| start != last || !(7..11).contains(&(at - start))));
            }
            let at = record_bytes[which.index(record_bytes.len())];
            bytes[at] ^= flip;
            let damage = scan(&bytes, 77).damage;
            prop_assert!(damage.is_some(), "byte {} changed unnoticed", at);
        }
    }
}
