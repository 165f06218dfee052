//! The tables' check: every block read beside its table's directory,
//! decoded with its checksum verified, its keys in order; each table's
//! fingerprint set compared with the first complete one's.

use fpdb_codec::{BlockDecoder, BlockDirectory, ChecksumPolicy};
use fpdb_simhash::Fingerprint;

use super::report::{damage_or_err, Findings, Problem};
use super::sorted_difference;
use crate::error::Result;
use crate::progress::{Progress, Steps};
use crate::store::{decode_block_key, Family, Store};
use crate::tables::Tables;

/// What one table's blocks hold.
struct TableContents {
    /// Original (unpermuted) fingerprints, sorted.
    fingerprints: Vec<u64>,
    /// False when some block could not be read: the set is incomplete.
    complete: bool,
}

/// Checks every table's blocks against its directory and byte count, and
/// that the complete tables hold one fingerprint set. Returns that set
/// (sorted), `None` when no table could be read whole.
pub(super) fn verify_tables(
    store: &Store,
    tables: &Tables,
    (directories, table_bytes): (&[BlockDirectory], &[u64]),
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<Option<Vec<u64>>> {
    let mut reference: Option<(usize, Vec<u64>)> = None;
    let blocks = directories.iter().map(|d| d.len() as u64).sum();
    progress.phase("blocks", Some(blocks));
    for (index, directory) in directories.iter().enumerate() {
        let stored_bytes = table_bytes.get(index).copied();
        let contents = verify_table(
            store,
            tables,
            (index, directory),
            stored_bytes,
            findings,
            progress,
        )?;
        if !contents.complete {
            findings.add(Problem::Table {
                table: index,
                reason: "not compared with the other tables: some blocks are unreadable".into(),
            });
            continue;
        }
        match &reference {
            None => reference = Some((index, contents.fingerprints)),
            Some((reference_index, expected)) => compare_sets(
                index,
                *reference_index,
                expected,
                &contents.fingerprints,
                findings,
            ),
        }
    }
    Ok(reference.map(|(_, fingerprints)| fingerprints))
}

/// Reads table `index`'s column family beside its directory.
fn verify_table(
    store: &Store,
    tables: &Tables,
    (index, directory): (usize, &BlockDirectory),
    stored_bytes: Option<u64>,
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<TableContents> {
    let table = tables.design.tables().get(index);
    let code = tables.codes.get(index);
    let (Some(table), Some(code)) = (table, code) else {
        findings.add(Problem::Table {
            table: index,
            reason: "no table design or code book for it in the manifest".into(),
        });
        return Ok(TableContents {
            fingerprints: Vec::new(),
            complete: false,
        });
    };
    let permutation = table.permutation();
    let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
    let mut check = TableCheck {
        index,
        directory,
        next_listed: 0,
        previous_last: None,
        bytes: 0,
        contents: TableContents {
            fingerprints: Vec::new(),
            complete: true,
        },
    };
    let mut keys = Vec::new();
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::Table(index))? {
        steps.step();
        let (key, value) = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let reason = damage_or_err(error)?;
                findings.add(Problem::Table {
                    table: index,
                    reason,
                });
                check.contents.complete = false;
                // The iterator cannot go past the damage; what the
                // directory lists beyond it is unchecked.
                return Ok(check.contents);
            }
        };
        let Some((block, block_key)) = check.listed_block(&key, findings) else {
            continue;
        };
        check.bytes += value.len() as u64;
        if let Err(error) = decoder.decode(&value, &mut keys) {
            findings.add(check.damaged(block, block_key, format!("does not decode: {error}")));
            check.contents.complete = false;
            continue;
        }
        findings.report.blocks += 1;
        check.block_keys(block, block_key, &keys, findings);
        check
            .contents
            .fingerprints
            .extend(keys.iter().map(|&k| permutation.inverse(k)));
    }
    Ok(check.finish(stored_bytes, findings))
}

/// One table's check as its blocks are read in key order.
struct TableCheck<'a> {
    index: usize,
    directory: &'a BlockDirectory,
    /// The first directory entry not yet met in the store.
    next_listed: usize,
    /// The last key of the previous block that decoded.
    previous_last: Option<u64>,
    /// Bytes of the blocks the directory lists.
    bytes: u64,
    contents: TableContents,
}

impl TableCheck<'_> {
    /// The directory's index and the key of the block stored under `key`;
    /// `None` (reported) when the key is malformed or not listed. Entries
    /// the directory lists below it are missing from the store.
    fn listed_block(&mut self, key: &[u8], findings: &mut Findings) -> Option<(usize, u64)> {
        let index = self.index;
        let block_key = match decode_block_key(key) {
            Ok(block_key) => block_key,
            Err(malformed) => {
                findings.add(Problem::Table {
                    table: index,
                    reason: malformed.to_string(),
                });
                return None;
            }
        };
        let last_keys = self.directory.last_keys();
        while let Some(&last) = last_keys.get(self.next_listed) {
            if last >= block_key {
                break;
            }
            findings.add(missing_from_store(index, self.next_listed, last));
            self.contents.complete = false;
            self.next_listed += 1;
        }
        if last_keys.get(self.next_listed) == Some(&block_key) {
            self.next_listed += 1;
            return Some((self.next_listed - 1, block_key));
        }
        findings.add(Problem::Block {
            table: index,
            block: None,
            key: block_key,
            reason: "stored but not listed in the directory".into(),
        });
        None
    }

    fn damaged(&self, block: usize, key: u64, reason: String) -> Problem {
        Problem::Block {
            table: self.index,
            block: Some(block),
            key,
            reason,
        }
    }

    /// Checks the decoded `keys` of block `block`, stored under
    /// `block_key`: not empty, ending at its key, starting within its
    /// directory entry and above the previous block.
    fn block_keys(&mut self, block: usize, block_key: u64, keys: &[u64], findings: &mut Findings) {
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            findings.add(self.damaged(block, block_key, "holds no keys".into()));
            return;
        };
        if last != block_key {
            findings.add(self.damaged(
                block,
                block_key,
                format!("its last key is {last:016x}, not the key it is stored under"),
            ));
        }
        if let Some(&bound) = self.directory.first_keys().get(block) {
            if first < bound {
                findings.add(self.damaged(block, block_key, format!(
                    "its first key {first:016x} is below the directory's {bound:016x}: queries would skip it"
                )));
            }
        }
        if let Some(previous) = self.previous_last {
            if first <= previous {
                findings.add(self.damaged(block, block_key, format!(
                    "its first key {first:016x} is not above the previous block's last key {previous:016x}"
                )));
            }
        }
        self.previous_last = Some(last);
    }

    /// After the last stored block: the listed blocks never met are
    /// missing, the byte count is compared, and the fingerprints sorted,
    /// each stored once.
    fn finish(mut self, stored_bytes: Option<u64>, findings: &mut Findings) -> TableContents {
        let index = self.index;
        let last_keys = self.directory.last_keys();
        for (block, &last) in last_keys.iter().enumerate().skip(self.next_listed) {
            findings.add(missing_from_store(index, block, last));
            self.contents.complete = false;
        }
        match stored_bytes {
            Some(stored) if self.contents.complete && self.bytes != stored => {
                findings.add(Problem::Counter {
                    name: "table bytes",
                    stored,
                    counted: self.bytes,
                });
            }
            None => findings.add(Problem::Table {
                table: index,
                reason: "its byte count is missing".into(),
            }),
            _ => {}
        }
        let fingerprints = &mut self.contents.fingerprints;
        fingerprints.sort_unstable();
        let before = fingerprints.len();
        fingerprints.dedup();
        if fingerprints.len() != before {
            findings.add(Problem::Table {
                table: index,
                reason: format!(
                    "{} fingerprints are stored twice",
                    before - fingerprints.len()
                ),
            });
        }
        self.contents
    }
}
/// A block the directory lists (as block `block` with last key `last`)
/// that the table's family does not hold.
fn missing_from_store(table: usize, block: usize, last: u64) -> Problem {
    Problem::Block {
        table,
        block: Some(block),
        key: last,
        reason: "listed in the directory but missing from the store".into(),
    }
}

/// Reports fingerprints that table `index` holds and the reference table
/// does not, and the other way round.
fn compare_sets(
    index: usize,
    reference: usize,
    expected: &[u64],
    got: &[u64],
    findings: &mut Findings,
) {
    if expected == got {
        return;
    }
    let (missing, extra) = sorted_difference(expected, got);
    let example = |fps: &[u64]| {
        fps.first()
            .map(|&fp| format!(" (e.g. {})", Fingerprint(fp)))
            .unwrap_or_default()
    };
    findings.add(Problem::Table {
        table: index,
        reason: format!(
            "holds a different fingerprint set than table {reference}: {} missing{}, {} extra{}",
            missing.len(),
            example(&missing),
            extra.len(),
            example(&extra)
        ),
    });
}
