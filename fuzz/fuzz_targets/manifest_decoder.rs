//! The manifest decoder on untrusted bytes: it never panics, and whatever
//! decodes encodes back to the same bytes.
//!
//! The first input byte picks a mode:
//! - 0: the rest is a whole stored manifest (mostly stopped by the frame
//!   and checksum checks);
//! - 1: the rest is a bincode payload wrapped in a valid frame (magic,
//!   version, checksum), so the payload decoder itself meets garbage.
#![no_main]

use fpdb_codec::manifest::{Manifest, FORMAT_VERSION};
use libfuzzer_sys::fuzz_target;
use xxhash_rust::xxh3::xxh3_64;

fn framed(payload: &[u8]) -> Vec<u8> {
    let mut bytes = b"fpdbMAN\x01".to_vec();
    bytes.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
    bytes.extend_from_slice(payload);
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_be_bytes());
    bytes
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        framed(rest)
    };
    if let Ok(manifest) = Manifest::from_bytes(&bytes) {
        let again = manifest.to_bytes().expect("a decoded manifest encodes");
        assert_eq!(again, bytes, "decoded {manifest:?}");
    }
});
