//! A document of a request becomes a fingerprint exactly as the library
//! makes it: a fingerprint as given, text with the database's simhash
//! options, HTML through the database's extractor and then its simhash.

use fpdb::{Db, Fingerprint};
use fpdb_api::Source;

use crate::error::ApiError;

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
            .map_err(|error| {
                let name = if at.is_empty() {
                    "html".to_string()
                } else {
                    format!("{at}.html")
                };
                ApiError::from(error).at(name)
            }),
    }
}
