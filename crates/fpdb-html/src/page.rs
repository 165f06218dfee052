//! A web page (bytes and its HTTP content type) to the text fingerprinted.

use crate::charset::{decode, CharsetSource};
use crate::shape::{fits_dom, stripped_text};
use crate::text::{main_text, normalize, visible_text};
use crate::Extract;

/// Bytes of HTML read from a page; the rest is ignored (`Page::truncated`),
/// so a hostile 100 MB page costs bounded memory and time.
pub const MAX_HTML_BYTES: usize = 8 << 20;

/// What was taken from a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The text to fingerprint.
    pub text: String,
    /// What the text is: `Main` when the extractor found the main content,
    /// `All` when all visible text was taken (asked for; the extractor
    /// found nothing; or the page was nested deeper than
    /// [`crate::MAX_DEPTH`] or had more than [`crate::MAX_ELEMENTS`]
    /// elements and was read by a linear tag stripper instead of a DOM).
    pub extracted: Extract,
    /// The encoding the bytes were decoded with (WHATWG name).
    pub encoding: &'static str,
    /// Where the encoding came from.
    pub charset_source: CharsetSource,
    /// Some bytes did not decode and became U+FFFD.
    pub lossy: bool,
    /// The page was longer than [`MAX_HTML_BYTES`]; only its start was read.
    pub truncated: bool,
}

/// Why a page has no text to fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HtmlError {
    /// NUL bytes in a page that is not UTF-16: an image, an archive or
    /// other binary data labelled as HTML.
    #[error("binary data, not HTML (NUL byte at offset {offset})")]
    Binary {
        /// Where the first NUL byte is.
        offset: usize,
    },
}

/// The text of the page in `bytes` (`content_type` is the HTTP header's
/// value if there was one), extracted as `extract` says.
///
/// ```
/// use fpdb_html::{page_text, Extract};
/// let html = "<html><body><nav>首页 新闻 体育</nav><p>正文</p></body></html>";
/// let page = page_text(html.as_bytes(), Some("text/html; charset=utf-8"), Extract::All).unwrap();
/// assert_eq!(page.text, "首页 新闻 体育\n正文");
/// ```
pub fn page_text(
    bytes: &[u8],
    content_type: Option<&str>,
    extract: Extract,
) -> Result<Page, HtmlError> {
    let truncated = bytes.len() > MAX_HTML_BYTES;
    let bytes = bytes.get(..MAX_HTML_BYTES).unwrap_or(bytes);
    let decoded = decode(bytes, content_type);
    if decoded.source != CharsetSource::ByteOrderMark || !decoded.encoding.starts_with("UTF-16") {
        if let Some(offset) = memchr::memchr(0, bytes) {
            return Err(HtmlError::Binary { offset });
        }
    }
    let (text, extracted) = if !fits_dom(&decoded.text) {
        // Too deep or too large for the DOM paths in bounded time.
        (normalize(&stripped_text(&decoded.text)), Extract::All)
    } else {
        let main = match extract {
            Extract::Main => main_text(&decoded.text),
            Extract::All => None,
        };
        match main {
            Some(text) => (text, Extract::Main),
            None => (visible_text(&decoded.text), Extract::All),
        }
    };
    Ok(Page {
        text,
        extracted,
        encoding: decoded.encoding,
        charset_source: decoded.source,
        lossy: decoded.lossy,
        truncated,
    })
}
