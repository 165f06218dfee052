//! The small metadata decoders on untrusted bytes: table designs, Huffman
//! code books and block directories. Anything that decodes must serialize
//! back to the same bytes.
#![no_main]

use fpdb_codec::{BlockDirectory, HuffmanCode, TableDesign};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(design) = TableDesign::from_bytes(data) {
        assert_eq!(design.to_bytes(), data);
    }
    if let Ok(code) = HuffmanCode::from_bytes(data) {
        assert_eq!(code.to_bytes(), data);
    }
    // Format-1 layouts (read by old databases and their upgrade): no
    // panic, and what decodes has a format-2 form that decodes the same.
    if let Ok(design) = TableDesign::from_v1_bytes(data) {
        assert_eq!(TableDesign::from_bytes(&design.to_bytes()).as_ref(), Ok(&design));
    }
    if let Ok(code) = HuffmanCode::from_v1_bytes(data) {
        assert_eq!(HuffmanCode::from_bytes(&code.to_bytes()).as_ref(), Ok(&code));
    }
    if let Ok(directory) = BlockDirectory::from_v1_bytes(data) {
        assert_eq!(BlockDirectory::from_bytes(&directory.to_bytes()).as_ref(), Ok(&directory));
    }
    if let Ok(directory) = BlockDirectory::from_bytes(data) {
        assert_eq!(directory.to_bytes(), data);
        let lo = directory.last_keys().first().copied().unwrap_or(0);
        let range = directory.locate(lo, lo.wrapping_mul(3));
        assert!(range.end <= directory.len());
    }
    // The fuzzer rarely finds a valid checksum by itself: also try the
    // bytes as code lengths with a correct header and checksum.
    if data.len() >= 64 {
        let mut lengths = [0u8; 64];
        lengths.copy_from_slice(&data[..64]);
        if let Ok(code) = HuffmanCode::from_lengths(&lengths) {
            assert_eq!(
                HuffmanCode::from_bytes(&code.to_bytes()).as_ref(),
                Ok(&code)
            );
        }
    }
});
