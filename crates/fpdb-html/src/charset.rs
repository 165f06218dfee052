//! Bytes of a page to text: which encoding, and decoding with it.
//!
//! The encoding is taken from, in order: a byte-order mark, the HTTP
//! `Content-Type` charset, a `<meta charset>` or `<meta http-equiv>` in the
//! first 1,024 bytes, and otherwise a statistical guess (chardetng). A
//! declared encoding that does not decode cleanly while the guess does is
//! a lying label: the guess is used. Bytes no encoding explains become
//! U+FFFD (a documented lossy result, never an error).

use encoding_rs::{Encoding, UTF_8};

/// How far into a page a `<meta>` charset is looked for (as browsers do).
const META_PRESCAN_BYTES: usize = 1024;

/// Where the encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A UTF-8 or UTF-16 byte-order mark.
    ByteOrderMark,
    /// The `charset` parameter of the HTTP `Content-Type`.
    ContentType,
    /// A `<meta>` element near the start of the page.
    Meta,
    /// Guessed from the bytes (none was declared, or the declared one did
    /// not fit the bytes).
    Guess,
}

/// A page's text and how it was decoded.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    /// The encoding's WHATWG name, e.g. "UTF-8", "GBK", "gb18030", "Big5".
    pub encoding: &'static str,
    pub source: CharsetSource,
    /// Some bytes did not decode and were replaced by U+FFFD.
    pub lossy: bool,
}

/// Decodes `bytes` of an HTML page; `content_type` is the HTTP header's
/// value when there is one.
pub fn decode(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        #[expect(
            clippy::indexing_slicing,
            reason = "bom is the length of the byte order mark bytes begin with"
        )]
        let rest = &bytes[bom..];
        return finish(encoding, rest, CharsetSource::ByteOrderMark);
    }
    let declared = content_type
        .and_then(charset_parameter)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .map(|encoding| (encoding, CharsetSource::ContentType))
        .or_else(|| meta_charset(bytes).map(|encoding| (encoding, CharsetSource::Meta)));
    match declared {
        Some((encoding, source)) => {
            let decoded = finish(encoding, bytes, source);
            if !decoded.lossy {
                return decoded;
            }
            let guessed = guess(bytes);
            if guessed == encoding {
                return decoded;
            }
            let retry = finish(guessed, bytes, CharsetSource::Guess);
            if retry.lossy {
                decoded
            } else {
                retry
            }
        }
        None => finish(guess(bytes), bytes, CharsetSource::Guess),
    }
}

/// The encoding chardetng guesses for `bytes`. Bytes that are valid UTF-8
/// are UTF-8 to it (its UTF-8 candidate survives, and UTF-8 detection is
/// allowed): checking that first skips its scoring of every byte for
/// every other candidate, a fifth of extracting an undeclared page.
fn guess(bytes: &[u8]) -> &'static Encoding {
    if std::str::from_utf8(bytes).is_ok() {
        return UTF_8;
    }
    chardetng_guess(bytes)
}

fn chardetng_guess(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

fn finish(encoding: &'static Encoding, bytes: &[u8], source: CharsetSource) -> Decoded {
    // A page labelled UTF-16 without a BOM is treated as the spec says:
    // as UTF-8 (a label cannot make an ASCII-compatible parse UTF-16).
    let encoding = encoding.output_encoding();
    let encoding = if encoding == UTF_8 || encoding.is_ascii_compatible() {
        encoding
    } else {
        UTF_8
    };
    let (text, lossy) = encoding.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        encoding: encoding.name(),
        source,
        lossy,
    }
}

/// The `charset` parameter of a `Content-Type` value, unquoted.
fn charset_parameter(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(|c| c == '"' || c == '\''))
            .filter(|value| !value.is_empty())
    })
}

/// The encoding a `<meta charset=…>` or `<meta http-equiv content="…;
/// charset=…">` in the first 1,024 bytes names (a simplified version of
/// the HTML standard's prescan: it looks inside `<meta` tags only).
fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = bytes.get(..META_PRESCAN_BYTES).unwrap_or(bytes);
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(start) = find(&lower, b"<meta", from) {
        let end = find(&lower, b">", start).unwrap_or(lower.len());
        #[expect(
            clippy::indexing_slicing,
            reason = "end is found at or after start in lower, else lower.len()"
        )]
        let tag = &lower[start..end];
        if let Some(at) = find(tag, b"charset", 0) {
            #[expect(
                clippy::indexing_slicing,
                reason = "\"charset\" was found at `at` in tag"
            )]
            let value = &tag[at + b"charset".len()..];
            let value = value
                .iter()
                .skip_while(|&&b| b == b' ' || b == b'=')
                .skip_while(|&&b| b == b'"' || b == b'\'')
                .take_while(|&&b| !matches!(b, b'"' | b'\'' | b' ' | b';' | b'/' | b'>'))
                .copied()
                .collect::<Vec<u8>>();
            if let Some(encoding) = Encoding::for_label(&value) {
                return Some(encoding);
            }
        }
        from = end;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The UTF-8 shortcut answers as chardetng would: on text (ASCII,
        /// escapes as ISO-2022-JP starts them, CJK) and on any bytes.
        #[test]
        fn the_guess_is_chardetngs(
            text in "[a-z<>\u{1b}$B()\u{4e00}-\u{4e20}\u{e9}]{0,200}",
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            prop_assert_eq!(guess(text.as_bytes()), chardetng_guess(text.as_bytes()));
            prop_assert_eq!(guess(&bytes), chardetng_guess(&bytes));
        }
    }

    #[test]
    fn the_header_charset_is_used_and_a_lying_one_is_overruled() {
        let (gbk, _, _) = encoding_rs::GBK.encode("中文网页的正文内容，用来测试字符集。");
        let page = [b"<html><body><p>".as_slice(), &gbk, b"</p></body></html>"].concat();
        let declared = decode(&page, Some("text/html; charset=GBK"));
        assert_eq!(declared.source, CharsetSource::ContentType);
        assert!(declared.text.contains("中文网页的正文内容"));
        // Labelled UTF-8, the GBK bytes do not decode: the guess wins.
        let lying = decode(&page, Some("text/html; charset=utf-8"));
        assert_eq!(lying.source, CharsetSource::Guess);
        assert!(lying.text.contains("中文网页的正文内容"), "{}", lying.text);
        assert!(!lying.lossy);
    }

    #[test]
    fn meta_charset_and_bom_are_found() {
        let (gb, _, _) = encoding_rs::GB18030.encode("测试页面");
        let page = [
            b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb18030\"></head><body>".as_slice(),
            &gb,
        ]
        .concat();
        let decoded = decode(&page, None);
        assert_eq!(decoded.source, CharsetSource::Meta);
        assert!(decoded.text.contains("测试页面"));
        let bom = [b"\xEF\xBB\xBF".as_slice(), "页面".as_bytes()].concat();
        let decoded = decode(&bom, Some("text/html; charset=GBK"));
        assert_eq!(decoded.source, CharsetSource::ByteOrderMark);
        assert_eq!(decoded.text, "页面");
    }

    #[test]
    fn charset_parameters_parse() {
        assert_eq!(
            charset_parameter("text/html; charset=\"UTF-8\""),
            Some("UTF-8")
        );
        assert_eq!(charset_parameter("text/html;Charset=gbk;x=y"), Some("gbk"));
        assert_eq!(charset_parameter("text/html"), None);
        assert_eq!(charset_parameter("text/html; charset="), None);
    }
}
