//! Size statistics.

/// Bits per fingerprint: `encoded_bytes × 8 / fingerprints` (0 for none).
/// Pass the bytes of every block, headers and first keys included.
pub fn bits_per_fingerprint(encoded_bytes: usize, fingerprints: usize) -> f64 {
    if fingerprints == 0 {
        return 0.0;
    }
    encoded_bytes as f64 * 8.0 / fingerprints as f64
}
