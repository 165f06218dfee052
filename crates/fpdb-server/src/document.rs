//! A document of a request becomes what the library compares, exactly as
//! the library makes it: a fingerprint as given; text with the database's
//! simhash options, HTML through the database's extractor first; and for a
//! database that confirms candidates, text and HTML also signed, so they
//! are stored, checked and queried under the database's match rule.

use fpdb::{Db, Document, Fingerprint};
use fpdb_api::Source;

use crate::error::ApiError;

/// What a request's document is compared as.
pub enum Compared {
    /// A fingerprint alone: matched by distance within k.
    Bare(Fingerprint),
    /// Text or a page of a confirming database, with its signature.
    Signed(Document),
}

impl Compared {
    /// The document's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        match self {
            Compared::Bare(fp) => *fp,
            Compared::Signed(document) => document.fingerprint,
        }
    }

    /// As a library document (a bare one has no signature).
    pub fn into_document(self) -> Document {
        match self {
            Compared::Bare(fp) => Document::from(fp),
            Compared::Signed(document) => document,
        }
    }
}

/// The fingerprint of `source` under `db`'s options; `at` is the path of
/// the request object holding it (`""` or `documents[3]`), for the field
/// named in errors.
pub fn fingerprint(source: &Source, db: &Db, at: &str) -> Result<Fingerprint, ApiError> {
    match source {
        Source::Fingerprint(fp) => Ok(*fp),
        Source::Text(text) => Ok(db.fingerprint_text(text)),
        Source::Html(bytes, content_type) => db
            .fingerprint_html(bytes, content_type.as_deref())
            .map(|(fp, _)| fp)
            .map_err(|error| ApiError::from(error).at(field(at, "html"))),
    }
}

/// What `source` is compared as under `db`: signed when `db` confirms
/// candidates and the source is text or a page (a text without features
/// is a 400 naming its field), else its fingerprint alone.
pub fn compared(source: &Source, db: &Db, at: &str) -> Result<Compared, ApiError> {
    if db.confirmation().is_none() {
        return fingerprint(source, db, at).map(Compared::Bare);
    }
    match source {
        Source::Fingerprint(fp) => Ok(Compared::Bare(*fp)),
        Source::Text(text) => db
            .document_text(text)
            .map(Compared::Signed)
            .map_err(|error| ApiError::from(error).at(field(at, "text"))),
        Source::Html(bytes, content_type) => db
            .document_html(bytes, content_type.as_deref())
            .map(|(document, _)| Compared::Signed(document))
            .map_err(|error| ApiError::from(error).at(field(at, "html"))),
    }
}

/// `name` inside the request object at `at`.
fn field(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}
