//! Sorted runs on disk, for loads larger than the memory budget.
//!
//! A run is a file of records in ascending key order, each
//! `key length (u16 BE) | key | value (u64 BE)`, and in runs made with
//! payloads `| payload length (u16 BE) | payload` after it (a document's
//! confirming signature); keys compare as bytes. Merging all runs of a kind
//! yields every record in key order, records with equal keys in the order
//! their runs were written.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

const IO_BUFFER: usize = 1 << 20;

/// A run key of a number (a fingerprint or a permuted key): big-endian,
/// so that byte order is numeric order.
pub(crate) fn number_key(number: u64) -> [u8; 8] {
    number.to_be_bytes()
}

/// The number of a [`number_key`].
pub(crate) fn decode_number_key(key: &[u8]) -> Result<u64> {
    key.try_into()
        .map(u64::from_be_bytes)
        .map_err(|_| Error::corrupt("bulk load run file", "a key is not 8 bytes"))
}

/// Appends the run key of a (fingerprint, id) pair to `out`: byte order is
/// the order of the fingerprint, then of the id's bytes.
pub(crate) fn pair_key(fp: u64, id: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&number_key(fp));
    out.extend_from_slice(id);
}

/// The (fingerprint, id) of a [`pair_key`].
pub(crate) fn decode_pair_key(key: &[u8]) -> Result<(u64, &[u8])> {
    let (fp, id) = key
        .split_first_chunk::<8>()
        .ok_or_else(|| Error::corrupt("bulk load run file", "a pair key shorter than 8 bytes"))?;
    Ok((u64::from_be_bytes(*fp), id))
}

/// The runs of one kind (`ids`, `fp-ids`, `table-003`, …) in a directory.
#[derive(Debug)]
pub(crate) struct Runs {
    dir: PathBuf,
    name: String,
    files: Vec<PathBuf>,
    /// Whether each record carries a payload.
    payloads: bool,
}

/// One record of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunRecord {
    pub key: Vec<u8>,
    pub value: u64,
    /// Empty in runs without payloads.
    pub payload: Vec<u8>,
}

impl Runs {
    pub fn new(dir: &Path, name: impl Into<String>) -> Runs {
        Runs {
            dir: dir.to_path_buf(),
            name: name.into(),
            files: Vec::new(),
            payloads: false,
        }
    }

    /// Runs whose records each carry a payload ([`Runs::write_with_payloads`]).
    pub fn with_payloads(dir: &Path, name: impl Into<String>) -> Runs {
        Runs {
            payloads: true,
            ..Runs::new(dir, name)
        }
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Writes one run; `records` must come in ascending key order.
    pub fn write<K: AsRef<[u8]>>(
        &mut self,
        records: impl Iterator<Item = Result<(K, u64)>>,
    ) -> Result<()> {
        self.write_with_payloads(records.map(|record| record.map(|(k, v)| (k, v, []))))
    }

    /// Writes one run of records with payloads (ignored, and not written,
    /// in runs made without them); `records` must come in ascending key
    /// order.
    pub fn write_with_payloads<K: AsRef<[u8]>, P: AsRef<[u8]>>(
        &mut self,
        records: impl Iterator<Item = Result<(K, u64, P)>>,
    ) -> Result<()> {
        let path = self
            .dir
            .join(format!("{}-{:05}.run", self.name, self.files.len()));
        let io_error = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let too_long = |what| io_error(io::Error::new(io::ErrorKind::InvalidInput, what));
        let file = File::create(&path).map_err(io_error)?;
        let mut out = BufWriter::with_capacity(IO_BUFFER, file);
        for record in records {
            let (key, value, payload) = record?;
            let key = key.as_ref();
            let len = u16::try_from(key.len()).map_err(|_| too_long("key too long"))?;
            out.write_all(&len.to_be_bytes()).map_err(io_error)?;
            out.write_all(key).map_err(io_error)?;
            out.write_all(&value.to_be_bytes()).map_err(io_error)?;
            if self.payloads {
                let payload = payload.as_ref();
                let len = u16::try_from(payload.len()).map_err(|_| too_long("payload too long"))?;
                out.write_all(&len.to_be_bytes()).map_err(io_error)?;
                out.write_all(payload).map_err(io_error)?;
            }
        }
        out.flush().map_err(io_error)?;
        self.files.push(path);
        Ok(())
    }

    /// Every record of every run in key order (ties: earlier run first),
    /// with the index of its run.
    pub fn merge(&self) -> Result<Merge> {
        let mut readers = Vec::with_capacity(self.files.len());
        let mut heap = BinaryHeap::with_capacity(self.files.len());
        for (run, path) in self.files.iter().enumerate() {
            let file = File::open(path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            let mut reader = RunReader {
                input: BufReader::with_capacity(IO_BUFFER, file),
                path: path.clone(),
                payloads: self.payloads,
            };
            if let Some(record) = reader.next_record()? {
                heap.push(Reverse(heap_entry(record, run)));
            }
            readers.push(reader);
        }
        Ok(Merge { readers, heap })
    }

    /// Deletes the run files.
    pub fn remove(&mut self) {
        for path in self.files.drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }
}

struct RunReader {
    input: BufReader<File>,
    path: PathBuf,
    payloads: bool,
}

impl RunReader {
    fn next_record(&mut self) -> Result<Option<RunRecord>> {
        let io_error = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        let mut len = [0u8; 2];
        match self.input.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(io_error(e)),
        }
        let mut key = vec![0u8; usize::from(u16::from_be_bytes(len))];
        self.input.read_exact(&mut key).map_err(io_error)?;
        let mut value = [0u8; 8];
        self.input.read_exact(&mut value).map_err(io_error)?;
        let mut payload = Vec::new();
        if self.payloads {
            self.input.read_exact(&mut len).map_err(io_error)?;
            payload.resize(usize::from(u16::from_be_bytes(len)), 0);
            self.input.read_exact(&mut payload).map_err(io_error)?;
        }
        Ok(Some(RunRecord {
            key,
            value: u64::from_be_bytes(value),
            payload,
        }))
    }
}

/// K-way merge of runs; see [`Runs::merge`].
pub(crate) struct Merge {
    readers: Vec<RunReader>,
    /// Each run's next record, least first.
    heap: BinaryHeap<Reverse<HeapEntry>>,
}

/// A record in the merge's heap: ordered by key, then by run (so that of
/// equal keys the earlier run's comes first), never by value or payload.
type HeapEntry = (Vec<u8>, usize, u64, Vec<u8>);

fn heap_entry(record: RunRecord, run: usize) -> HeapEntry {
    (record.key, run, record.value, record.payload)
}

impl Iterator for Merge {
    /// A record and the index of its run.
    type Item = Result<(RunRecord, usize)>;

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((key, run, value, payload)) = self.heap.pop()?;
        if let Some(reader) = self.readers.get_mut(run) {
            match reader.next_record() {
                Ok(Some(next)) => self.heap.push(Reverse(heap_entry(next, run))),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok((
            RunRecord {
                key,
                value,
                payload,
            },
            run,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_runs_in_key_order_with_earlier_runs_first_on_ties() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(dir.path(), "test");
        runs.write([(&b"a"[..], 1), (b"c", 2), (b"e", 3)].into_iter().map(Ok))
            .unwrap();
        runs.write([(&b"b"[..], 4), (b"c", 5)].into_iter().map(Ok))
            .unwrap();
        runs.write(std::iter::empty::<Result<(&[u8], u64)>>())
            .unwrap();
        let merged: Vec<(Vec<u8>, u64, usize)> = runs
            .merge()
            .unwrap()
            .map(|record| {
                let (record, run) = record.unwrap();
                assert!(record.payload.is_empty());
                (record.key, record.value, run)
            })
            .collect();
        let expected = vec![
            (b"a".to_vec(), 1, 0),
            (b"b".to_vec(), 4, 1),
            (b"c".to_vec(), 2, 0),
            (b"c".to_vec(), 5, 1),
            (b"e".to_vec(), 3, 0),
        ];
        assert_eq!(merged, expected);
        runs.remove();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn payloads_travel_with_their_records_and_never_order_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::with_payloads(dir.path(), "signed");
        runs.write_with_payloads(
            [(&b"a"[..], 1, &b"zz"[..]), (b"c", 2, b"")]
                .into_iter()
                .map(Ok),
        )
        .unwrap();
        runs.write_with_payloads([(&b"c"[..], 1, &b"aa"[..])].into_iter().map(Ok))
            .unwrap();
        let merged: Vec<(RunRecord, usize)> = runs.merge().unwrap().map(Result::unwrap).collect();
        let record = |key: &[u8], value, payload: &[u8]| RunRecord {
            key: key.to_vec(),
            value,
            payload: payload.to_vec(),
        };
        assert_eq!(
            merged,
            vec![
                (record(b"a", 1, b"zz"), 0),
                // Equal keys: the earlier run first, though its value and
                // payload are larger.
                (record(b"c", 2, b""), 0),
                (record(b"c", 1, b"aa"), 1),
            ]
        );
    }
}
