//! Any bytes, with any Content-Type, as a web page: text or an error,
//! never a panic, and the text is valid UTF-8 by construction.
#![no_main]

use fpdb_html::{page_text, Extract};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the extraction and whether a header is given;
    // the header is the next up-to-40 bytes when it is.
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let extract = if choice & 1 == 0 { Extract::Main } else { Extract::All };
    let (header, page) = if choice & 2 == 0 {
        (None, rest)
    } else {
        let cut = rest.len().min(40);
        let (header, page) = rest.split_at(cut);
        (std::str::from_utf8(header).ok(), page)
    };
    if let Ok(page) = page_text(page, header, extract) {
        assert!(page.text.len() <= page_text_bound(rest.len()));
    }
});

/// Decoding can grow text (a byte may become U+FFFD, 3 bytes; an entity
/// 10 bytes at most), never beyond 4 bytes per input byte.
fn page_text_bound(input: usize) -> usize {
    input.saturating_mul(4) + 16
}
