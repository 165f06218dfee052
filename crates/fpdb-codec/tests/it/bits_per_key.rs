//! Compression on uniformly random fingerprints: bits per key, headers and
//! first keys of every block included.

use fpdb_codec::{bits_per_fingerprint, EncodedTable, DEFAULT_BLOCK_BYTES};
use fpdb_testkit::Rng;

fn random_sorted_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    let mut keys: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn measure(log_n: u32) -> f64 {
    let keys = random_sorted_keys(1 << log_n, u64::from(log_n));
    let table = EncodedTable::build(&keys, DEFAULT_BLOCK_BYTES).unwrap();
    assert_eq!(table.decode_all().unwrap(), keys);
    let bits = bits_per_fingerprint(table.encoded_bytes(), keys.len());
    println!(
        "N = 2^{log_n}: {bits:.2} bits/key (64 - log2 N + 3.4 = {:.1}), {} blocks, {:.1} keys/block",
        64.0 - f64::from(log_n) + 3.4,
        table.block_count(),
        keys.len() as f64 / table.block_count() as f64
    );
    bits
}

#[test]
fn a_million_random_keys_take_at_most_48_bits_each() {
    assert!(measure(16) <= 64.0 - 16.0 + 3.4 + 1.0);
    assert!(measure(20) <= 48.0);
}

/// 16M keys: a few seconds in release, slow in debug, hence ignored by
/// default: `cargo test --release -p fpdb-codec --test it bits_per_key:: -- --ignored`.
#[test]
#[ignore = "16M keys; run with --ignored in release"]
fn sixteen_million_random_keys_take_at_most_44_bits_each() {
    assert!(measure(24) <= 44.0);
}
