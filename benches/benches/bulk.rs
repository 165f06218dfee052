//! Bulk loading N (id, fingerprint) pairs from a prepared file into an
//! empty database with the auto design for k = 3, against two baselines
//! in the same run: reading and parsing the file alone, building the same
//! set as the codec's in-memory index (no persistence at all), and writing
//! N keys through RocksDB's `SstFileWriter` alone.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench bulk
//! FPDB_BULK_BENCH_N=1000000 cargo bench -p fpdb-benches --bench bulk
//! ```
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fpdb::{BulkOptions, Db, Fingerprint, Options};
use fpdb_benches::fps_file;
use fpdb_codec::{MemIndex, DEFAULT_BLOCK_BYTES};

fn n() -> usize {
    fpdb_benches::env_usize("FPDB_BULK_BENCH_N", 10_000_000)
}

fn bulk(c: &mut Criterion) {
    let n = n();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.fps");
    fps_file::write(&input, n, 11).unwrap();
    let options = Options::default().expected_size(n as u64);

    let mut group = c.benchmark_group(format!("bulk_{n}"));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(n as u64));

    group.bench_function("parse_file_only", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            fps_file::read(&input, |id, fp| {
                sum = sum.wrapping_add(fp ^ id.len() as u64)
            })
            .unwrap();
            sum
        });
    });

    group.bench_function("memindex_build_baseline", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let started = Instant::now();
                let mut fps = Vec::with_capacity(n);
                fps_file::read(&input, |_, fp| fps.push(Fingerprint(fp))).unwrap();
                let design = options
                    .design
                    .resolve(options.k, options.expected_size)
                    .unwrap();
                let index = MemIndex::build(design, &fps, DEFAULT_BLOCK_BYTES).unwrap();
                total += started.elapsed();
                drop(index);
            }
            total
        });
    });

    // The floor under any loader that keeps one RocksDB key per id: the
    // same number of 15-byte keys through one `SstFileWriter`.
    group.bench_function("rocksdb_sst_writer_baseline", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let path = dir.path().join("baseline.sst");
                let options = rocksdb::Options::default();
                let mut writer = rocksdb::SstFileWriter::create(&options);
                let started = Instant::now();
                writer.open(&path).unwrap();
                for i in 0..n as u64 {
                    let mut key = [0u8; 15];
                    key[..8].copy_from_slice(&i.to_be_bytes());
                    writer.put(key, i.to_be_bytes()).unwrap();
                }
                writer.finish().unwrap();
                total += started.elapsed();
                std::fs::remove_file(&path).unwrap();
            }
            total
        });
    });

    group.bench_function("fpdb_bulk_load", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for round in 0..iterations {
                let path = dir.path().join(format!("db-{round}"));
                let mut db = Db::create(&path, options.clone()).unwrap();
                let started = Instant::now();
                let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
                fps_file::read(&input, |id, fp| loader.add(id, Fingerprint(fp)).unwrap()).unwrap();
                let summary = loader.finish().unwrap();
                total += started.elapsed();
                assert_eq!(summary.ids, n as u64);
                assert_eq!(summary.spilled_runs, 0);
                if round == 0 {
                    eprintln!(
                        "\n  reading {:?}, sorting and writing {:?}, ingesting {:?}",
                        summary.reading, summary.writing, summary.ingesting
                    );
                }
                drop(db);
                std::fs::remove_dir_all(&path).unwrap();
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, bulk);
criterion_main!(benches);
