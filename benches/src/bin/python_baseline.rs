//! The Rust side of the Python bench (`crates/fpdb-py/bench/bench.py`):
//! the same calls on the same database and inputs as the Python package
//! makes, timed the same way, printed as one JSON object. Run by the
//! Python bench, not by hand:
//!
//! python_baseline DB PROBES.u64 BATCH.u64 TEXTS.jsonl K
//!
//! `*.u64` files hold little-endian fingerprints; TEXTS.jsonl one JSON
//! string per line.

use std::hint::black_box;
use std::io::BufRead;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fpdb::{Db, Fingerprint, OpenOptions};

fn read_u64s(path: &str) -> Result<Vec<Fingerprint>> {
    let bytes = std::fs::read(path).with_context(|| path.to_string())?;
    if bytes.len() % 8 != 0 {
        bail!(
            "{path}: {} bytes is not a whole number of u64s",
            bytes.len()
        );
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            Fingerprint(u64::from_le_bytes(word))
        })
        .collect())
}

fn read_texts(path: &str) -> Result<Vec<String>> {
    let file = std::fs::File::open(path).with_context(|| path.to_string())?;
    std::io::BufReader::new(file)
        .lines()
        .map(|line| Ok(serde_json::from_str::<String>(&line?)?))
        .collect()
}

/// Percentile of sorted nanoseconds, in microseconds.
fn percentile_us(sorted: &[u64], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted.get(index).copied().unwrap_or(0) as f64 / 1000.0
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, db_path, probes_path, batch_path, texts_path, k] = args.as_slice() else {
        bail!("usage: python_baseline DB PROBES.u64 BATCH.u64 TEXTS.jsonl K");
    };
    let k: u32 = k.parse()?;
    let probes = read_u64s(probes_path)?;
    let batch = read_u64s(batch_path)?;
    let texts = read_texts(texts_path)?;

    let opened = Instant::now();
    let db: Db = OpenOptions::new().read_only(true).open(db_path)?;
    let open_s = opened.elapsed().as_secs_f64();

    // Warm pass, then one timed call per probe (as the Python side does).
    for &q in &probes {
        black_box(db.query(q, k)?);
    }
    let mut nanos = Vec::with_capacity(probes.len());
    for &q in &probes {
        let started = Instant::now();
        black_box(db.query(q, k)?);
        nanos.push(started.elapsed().as_nanos() as u64);
    }
    let mean_us = nanos.iter().sum::<u64>() as f64 / nanos.len().max(1) as f64 / 1000.0;
    nanos.sort_unstable();

    // Twice, the faster counts: the first may read blocks from disk.
    let mut batch_s = f64::INFINITY;
    let mut batch_rows = 0;
    for _ in 0..2 {
        let started = Instant::now();
        let answers = black_box(db.query_batch(&batch, k)?);
        batch_s = batch_s.min(started.elapsed().as_secs_f64());
        batch_rows = answers.iter().map(Vec::len).sum();
    }

    let simhasher = db.simhasher().clone();
    let started = Instant::now();
    let fps: Vec<u64> = {
        use rayon::prelude::*;
        texts
            .par_iter()
            .map(|text| simhasher.fingerprint(text).0)
            .collect()
    };
    let fingerprint_s = started.elapsed().as_secs_f64();
    black_box(fps);

    println!(
        "{}",
        serde_json::json!({
            "open_s": open_s,
            "query_p50_us": percentile_us(&nanos, 0.5),
            "query_p99_us": percentile_us(&nanos, 0.99),
            "query_mean_us": mean_us,
            "batch_s": batch_s,
            "batch_rows": batch_rows,
            "fingerprint_many_s": fingerprint_s,
        })
    );
    Ok(())
}
