//! Web pages to the text fpdb fingerprints (pure: no I/O).
//!
//! A crawler holds HTML in whatever encoding the site chose, wrapped in
//! the site's template. [`page_text`] decodes it ([`charset`]: byte-order
//! mark, HTTP charset, `<meta>`, else a guess; a lying label is overruled
//! when the guess decodes cleanly) and extracts the main content with a
//! readability-style extractor, falling back to all visible text
//! ([`Extract`]), so that navigation, sidebars and footers do not decide
//! what is a near-duplicate.

pub mod charset;
mod extract;
mod page;
mod shape;
mod text;

pub use charset::CharsetSource;
pub use extract::{Extract, UnknownExtract};
pub use page::{page_text, HtmlError, Page, MAX_HTML_BYTES};
pub use shape::{MAX_DEPTH, MAX_ELEMENTS};
