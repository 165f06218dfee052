//! Benchmarks of fpdb-codec: block encode/decode throughput, bits per key,
//! `MemIndex::query` latency against a brute-force scan in the same run,
//! and `MemIndex::near_pairs`.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench codec
//! FPDB_CODEC_BENCH_SIZES=1000000 cargo bench -p fpdb-benches --bench codec   # skip 10M
//! ```
//!
//! Criterion reports the mean time per query over batches; the bench also
//! times 20,000 single queries and prints their p50/p90/p99, since the
//! latency target is a percentile.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use fpdb_codec::{
    bits_per_fingerprint, BlockDecoder, BlockEncoder, ChecksumPolicy, EncodedTable, HuffmanCode,
    MemIndex, TableDesign, DEFAULT_BLOCK_BYTES,
};
use fpdb_simhash::Fingerprint;

/// splitmix64: tiny, deterministic, good enough for uniform test keys.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn random_sorted_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    let mut keys: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn sizes() -> Vec<usize> {
    match std::env::var("FPDB_CODEC_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .filter_map(|size| size.trim().parse().ok())
            .collect(),
        Err(_) => vec![1_000_000, 10_000_000],
    }
}

fn bench_block_codec(criterion: &mut Criterion) {
    for log_n in [16u32, 20, 24] {
        let keys = random_sorted_keys(1 << log_n, u64::from(log_n));
        let table = EncodedTable::build(&keys, DEFAULT_BLOCK_BYTES).expect("encodes");
        println!(
            "bits/key N=2^{log_n}: {:.2} ({} blocks, {:.1} keys/block, 64 - log2 N + 3.4 = {:.1})",
            bits_per_fingerprint(table.encoded_bytes(), keys.len()),
            table.block_count(),
            keys.len() as f64 / table.block_count() as f64,
            64.0 - f64::from(log_n) + 3.4
        );
    }

    let keys = random_sorted_keys(1 << 20, 1);
    let code = HuffmanCode::for_sorted_keys(&keys);
    let encoder = BlockEncoder::new(&code, DEFAULT_BLOCK_BYTES);
    let blocks = encoder.encode_table(&keys).expect("encodes");
    let mut group = criterion.benchmark_group("block_codec_2^20_keys");
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function("encode_table", |b| {
        b.iter(|| encoder.encode_table(black_box(&keys)).expect("encodes"))
    });
    for (name, policy) in [
        ("decode_skip_checksum", ChecksumPolicy::Skip),
        ("decode_verify_checksum", ChecksumPolicy::Verify),
    ] {
        let decoder = BlockDecoder::new(&code, policy);
        let mut buffer = Vec::new();
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut total = 0usize;
                for block in &blocks {
                    decoder
                        .decode(black_box(block.bytes()), &mut buffer)
                        .expect("decodes");
                    total += buffer.len();
                }
                total
            })
        });
    }
    // The same blocks two at a time, in one interleaved loop (how table
    // scans decode).
    let decoder = BlockDecoder::new(&code, ChecksumPolicy::Skip);
    let (mut first, mut second) = (Vec::new(), Vec::new());
    group.bench_function("decode_two_at_a_time_skip_checksum", |b| {
        b.iter(|| {
            let mut total = 0usize;
            let mut pairs = blocks.chunks_exact(2);
            for pair in &mut pairs {
                if let [one, two] = pair {
                    let [a, b] = decoder.decode_two(
                        [black_box(one.bytes()), black_box(two.bytes())],
                        [&mut first, &mut second],
                    );
                    a.expect("decodes");
                    b.expect("decodes");
                    total += first.len() + second.len();
                }
            }
            for block in pairs.remainder() {
                decoder
                    .decode(black_box(block.bytes()), &mut first)
                    .expect("decodes");
                total += first.len();
            }
            assert_eq!(total, keys.len());
            total
        })
    });
    group.finish();
}

/// Queries: half are stored fingerprints with 0–3 bits flipped (they have
/// answers), half are uniformly random (they usually have none).
fn make_queries(stored: &[Fingerprint], count: usize) -> Vec<Fingerprint> {
    let mut rng = SplitMix64(0xC0DE);
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                let base = stored
                    .get(rng.next() as usize % stored.len())
                    .copied()
                    .unwrap_or_default();
                let mut flipped = base.0;
                for _ in 0..rng.next() % 4 {
                    flipped ^= 1 << (rng.next() % 64);
                }
                Fingerprint(flipped)
            } else {
                Fingerprint(rng.next())
            }
        })
        .collect()
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

fn bench_query(criterion: &mut Criterion, n: usize) {
    let k = 3;
    let mut rng = SplitMix64(n as u64);
    let stored: Vec<Fingerprint> = (0..n).map(|_| Fingerprint(rng.next())).collect();
    let queries = make_queries(&stored, 20_000);

    let mut group = criterion.benchmark_group(format!("query_k3_n{n}"));
    group.throughput(Throughput::Elements(1));

    // (design, block size): the default 1 KiB blocks, and 256-byte blocks,
    // which trade ~1.5 bits per key for decoding a quarter as many keys per
    // probe.
    let auto = TableDesign::auto(k, n as u64).expect("auto design");
    let mut configs = vec![(auto.clone(), DEFAULT_BLOCK_BYTES), (auto.clone(), 256)];
    for name in ["10", "16"] {
        let design = TableDesign::from_name(k, name).expect("named design");
        if design != auto {
            configs.push((design.clone(), DEFAULT_BLOCK_BYTES));
            configs.push((design, 256));
        }
    }
    let mut brute_mean = None;
    {
        let raw: Vec<u64> = stored.iter().map(|fp| fp.0).collect();
        let mut next = 0usize;
        group.bench_function("brute_force_scan", |b| {
            b.iter(|| {
                let query = queries
                    .get(next % queries.len())
                    .copied()
                    .unwrap_or_default();
                next += 1;
                raw.iter()
                    .filter(|&&fp| (fp ^ query.0).count_ones() <= k)
                    .count()
            })
        });
        let start = Instant::now();
        let rounds = 20;
        for query in queries.iter().take(rounds) {
            black_box(
                raw.iter()
                    .filter(|&&fp| (fp ^ query.0).count_ones() <= k)
                    .count(),
            );
        }
        brute_mean = brute_mean.or(Some(start.elapsed() / rounds as u32));
    }
    for (design, block_bytes) in configs {
        let label = format!(
            "{}{}/{block_bytes}B",
            design.name(),
            if design == auto { " (auto)" } else { "" }
        );
        let start = Instant::now();
        let index = MemIndex::build(design, &stored, block_bytes).expect("builds");
        println!(
            "built {} with {block_bytes}-byte blocks over {n} fingerprints in {:.1} s: {:.2} bits/key/table, {} MiB, prefix bitmaps {} MiB",
            index.design(),
            start.elapsed().as_secs_f64(),
            bits_per_fingerprint(index.encoded_bytes(), n * index.tables().len()),
            index.encoded_bytes() >> 20,
            index.prefix_bitmap_bytes() >> 20
        );
        let mut buffer = Vec::new();
        let mut out = Vec::new();
        let mut next = 0usize;
        group.bench_function(BenchmarkId::new("mem_index_query", &label), |b| {
            b.iter(|| {
                let query = queries
                    .get(next % queries.len())
                    .copied()
                    .unwrap_or_default();
                next += 1;
                index
                    .query_with(query, k, &mut buffer, &mut out)
                    .expect("queries");
                out.len()
            })
        });
        // Single-query latencies for percentiles.
        let mut latencies = Vec::with_capacity(queries.len());
        let mut found = 0usize;
        for &query in &queries {
            let start = Instant::now();
            index
                .query_with(query, k, &mut buffer, &mut out)
                .expect("queries");
            latencies.push(start.elapsed());
            found += out.len();
        }
        latencies.sort_unstable();
        let p50 = percentile(&latencies, 0.5);
        println!(
            "query latency {label} n={n} k={k}: p50 {:?} p90 {:?} p99 {:?} max {:?} ({found} hits over {} queries); brute force mean {:?} = {:.0}x p50",
            p50,
            percentile(&latencies, 0.9),
            percentile(&latencies, 0.99),
            latencies.last().copied().unwrap_or_default(),
            queries.len(),
            brute_mean.unwrap_or_default(),
            brute_mean.unwrap_or_default().as_secs_f64() / p50.as_secs_f64().max(1e-12),
        );
        if n <= 1_000_000 && block_bytes == DEFAULT_BLOCK_BYTES {
            let start = Instant::now();
            let pairs = index.near_pairs(k).expect("near pairs");
            println!(
                "near_pairs {label} n={n} k={k}: {} pairs in {:.3} s",
                pairs.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    bench_block_codec(&mut criterion);
    for n in sizes() {
        bench_query(&mut criterion, n);
    }
    criterion.final_summary();
}
