//! The manifest decoder on untrusted bytes: it never panics, and whatever
//! decodes encodes back to the same bytes (a format-1 manifest encodes to
//! a format-2 one that decodes to the same manifest).
//!
//! The first input byte picks a mode:
//! - 0: the rest is a whole stored manifest (mostly stopped by the frame
//!   and checksum checks);
//! - 1: the rest is a bincode payload in a valid format-2 frame, so the
//!   payload decoder itself meets garbage;
//! - 2: the same in a valid format-1 frame, so the upgrade of the
//!   embedded design and code books meets garbage.
#![no_main]

use fpdb_codec::manifest::{Manifest, FORMAT_VERSION};
use fpdb_codec::format::{encode_frame, legacy, Kind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = match mode % 3 {
        0 => rest.to_vec(),
        1 => encode_frame(Kind::Manifest, FORMAT_VERSION as u8, rest),
        _ => legacy::frame_manifest_v1(rest),
    };
    if let Ok(stored) = Manifest::from_bytes(&bytes) {
        let again = stored.manifest.to_bytes().expect("a decoded manifest encodes");
        if stored.version == FORMAT_VERSION {
            assert_eq!(again, bytes, "decoded {stored:?}");
        }
        let reread = Manifest::from_bytes(&again).expect("an encoded manifest decodes");
        assert_eq!(reread.manifest, stored.manifest);
    }
});
