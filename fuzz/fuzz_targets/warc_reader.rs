//! Any bytes as a WARC stream: records, skips or errors, never a panic,
//! and never a page larger than the record limit.
#![no_main]

use fpdb_input::{warc::MAX_RECORD_BYTES, WarcItem, WarcReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for item in WarcReader::new(data) {
        if let Ok(WarcItem::Page(page)) = item {
            assert!(page.body.len() as u64 <= MAX_RECORD_BYTES);
            assert!(page.offset < data.len() as u64);
        }
    }
});
