//! The requests and answers of every endpoint, as JSON.
//!
//! Fingerprints travel as 16 hex digits (`"0123456789abcdef"`), as `fpdb
//! export` prints them; a document is given by exactly one of `fp`,
//! `text`, `html` (a string, sent to the extractor as UTF-8 bytes) or
//! `html_base64` (the page's bytes as received, with `content_type`, the
//! HTTP header whose charset decodes them). Requests reject fields they do
//! not know, so a misspelt `txet` is an error, not a silently empty page.

use fpdb_fingerprint::Fingerprint;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

/// A fingerprint as 16 hex digits on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hex(pub Fingerprint);

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl utoipa::PartialSchema for Hex {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^(0[xX])?[0-9a-fA-F]{16}$"))
            .description(Some("A 64-bit simhash fingerprint: 16 hex digits"))
            .into()
    }
}

impl ToSchema for Hex {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("Fingerprint")
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse::<Fingerprint>()
            .map(Hex)
            .map_err(serde::de::Error::custom)
    }
}

/// `POST /v1/check_and_insert`: the document's stored near-duplicates,
/// then the document is stored.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The document's id (a URL, say).
    pub id: String,
    /// Largest distance of a match (default: the database's k).
    pub k: Option<u32>,
    /// The document's fingerprint (give one of fp, text, html, html_base64).
    pub fp: Option<Hex>,
    /// The document's text, fingerprinted with the database's simhash options.
    pub text: Option<String>,
    /// An HTML page as a string, already decoded (its declared charset is ignored).
    pub html: Option<String>,
    /// An HTML page's bytes as received, base64 (standard alphabet, padded).
    pub html_base64: Option<String>,
    /// The HTTP Content-Type of html or html_base64; its charset decodes the bytes.
    pub content_type: Option<String>,
}

/// `POST /v1/query`: the stored fingerprints within `k` of a document.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryRequest {
    /// Largest distance of a match (default: the database's k).
    pub k: Option<u32>,
    /// The document's fingerprint (give one of fp, text, html, html_base64).
    pub fp: Option<Hex>,
    /// The document's text, fingerprinted with the database's simhash options.
    pub text: Option<String>,
    /// An HTML page as a string, already decoded (its declared charset is ignored).
    pub html: Option<String>,
    /// An HTML page's bytes as received, base64 (standard alphabet, padded).
    pub html_base64: Option<String>,
    /// The HTTP Content-Type of html or html_base64; its charset decodes the bytes.
    pub content_type: Option<String>,
}

/// `POST /v1/insert`: stores a document (an id already stored gets the new
/// fingerprint).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertRequest {
    /// The document's id.
    pub id: String,
    /// The document's fingerprint (give one of fp, text, html, html_base64).
    pub fp: Option<Hex>,
    /// The document's text, fingerprinted with the database's simhash options.
    pub text: Option<String>,
    /// An HTML page as a string, already decoded (its declared charset is ignored).
    pub html: Option<String>,
    /// An HTML page's bytes as received, base64 (standard alphabet, padded).
    pub html_base64: Option<String>,
    /// The HTTP Content-Type of html or html_base64; its charset decodes the bytes.
    pub content_type: Option<String>,
}

/// A document with its id, in the batch requests.
pub type IdDocument = InsertRequest;

/// `POST /v1/remove` and `POST /v1/get`: one document by id.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdRequest {
    /// The document's id.
    pub id: String,
}

/// `POST /v1/check_and_insert_many`: each document checked and stored in
/// order, so later documents see earlier ones.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckManyRequest {
    /// The documents.
    pub documents: Vec<IdDocument>,
    /// Largest distance of a match (default: the database's k).
    pub k: Option<u32>,
}

/// `POST /v1/query_many`: many queries, answers in order.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryManyRequest {
    /// The fingerprints to query.
    pub fps: Vec<Hex>,
    /// Largest distance of a match (default: the database's k).
    pub k: Option<u32>,
}

/// `POST /v1/insert_many`: stores every document in one atomic write.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertManyRequest {
    /// The documents.
    pub documents: Vec<IdDocument>,
}

/// `POST /v1/remove_many` and `POST /v1/get_many`: documents by id.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IdsRequest {
    /// The documents' ids.
    pub ids: Vec<String>,
}

/// `POST /v1/backup`: a consistent copy of the database, made while the
/// server keeps serving, in the server's `--backup-dir`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BackupRequest {
    /// The backup's directory name inside `--backup-dir`: letters, digits,
    /// `.`, `_` and `-`, not starting with `.`; it must not exist.
    pub name: String,
}

/// The answer of a backup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BackupOut {
    /// Where the backup is, on the server.
    pub path: String,
    /// `checkpoint` (table files hard-linked when on the same file
    /// system) or `copy` (a read-only server's view, copied).
    pub method: String,
    /// The size of its files.
    pub bytes: u64,
}

/// A stored fingerprint near the query, with every document that has it;
/// or, for a text or page checked or queried in a database that confirms
/// candidates, one stored document the database's match rule matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MatchOut {
    /// The stored fingerprint.
    pub fingerprint: Hex,
    /// Its Hamming distance to the query.
    pub distance: u32,
    /// The documents with this fingerprint, in byte order (one document
    /// when the match was made under a confirming rule).
    pub ids: Vec<String>,
    /// The signatures' estimated resemblance that confirmed the match;
    /// absent when it was matched by distance alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// The answer of a check-and-insert.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CheckedOut {
    /// Stored near-duplicates, nearest first, never the document itself.
    pub matches: Vec<MatchOut>,
    /// The fingerprint the id had before, if it was stored.
    pub previous: Option<Hex>,
    /// The document's fingerprint.
    pub fingerprint: Hex,
}

/// The answer of a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct QueryOut {
    /// Stored fingerprints within k, nearest first.
    pub matches: Vec<MatchOut>,
    /// The query's fingerprint.
    pub fingerprint: Hex,
}

/// The answer of an insert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InsertedOut {
    /// The document's fingerprint.
    pub fingerprint: Hex,
}

/// The answer of a remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RemovedOut {
    /// The fingerprint the id had, `null` if it was not stored.
    pub previous: Option<Hex>,
}

/// The answer of a get.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GotOut {
    /// The fingerprint stored for the id, `null` if none.
    pub fingerprint: Option<Hex>,
}

/// The answer of `check_and_insert_many`, in input order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CheckedManyOut {
    /// One answer per document.
    pub results: Vec<CheckedOut>,
}

/// The answer of `query_many`, in input order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct QueryManyOut {
    /// The matches of each query.
    pub results: Vec<Vec<MatchOut>>,
}

/// The answer of `insert_many`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InsertedManyOut {
    /// Each document's fingerprint, in input order.
    pub fingerprints: Vec<Hex>,
}

/// The answer of `remove_many`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RemovedManyOut {
    /// How many of the ids were stored.
    pub removed: usize,
}

/// The answer of `get_many`, in input order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct GotManyOut {
    /// The fingerprint of each id, `null` where none is stored.
    pub fingerprints: Vec<Option<Hex>>,
}

/// `GET /health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HealthOut {
    /// Always `"ok"` while the server answers.
    pub status: String,
    /// Whether the server takes writes.
    pub read_only: bool,
}
