//! Prepared `<id>\t<16 hex digits>` files for the loading benches, and a
//! reader that streams them in large chunks without a per-line
//! allocation.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use crate::rng::Rng;

/// Writes `n` documents with decimal ids and random fingerprints.
pub fn write(path: &Path, n: usize, seed: u64) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng::new(seed);
    for id in 0..n {
        writeln!(out, "{id}\t{:016x}", rng.next_u64())?;
    }
    out.flush()
}

/// Calls `each(id, fingerprint)` for every line of a prepared file.
pub fn read(path: &Path, mut each: impl FnMut(&str, u64)) -> std::io::Result<u64> {
    let mut file = File::open(path)?;
    let mut buffer = vec![0u8; 8 << 20];
    let mut filled = 0;
    let mut lines = 0;
    loop {
        let read = file.read(&mut buffer[filled..])?;
        filled += read;
        let complete = match buffer[..filled].iter().rposition(|&b| b == b'\n') {
            Some(end) => end + 1,
            None if read == 0 => filled,
            None => continue,
        };
        for line in buffer[..complete].split(|&b| b == b'\n') {
            if line.is_empty() {
                continue;
            }
            let tab = line.iter().position(|&b| b == b'\t').expect("a tab");
            let id = std::str::from_utf8(&line[..tab]).expect("UTF-8 id");
            let hex = std::str::from_utf8(&line[tab + 1..]).expect("hex");
            each(id, u64::from_str_radix(hex, 16).expect("16 hex digits"));
            lines += 1;
        }
        buffer.copy_within(complete..filled, 0);
        filled -= complete;
        if read == 0 {
            return Ok(lines);
        }
    }
}
