//! The kernels `fpdb.spark` runs inside Spark's executors, one call per
//! Arrow batch: keying fingerprints by table prefix, pairs and matches in
//! sorted runs, and probing a broadcast batch of queries. Spark does the
//! distribution; these do the work on each piece.

use std::num::NonZeroU32;

use fpdb::simhash::{WeakBits, QUARTERS};
use fpdb::Fingerprint;
use fpdb_codec::{MemIndex, PrefixRuns, TableDesign, DEFAULT_BLOCK_BYTES};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::args;
use crate::errors::Kind;
use crate::signer::{confirming_rule, stored_bytes};

type Columns<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
);

/// The design `fpdb.spark` keys by at distance `k`, as `(name, tables)`:
/// `design` if named, else the design with the fewest tables (`k + 1`
/// blocks, one agreeing): every table is a copy of the data in the
/// shuffle, and the kernels split long runs on the remaining bits, so
/// fewer, longer runs cost less than more tables.
#[pyfunction]
#[pyo3(signature = (k, design=None))]
pub fn design_for(k: u32, design: Option<&str>) -> PyResult<(String, usize)> {
    let design = match design {
        Some(name) => TableDesign::from_name(k, name),
        None => TableDesign::levels(k, &[k + 1]),
    }
    .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
    Ok((design.name(), design.tables().len()))
}

/// Fingerprints packed for the shuffle: one row per distinct fingerprint
/// (and side) and table of the design `design` at distance `k`, and a
/// second for table 0 when the fingerprint repeats, in `buckets` buckets by key
/// ([`PrefixRuns::bucket`]), grouped by `(bucket, table, side)`. Returns
/// the groups' `bucket`, `table` and `is_query` columns, their byte
/// `offsets` into `fps` (one more than the groups), and `fps`, so that
/// each group ships as one binary value instead of a row per
/// fingerprint (the rows' trip through the JVM was most of a job).
#[pyfunction]
#[pyo3(signature = (fps, design, k, buckets, is_query=None))]
pub fn route<'py>(
    py: Python<'py>,
    fps: &Bound<'py, PyAny>,
    design: &str,
    k: u32,
    buckets: u32,
    is_query: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<Packed<'py>> {
    let runs = runs(design, k)?;
    let fps = args::fingerprints(fps)?;
    let sides = is_query.map(|sides| sides.as_array().to_vec());
    if sides.as_ref().is_some_and(|sides| sides.len() != fps.len()) {
        return Err(Kind::InvalidInput.err("is_query must have one flag per fingerprint"));
    }
    let buckets = NonZeroU32::new(buckets)
        .ok_or_else(|| Kind::InvalidInput.err("buckets must be at least 1"))?;
    let groups = py
        .detach(move || {
            // Copies travel once per batch (twice for table 0, which is
            // how the pairs kernel learns that a fingerprint repeats), so
            // 100,000 empty pages do not make one bucket 100,000 rows long.
            let mut items: Vec<(u64, bool)> = match sides {
                Some(sides) => fps.iter().map(|fp| fp.0).zip(sides).collect(),
                None => fps.iter().map(|fp| (fp.0, false)).collect(),
            };
            items.sort_unstable();
            let tables = runs.design().tables().len();
            let mut rows = Vec::with_capacity(items.len() * tables);
            for copies in items.chunk_by(|a, b| a == b) {
                let Some(&(fp, side)) = copies.first() else {
                    continue;
                };
                for table in 0..tables {
                    let bucket = runs.bucket(table, Fingerprint(fp), buckets)?;
                    rows.push((bucket, table, side, fp));
                    if table == 0 && copies.len() > 1 {
                        rows.push((bucket, table, side, fp));
                    }
                }
            }
            rows.sort_unstable_by_key(|&(bucket, table, side, _)| (bucket, table, side));
            Ok::<_, fpdb_codec::CodecError>(PackedGroups::from_sorted(&rows))
        })
        .map_err(invalid)?;
    groups.into_arrays(py)
}

type Packed<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<u64>>,
);

/// Rows sorted by `(bucket, table, side)`, as columns of groups.
struct PackedGroups {
    buckets: Vec<u32>,
    tables: Vec<i32>,
    sides: Vec<bool>,
    ends: Vec<usize>,
    fps: Vec<u64>,
}

impl PackedGroups {
    fn from_sorted(rows: &[(u32, usize, bool, u64)]) -> Self {
        let mut groups = PackedGroups {
            buckets: Vec::new(),
            tables: Vec::new(),
            sides: Vec::new(),
            ends: Vec::new(),
            fps: rows.iter().map(|row| row.3).collect(),
        };
        let mut end = 0;
        for group in rows.chunk_by(|a, b| (a.0, a.1, a.2) == (b.0, b.1, b.2)) {
            if let Some(&(bucket, table, side, _)) = group.first() {
                end += group.len();
                groups.buckets.push(bucket);
                // Tables number at most 2^16 (TableDesign's limit).
                groups.tables.push(i32::try_from(table).unwrap_or(i32::MAX));
                groups.sides.push(side);
                groups.ends.push(end);
            }
        }
        groups
    }

    fn into_arrays(self, py: Python<'_>) -> PyResult<Packed<'_>> {
        let offsets = std::iter::once(0)
            .chain(self.ends)
            .map(|end| {
                i32::try_from(end * 8).map_err(|_| {
                    Kind::InvalidInput.err("too many fingerprints in one batch (over 2^28)")
                })
            })
            .collect::<PyResult<Vec<i32>>>()?;
        Ok((
            PyArray1::from_vec(py, self.buckets),
            PyArray1::from_vec(py, self.tables),
            PyArray1::from_vec(py, self.sides),
            PyArray1::from_vec(py, offsets),
            PyArray1::from_vec(py, self.fps),
        ))
    }
}

/// Pairs within `k` among one partition's rows (`tables` and `fps`
/// columns, in any order, copies allowed; every row of a `(table,
/// prefix)` key in this partition), `a < b`, and `(fp, fp, 0)` for each
/// fingerprint given more than once for table 0 (shared by several
/// documents); with `is_query`, the matches between the query rows and
/// the others instead, `a` the query. Returns `(a, b, distance)`.
#[pyfunction]
#[pyo3(signature = (tables, fps, design, k, is_query=None))]
pub fn pairs_in_partition<'py>(
    py: Python<'py>,
    tables: PyReadonlyArray1<'py, i32>,
    fps: &Bound<'py, PyAny>,
    design: &str,
    k: u32,
    is_query: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<Columns<'py>> {
    let runs = runs(design, k)?;
    let rows = rows(&tables, fps)?;
    let sides = is_query.map(|sides| sides.as_array().to_vec());
    if sides
        .as_ref()
        .is_some_and(|sides| sides.len() != rows.len())
    {
        return Err(Kind::InvalidInput.err("is_query must have one flag per row"));
    }
    let pairs = py
        .detach(move || {
            let mut pairs = Vec::new();
            match sides {
                Some(sides) => {
                    let rows: Vec<(usize, Fingerprint, bool)> = rows
                        .into_iter()
                        .zip(sides)
                        .map(|((table, fp), side)| (table, fp, side))
                        .collect();
                    runs.matches_in_rows(&rows, &mut pairs)
                }
                None => runs.pairs_in_rows(&rows, &mut pairs).map(|repeated| {
                    pairs.extend(repeated.into_iter().map(|fp| (fp, fp, 0)));
                }),
            }
            .map(|()| pairs)
        })
        .map_err(invalid)?;
    Ok(columns(py, fingerprint_triples(pairs)))
}

/// The key of a fingerprint's quarter `index` (0 the most significant)
/// in the weak-bit join: the quarter's number and its 16 bits.
fn quarter_key(index: usize, quarter: u64, fp: u64) -> u64 {
    ((index as u64) << 16) | ((fp & quarter) >> quarter.trailing_zeros())
}

/// Keys of the weak-bit join, packed for the shuffle as [`route`] packs
/// fingerprints: one group per bucket of `buckets` (the key modulo
/// `buckets`), each a binary value of `(key, fingerprint)` pairs of
/// little-endian u64s, sorted and distinct. Without `stored`, each
/// fingerprint's own keys, one per quarter; with `stored` (each
/// document's bytes as `Signer.documents` makes them under the
/// `confirm_` options, None for a bare one, which probes nothing), the
/// keys each signed document's weak bits probe: per quarter, its quarter
/// with every subset of its weak bits there flipped that the rule allows
/// (`WeakBits::subsets_in`, at most two of them by default), exactly the own keys of the fingerprints its
/// weak bits reach in that quarter. Returns the groups' `bucket`, their
/// byte `offsets` into `packed` (one more than the groups), and `packed`.
#[pyfunction]
#[pyo3(signature = (fps, buckets, stored=None, confirm_weak_bits=None, confirm_min_shared=None))]
pub fn route_keys<'py>(
    py: Python<'py>,
    fps: &Bound<'py, PyAny>,
    buckets: u32,
    stored: Option<Vec<Option<Bound<'py, PyBytes>>>>,
    confirm_weak_bits: Option<u32>,
    confirm_min_shared: Option<u16>,
) -> PyResult<PackedKeys<'py>> {
    let fps = args::fingerprints(fps)?;
    let buckets = NonZeroU32::new(buckets)
        .ok_or_else(|| Kind::InvalidInput.err("buckets must be at least 1"))?;
    // (fingerprint, mask of the bits whose subsets it flips): an owner
    // flips nothing, a prober its weak bits.
    // The most weak bits flipped in a quarter, under the rule's cap.
    let mut most_flipped = fpdb::simhash::EVERY_SUBSET;
    let mut flipping: Vec<(u64, u64)> = match stored {
        None => fps.iter().map(|fp| (fp.0, 0)).collect(),
        Some(stored) => {
            let rule = confirming_rule(0, None, None, confirm_weak_bits, confirm_min_shared)?;
            most_flipped = rule.weak_flips();
            if stored.len() != fps.len() {
                return Err(Kind::InvalidInput.err("one signature (or None) per fingerprint"));
            }
            let mut probers = Vec::with_capacity(fps.len());
            if let Some(confirmation) = &rule.confirmation {
                for (&fp, bytes) in fps.iter().zip(&stored) {
                    let bytes = stored_bytes(&rule, bytes.as_ref())?;
                    let document = confirmation.stored_document(fp, bytes);
                    if let Some(weak) = rule.probed_weak_bits(&document) {
                        // Each weak bit doubles a quarter's probes: bytes
                        // claiming more than the rule keeps were not made
                        // under it.
                        let most = confirmation.weak_bits();
                        if QUARTERS.iter().any(|q| (weak.0 & q).count_ones() > most) {
                            return Err(Kind::InvalidInput.err(format!(
                                "weak bits {:016x} keep more than {most} in a quarter: signed \
                                 under other options",
                                weak.0
                            )));
                        }
                        probers.push((fp.0, weak.0));
                    }
                }
            }
            probers
        }
    };
    let packed = py.detach(move || {
        // Copies key once.
        flipping.sort_unstable();
        flipping.dedup();
        let buckets = u64::from(buckets.get());
        let mut rows: Vec<(u64, u64, u64)> = Vec::new();
        for &(fp, flips) in &flipping {
            for (index, &quarter) in QUARTERS.iter().enumerate() {
                rows.extend(
                    WeakBits(flips)
                        .subsets_in(quarter, most_flipped)
                        .map(|flip| {
                            let key = quarter_key(index, quarter, fp ^ flip);
                            (key % buckets, key, fp)
                        }),
                );
            }
        }
        rows.sort_unstable();
        rows.dedup();
        let mut groups = (Vec::new(), Vec::new(), Vec::with_capacity(rows.len() * 2));
        for run in rows.chunk_by(|a, b| a.0 == b.0) {
            if let Some(&(bucket, _, _)) = run.first() {
                // Buckets are below `buckets`, a u32.
                groups.0.push(u32::try_from(bucket).unwrap_or(u32::MAX));
                groups
                    .2
                    .extend(run.iter().flat_map(|&(_, key, fp)| [key, fp]));
                groups.1.push(groups.2.len());
            }
        }
        groups
    });
    let (bucket, ends, packed) = packed;
    let offsets = std::iter::once(0)
        .chain(ends)
        .map(|end| {
            i32::try_from(end * 8)
                .map_err(|_| Kind::InvalidInput.err("too many keys in one batch (over 2^27)"))
        })
        .collect::<PyResult<Vec<i32>>>()?;
    Ok((
        PyArray1::from_vec(py, bucket),
        PyArray1::from_vec(py, offsets),
        PyArray1::from_vec(py, packed),
    ))
}

type PackedKeys<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<u64>>,
);

/// The pairs the weak-bit join finds among one partition's rows (every
/// row of a key in this partition): for each key, each probing
/// fingerprint (`is_probe`: probe keys of [`route_keys`]) against each
/// fingerprint owning the key (its own keys), kept past `k` (nearer pairs are
/// the prefix kernels') and within `radius`; with `ordered`, only where
/// the prober is the smaller (in a self-join a pair both documents' weak
/// bits must reach is found from both sides). `(a, b, distance)` with
/// `a` the prober, each pair once.
#[pyfunction]
pub fn reached_in_partition<'py>(
    py: Python<'py>,
    keys: PyReadonlyArray1<'py, u64>,
    fps: &Bound<'py, PyAny>,
    is_probe: PyReadonlyArray1<'py, bool>,
    k: u32,
    radius: u32,
    ordered: bool,
) -> PyResult<Columns<'py>> {
    let fps = args::fingerprints(fps)?;
    let (keys, sides) = (keys.as_array(), is_probe.as_array());
    if keys.len() != fps.len() || sides.len() != fps.len() {
        return Err(Kind::InvalidInput.err("one key and one side per fingerprint"));
    }
    let mut rows: Vec<(u64, bool, u64)> = keys
        .iter()
        .zip(&sides)
        .zip(&fps)
        .map(|((&key, &side), fp)| (key, side, fp.0))
        .collect();
    let pairs = py.detach(move || {
        rows.sort_unstable();
        rows.dedup();
        let mut pairs = Vec::new();
        for run in rows.chunk_by(|a, b| a.0 == b.0) {
            // Owners (false) sort before probers, each by fingerprint.
            let (owners, probers) = run.split_at(run.partition_point(|row| !row.1));
            for &(_, _, prober) in probers {
                let from = if ordered {
                    owners.partition_point(|row| row.2 <= prober)
                } else {
                    0
                };
                for &(_, _, owner) in owners.get(from..).unwrap_or_default() {
                    let distance = (prober ^ owner).count_ones();
                    if distance > k && distance <= radius {
                        pairs.push((prober, owner, distance));
                    }
                }
            }
        }
        // A pair reached in several quarters is found once per quarter.
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    });
    Ok(columns(py, pairs))
}

/// A batch of query fingerprints in memory, permuted into sorted tables
/// (the paper's batch mode): stored fingerprints stream past it.
#[pyclass(name = "BatchIndex", module = "fpdb._fpdb", frozen)]
pub struct PyBatchIndex {
    index: MemIndex,
    k: u32,
}

#[pymethods]
impl PyBatchIndex {
    #[new]
    fn new(py: Python<'_>, queries: &Bound<'_, PyAny>, k: u32) -> PyResult<Self> {
        let mut queries = args::fingerprints(queries)?;
        let index = py
            .detach(move || {
                queries.sort_unstable();
                queries.dedup();
                let design = TableDesign::auto(k, queries.len() as u64)?;
                MemIndex::build(design, &queries, DEFAULT_BLOCK_BYTES)
            })
            .map_err(invalid)?;
        Ok(PyBatchIndex { index, k })
    }

    /// The queries within `k` of each of `fps`: `(position in fps, query,
    /// distance)` columns.
    fn matches<'py>(&self, py: Python<'py>, fps: &Bound<'py, PyAny>) -> PyResult<Columns<'py>> {
        let fps = args::fingerprints(fps)?;
        let (index, k) = (&self.index, self.k);
        let found = py
            .detach(move || {
                let (mut found, mut hits, mut buffer) = (Vec::new(), Vec::new(), Vec::new());
                for (position, &fp) in (0u64..).zip(&fps) {
                    index.query_with(fp, k, &mut buffer, &mut hits)?;
                    found.extend(
                        hits.iter()
                            .map(|&(query, distance)| (position, query.0, distance)),
                    );
                }
                Ok::<_, fpdb_codec::CodecError>(found)
            })
            .map_err(invalid)?;
        Ok(columns(py, found))
    }
}

/// The runs of a named design (executors get the name the driver
/// resolved, so every executor keys by the same tables).
fn runs(design: &str, k: u32) -> PyResult<PrefixRuns> {
    let design = TableDesign::from_name(k, design)
        .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
    PrefixRuns::new(design, k).map_err(invalid)
}

fn rows(
    tables: &PyReadonlyArray1<'_, i32>,
    fps: &Bound<'_, PyAny>,
) -> PyResult<Vec<(usize, Fingerprint)>> {
    let fps = args::fingerprints(fps)?;
    let tables = tables.as_array();
    if tables.len() != fps.len() {
        return Err(Kind::InvalidInput.err(format!(
            "{} table numbers for {} fingerprints",
            tables.len(),
            fps.len()
        )));
    }
    tables
        .iter()
        .zip(fps)
        .map(|(&table, fp)| {
            usize::try_from(table)
                .map(|table| (table, fp))
                .map_err(|_| Kind::InvalidInput.err(format!("table number {table} is negative")))
        })
        .collect()
}

fn fingerprint_triples(pairs: Vec<(Fingerprint, Fingerprint, u32)>) -> Vec<(u64, u64, u32)> {
    pairs
        .into_iter()
        .map(|(a, b, distance)| (a.0, b.0, distance))
        .collect()
}

fn columns(py: Python<'_>, triples: Vec<(u64, u64, u32)>) -> Columns<'_> {
    let a = triples.iter().map(|triple| triple.0).collect();
    let b = triples.iter().map(|triple| triple.1).collect();
    // Distances are at most MAX_RADIUS (16).
    let distance = triples
        .iter()
        .map(|triple| u8::try_from(triple.2).unwrap_or(u8::MAX))
        .collect();
    (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, distance),
    )
}

fn invalid(error: fpdb_codec::CodecError) -> PyErr {
    Kind::InvalidInput.err(error.to_string())
}

impl std::fmt::Debug for PyBatchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchIndex")
            .field("queries", &self.index.len())
            .field("k", &self.k)
            .finish()
    }
}
