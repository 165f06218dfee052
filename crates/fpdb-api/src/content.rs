//! The document of a request: exactly one of a fingerprint, text, an HTML
//! string or HTML bytes in base64, checked before anything is
//! fingerprinted.

use base64::Engine as _;
use fpdb_fingerprint::Fingerprint;

use crate::error::InvalidRequest;
use crate::messages::{CheckRequest, Hex, InsertRequest, QueryRequest};

/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The content fields of a request, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Content<'a> {
    /// `fp`.
    pub fp: Option<Hex>,
    /// `text`.
    pub text: Option<&'a str>,
    /// `html`.
    pub html: Option<&'a str>,
    /// `html_base64`.
    pub html_base64: Option<&'a str>,
    /// `content_type`.
    pub content_type: Option<&'a str>,
}

/// A request that carries one document's content.
pub trait HasContent {
    /// Its content fields.
    fn content(&self) -> Content<'_>;
}

macro_rules! has_content {
    ($($request:ty),*) => {$(
        impl HasContent for $request {
            fn content(&self) -> Content<'_> {
                Content {
                    fp: self.fp,
                    text: self.text.as_deref(),
                    html: self.html.as_deref(),
                    html_base64: self.html_base64.as_deref(),
                    content_type: self.content_type.as_deref(),
                }
            }
        }
    )*};
}

has_content!(CheckRequest, QueryRequest, InsertRequest);

/// What a document's content is, checked but not yet fingerprinted (which
/// for text and HTML is work for a blocking thread).
#[derive(Debug, Clone)]
pub enum Source {
    /// A fingerprint as given.
    Fingerprint(Fingerprint),
    /// Text.
    Text(String),
    /// An HTML page's bytes and its Content-Type.
    Html(Vec<u8>, Option<String>),
}

impl Source {
    /// Checks that `content` names exactly one document form; `at` is the
    /// path of the request object holding it (`""` or `documents[3]`), for
    /// the field named in errors.
    pub fn of(content: Content<'_>, at: &str) -> Result<Source, InvalidRequest> {
        let field = |name: &str| {
            if at.is_empty() {
                name.to_string()
            } else {
                format!("{at}.{name}")
            }
        };
        let given = [
            content.fp.is_some(),
            content.text.is_some(),
            content.html.is_some(),
            content.html_base64.is_some(),
        ]
        .iter()
        .filter(|&&given| given)
        .count();
        if given != 1 {
            let what = if given == 0 { "no" } else { "more than one" };
            return Err(InvalidRequest::new(
                field("fp"),
                format!("{what} document given: send exactly one of fp, text, html, html_base64"),
            ));
        }
        if content.content_type.is_some() && content.html.is_none() && content.html_base64.is_none()
        {
            return Err(InvalidRequest::new(
                field("content_type"),
                "content_type is for html or html_base64 documents",
            ));
        }
        let content_type = content.content_type.map(str::to_owned);
        Ok(if let Some(fp) = content.fp {
            Source::Fingerprint(fp.0)
        } else if let Some(text) = content.text {
            Source::Text(text.to_owned())
        } else if let Some(html) = content.html {
            // Already decoded: sent on as UTF-8 behind a byte-order mark,
            // which outranks a charset the page or content_type declares
            // (as the Python package does with a str page).
            let mut page = Vec::with_capacity(UTF8_BOM.len() + html.len());
            page.extend_from_slice(UTF8_BOM);
            page.extend_from_slice(html.as_bytes());
            Source::Html(page, content_type)
        } else {
            let encoded = content.html_base64.unwrap_or_default();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|error| {
                    InvalidRequest::new(field("html_base64"), format!("not base64: {error}"))
                })?;
            Source::Html(bytes, content_type)
        })
    }
}
