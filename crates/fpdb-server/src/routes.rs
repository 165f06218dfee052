//! One handler per endpoint, each decoding its request, handing the work
//! to the library on a blocking thread and encoding the answer.

use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::Json;
use fpdb::{Db, Fingerprint};
use serde_json::{json, Value};

use fpdb_api::{
    BackupOut, BackupRequest, CheckManyRequest, CheckRequest, CheckedManyOut, CheckedOut,
    GotManyOut, GotOut, HealthOut, Hex, IdRequest, IdsRequest, InsertManyRequest, InsertRequest,
    InsertedManyOut, InsertedOut, MatchOut, QueryManyOut, QueryManyRequest, QueryOut, QueryRequest,
    RemovedManyOut, RemovedOut,
};
use fpdb_api::{HasContent, Source};

use crate::document::{compared, Compared};
use crate::error::{ApiError, ErrorBody};
use crate::json::Strict;
use crate::metrics::DbGauges;
use crate::state::AppState;

/// Runs `work` with the database on a blocking thread (the library's
/// calls wait on disk and on the writer lock).
async fn blocking<T, F>(state: &AppState, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Db) -> Result<T, ApiError> + Send + 'static,
{
    let db = state.db.clone();
    tokio::task::spawn_blocking(move || work(&db))
        .await
        .map_err(|error| ApiError::internal(format!("the request's work failed: {error}")))?
}

/// The distance asked, or the database's. The library checks it: queries
/// reach past the database's k, check-and-inserts do not.
fn k_or_default(db: &Db, k: Option<u32>) -> Result<u32, ApiError> {
    Ok(k.unwrap_or_else(|| db.k()))
}

/// 400 naming `field` unless `id` is a valid document id (checked before
/// a batch writes anything).
fn check_id(id: &str, field: &str) -> Result<(), ApiError> {
    if id.is_empty() || id.len() > fpdb::MAX_ID_BYTES {
        let error = fpdb::Error::BadId {
            len: id.len(),
            max: fpdb::MAX_ID_BYTES,
        };
        let mut error = ApiError::from(error);
        error.field = Some(field.to_string());
        return Err(error);
    }
    Ok(())
}

fn matches_out(found: Vec<fpdb::Match>) -> Vec<MatchOut> {
    found
        .into_iter()
        .map(|found| MatchOut {
            fingerprint: Hex(found.fingerprint),
            distance: found.distance,
            ids: found.ids,
            similarity: None,
        })
        .collect()
}

/// Documents a confirming rule matched, one per answer, as Python's
/// `Match` has them.
fn near_out(found: Vec<fpdb::Near>) -> Vec<MatchOut> {
    found
        .into_iter()
        .map(|near| MatchOut {
            fingerprint: Hex(near.fingerprint),
            distance: near.distance,
            ids: vec![near.id],
            similarity: near.similarity,
        })
        .collect()
}

fn checked_out(checked: fpdb::Checked, fp: Fingerprint) -> CheckedOut {
    CheckedOut {
        matches: matches_out(checked.matches),
        previous: checked.previous.map(Hex),
        fingerprint: Hex(fp),
    }
}

/// Checks and stores one document as the library does for its kind: a
/// bare fingerprint by distance within `k`, a signed one under the
/// database's match rule.
fn check_and_insert_one(
    db: &Db,
    id: &str,
    document: Compared,
    k: u32,
) -> Result<CheckedOut, ApiError> {
    match document {
        Compared::Bare(fp) => Ok(checked_out(db.check_and_insert(id, fp, k)?, fp)),
        Compared::Signed(document) => {
            let checked = db.check_and_insert_document(id, &document, &db.match_rule(k))?;
            Ok(CheckedOut {
                matches: near_out(checked.near),
                previous: checked.previous.map(Hex),
                fingerprint: Hex(document.fingerprint),
            })
        }
    }
}

/// Checks every document of a batch (id, one content form) and returns
/// their sources, before anything is fingerprinted or written.
fn batch_sources(documents: &[InsertRequest]) -> Result<Vec<Source>, ApiError> {
    documents
        .iter()
        .enumerate()
        .map(|(index, document)| {
            let at = format!("documents[{index}]");
            check_id(&document.id, &format!("{at}.id"))?;
            Ok(Source::of(document.content(), &at)?)
        })
        .collect()
}

/// What each of a batch's documents is compared as, in order.
fn batch_compared(db: &Db, sources: &[Source]) -> Result<Vec<Compared>, ApiError> {
    sources
        .iter()
        .enumerate()
        .map(|(index, source)| compared(source, db, &format!("documents[{index}]")))
        .collect()
}

/// The document's stored near-duplicates (never itself) and its id's previous fingerprint; then it is stored. Atomic across clients; answered once durable.
#[utoipa::path(
    post,
    path = "/v1/check_and_insert",
    request_body = CheckRequest,
    responses(
        (status = 200, body = CheckedOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn check_and_insert(
    State(state): State<AppState>,
    Strict(request): Strict<CheckRequest>,
) -> Result<Json<CheckedOut>, ApiError> {
    check_id(&request.id, "id")?;
    let source = Source::of(request.content(), "")?;
    let k = k_or_default(&state.db, request.k)?;
    // Text and pages are fingerprinted (and signed) on a blocking thread;
    // a bare fingerprint's write waits for its group with everyone else's
    // (`writer.rs`), a signed document's is one write of its own.
    let document = match source {
        Source::Fingerprint(fp) => Compared::Bare(fp),
        source => blocking(&state, move |db| compared(&source, db, "")).await?,
    };
    match document {
        Compared::Bare(fp) => {
            let checked = state.writer.check_and_insert(request.id, fp, k).await?;
            Ok(Json(checked_out(checked, fp)))
        }
        signed => {
            blocking(&state, move |db| {
                check_and_insert_one(db, &request.id, signed, k).map(Json)
            })
            .await
        }
    }
}

/// check_and_insert of each document in order (later documents see earlier ones); every document is checked before any is stored.
#[utoipa::path(
    post,
    path = "/v1/check_and_insert_many",
    request_body = CheckManyRequest,
    responses(
        (status = 200, body = CheckedManyOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn check_and_insert_many(
    State(state): State<AppState>,
    Strict(request): Strict<CheckManyRequest>,
) -> Result<Json<CheckedManyOut>, ApiError> {
    state
        .limits
        .check_batch("documents", request.documents.len())?;
    state
        .metrics
        .batch("/v1/check_and_insert_many", request.documents.len());
    let sources = batch_sources(&request.documents)?;
    blocking(&state, move |db| {
        let k = k_or_default(db, request.k)?;
        let compared = batch_compared(db, &sources)?;
        let ids = request
            .documents
            .iter()
            .map(|document| document.id.as_str());
        if compared.iter().any(|c| matches!(c, Compared::Signed(_))) {
            // Signed documents are checked under the match rule one by
            // one, in order, each seeing the ones before.
            let results = ids
                .zip(compared)
                .map(|(id, document)| check_and_insert_one(db, id, document, k))
                .collect::<Result<_, _>>()?;
            return Ok(Json(CheckedManyOut { results }));
        }
        let fps: Vec<Fingerprint> = compared.iter().map(Compared::fingerprint).collect();
        let documents: Vec<(&str, Fingerprint)> = ids.zip(fps.iter().copied()).collect();
        let results = db
            .check_and_insert_batch(&documents, k)?
            .into_iter()
            .zip(fps)
            .map(|(checked, fp)| checked_out(checked, fp))
            .collect();
        Ok(Json(CheckedManyOut { results }))
    })
    .await
}

/// Every stored fingerprint within k of the document, nearest first.
#[utoipa::path(
    post,
    path = "/v1/query",
    request_body = QueryRequest,
    responses(
        (status = 200, body = QueryOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn query(
    State(state): State<AppState>,
    Strict(request): Strict<QueryRequest>,
) -> Result<Json<QueryOut>, ApiError> {
    let source = Source::of(request.content(), "")?;
    blocking(&state, move |db| {
        let k = k_or_default(db, request.k)?;
        let matches = match compared(&source, db, "")? {
            Compared::Bare(fp) => (matches_out(db.query(fp, k)?), fp),
            Compared::Signed(document) => (
                near_out(db.find(&document, &db.match_rule(k))?),
                document.fingerprint,
            ),
        };
        Ok(Json(QueryOut {
            matches: matches.0,
            fingerprint: Hex(matches.1),
        }))
    })
    .await
}

/// query for many fingerprints; answers in input order.
#[utoipa::path(
    post,
    path = "/v1/query_many",
    request_body = QueryManyRequest,
    responses(
        (status = 200, body = QueryManyOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn query_many(
    State(state): State<AppState>,
    Strict(request): Strict<QueryManyRequest>,
) -> Result<Json<QueryManyOut>, ApiError> {
    state.limits.check_batch("fps", request.fps.len())?;
    state.metrics.batch("/v1/query_many", request.fps.len());
    blocking(&state, move |db| {
        let k = k_or_default(db, request.k)?;
        let fps: Vec<Fingerprint> = request.fps.iter().map(|hex| hex.0).collect();
        let found = db.query_batch(&fps, k)?;
        Ok(Json(QueryManyOut {
            results: found.into_iter().map(matches_out).collect(),
        }))
    })
    .await
}

/// Stores a document (an id already stored gets the new fingerprint); answered once durable.
#[utoipa::path(
    post,
    path = "/v1/insert",
    request_body = InsertRequest,
    responses(
        (status = 200, body = InsertedOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn insert(
    State(state): State<AppState>,
    Strict(request): Strict<InsertRequest>,
) -> Result<Json<InsertedOut>, ApiError> {
    check_id(&request.id, "id")?;
    let source = Source::of(request.content(), "")?;
    blocking(&state, move |db| {
        let document = compared(&source, db, "")?.into_document();
        db.insert_document(&request.id, &document)?;
        Ok(Json(InsertedOut {
            fingerprint: Hex(document.fingerprint),
        }))
    })
    .await
}

/// Stores every document in one atomic write; answered once durable.
#[utoipa::path(
    post,
    path = "/v1/insert_many",
    request_body = InsertManyRequest,
    responses(
        (status = 200, body = InsertedManyOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn insert_many(
    State(state): State<AppState>,
    Strict(request): Strict<InsertManyRequest>,
) -> Result<Json<InsertedManyOut>, ApiError> {
    state
        .limits
        .check_batch("documents", request.documents.len())?;
    state
        .metrics
        .batch("/v1/insert_many", request.documents.len());
    let sources = batch_sources(&request.documents)?;
    blocking(&state, move |db| {
        let documents: Vec<(&str, fpdb::Document)> = request
            .documents
            .iter()
            .map(|document| document.id.as_str())
            .zip(
                batch_compared(db, &sources)?
                    .into_iter()
                    .map(Compared::into_document),
            )
            .collect();
        db.insert_documents(&documents)?;
        Ok(Json(InsertedManyOut {
            fingerprints: documents
                .iter()
                .map(|(_, document)| Hex(document.fingerprint))
                .collect(),
        }))
    })
    .await
}

/// Forgets a document; answers the fingerprint it had.
#[utoipa::path(
    post,
    path = "/v1/remove",
    request_body = IdRequest,
    responses(
        (status = 200, body = RemovedOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn remove(
    State(state): State<AppState>,
    Strict(request): Strict<IdRequest>,
) -> Result<Json<RemovedOut>, ApiError> {
    check_id(&request.id, "id")?;
    blocking(&state, move |db| {
        let previous = db.remove(&request.id)?;
        Ok(Json(RemovedOut {
            previous: previous.map(Hex),
        }))
    })
    .await
}

/// Forgets many documents in one atomic write; answers how many were stored.
#[utoipa::path(
    post,
    path = "/v1/remove_many",
    request_body = IdsRequest,
    responses(
        (status = 200, body = RemovedManyOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token or server", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn remove_many(
    State(state): State<AppState>,
    Strict(request): Strict<IdsRequest>,
) -> Result<Json<RemovedManyOut>, ApiError> {
    state.limits.check_batch("ids", request.ids.len())?;
    state.metrics.batch("/v1/remove_many", request.ids.len());
    for (index, id) in request.ids.iter().enumerate() {
        check_id(id, &format!("ids[{index}]"))?;
    }
    blocking(&state, move |db| {
        let removed = db.remove_batch(&request.ids)?;
        Ok(Json(RemovedManyOut { removed }))
    })
    .await
}

/// The fingerprint stored for an id.
#[utoipa::path(
    post,
    path = "/v1/get",
    request_body = IdRequest,
    responses(
        (status = 200, body = GotOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Strict(request): Strict<IdRequest>,
) -> Result<Json<GotOut>, ApiError> {
    check_id(&request.id, "id")?;
    blocking(&state, move |db| {
        let fp = db.get(&request.id)?;
        Ok(Json(GotOut {
            fingerprint: fp.map(Hex),
        }))
    })
    .await
}

/// The fingerprint stored for each id, in order.
#[utoipa::path(
    post,
    path = "/v1/get_many",
    request_body = IdsRequest,
    responses(
        (status = 200, body = GotManyOut),
        (status = 400, description = "A malformed request; `field` names the part at fault", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 413, description = "Over the server's body or batch limit", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn get_many(
    State(state): State<AppState>,
    Strict(request): Strict<IdsRequest>,
) -> Result<Json<GotManyOut>, ApiError> {
    state.limits.check_batch("ids", request.ids.len())?;
    state.metrics.batch("/v1/get_many", request.ids.len());
    for (index, id) in request.ids.iter().enumerate() {
        check_id(id, &format!("ids[{index}]"))?;
    }
    blocking(&state, move |db| {
        let fingerprints = request
            .ids
            .iter()
            .map(|id| db.get(id).map(|fp| fp.map(Hex)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Json(GotManyOut { fingerprints }))
    })
    .await
}

/// A consistent copy of the database in the server's `--backup-dir`,
/// made while the server keeps serving (`Db::backup`).
#[utoipa::path(
    post,
    path = "/v1/backup",
    request_body = BackupRequest,
    responses(
        (status = 200, body = BackupOut),
        (status = 400, description = "A name that is not a plain directory name", body = ErrorBody),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
        (status = 403, description = "A read-only token, or a server without --backup-dir", body = ErrorBody),
        (status = 409, description = "A backup of that name exists", body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn backup(
    State(state): State<AppState>,
    Strict(request): Strict<BackupRequest>,
) -> Result<Json<BackupOut>, ApiError> {
    let Some(dir) = state.backup_dir.clone() else {
        return Err(ApiError::backups_off());
    };
    let name = request.name;
    let plain = !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
    if !plain {
        return Err(ApiError::invalid(
            "name",
            "a backup name is 1 to 255 letters, digits, '.', '_' or '-', not starting with '.'",
        ));
    }
    blocking(&state, move |db| {
        let made = db.backup(dir.join(&name))?;
        Ok(Json(BackupOut {
            path: made.path.display().to_string(),
            method: match made.method {
                fpdb::BackupMethod::Checkpoint => "checkpoint",
                fpdb::BackupMethod::Copy => "copy",
                _ => "other",
            }
            .into(),
            bytes: made.bytes,
        }))
    })
    .await
}

/// Counts and sizes of the database: the same keys as the Python
/// package's `Db.stats()`.
#[utoipa::path(
    get,
    path = "/v1/stats",
    responses((status = 200, body = Object), (status = 401, body = ErrorBody)),
    security((), ("bearer" = [])),
)]
pub(crate) async fn stats(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    blocking(&state, |db| {
        let stats = db.stats();
        let tables: Vec<Value> = stats
            .tables
            .iter()
            .map(|table| {
                json!({
                    "prefix_bits": table.prefix_bits,
                    "blocks": table.blocks,
                    "bytes": table.bytes,
                    "bits_per_fingerprint": table.bits_per_fingerprint,
                    "disk_bytes": table.disk_bytes,
                })
            })
            .collect();
        Ok(Json(json!({
            "fingerprints": stats.fingerprints,
            "ids": stats.ids,
            "k": stats.k,
            "design": stats.design,
            "simhash": stats.simhash.to_string(),
            "extract": stats.extract.to_string(),
            "confirmation": stats.confirmation.as_ref().map(|confirmation| json!({
                "signature": confirmation.layout().to_string(),
                "radius": confirmation.radius(),
                "threshold": confirmation.threshold(),
                "common_features": confirmation.common_features().hashes().len(),
                "weak_bits": confirmation.weak_bits(),
                "min_shared": confirmation.min_shared(),
                "numbers_from_permille": confirmation.numbers_from_permille(),
            })),
            "directory_bytes": stats.directory_bytes,
            "block_cache_bytes": stats.block_cache_bytes,
            "delta_added": stats.delta_added,
            "delta_removed": stats.delta_removed,
            "candidates_per_probe": stats.candidates_per_probe,
            "keys_per_block": stats.keys_per_block,
            "ids_disk_bytes": stats.ids_disk_bytes,
            "warnings": stats.warnings,
            "tables": tables,
        })))
    })
    .await
}

/// Whether the server answers; needs no token.
#[utoipa::path(get, path = "/health", responses((status = 200, body = HealthOut)))]
pub(crate) async fn health(State(state): State<AppState>) -> Json<HealthOut> {
    Json(HealthOut {
        status: "ok".into(),
        read_only: state.db.is_read_only(),
    })
}

/// Prometheus metrics: requests, latencies, batch sizes, database size.
#[utoipa::path(
    get,
    path = "/metrics",
    responses(
        (status = 200, description = "Prometheus text format 0.0.4", body = String, content_type = "text/plain"),
        (status = 401, body = ErrorBody),
    ),
    security((), ("bearer" = [])),
)]
pub(crate) async fn metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    let metrics = state.metrics.clone();
    let text = blocking(&state, move |db| {
        let stats = db.stats();
        let disk_bytes =
            stats.tables.iter().map(|t| t.disk_bytes).sum::<u64>() + stats.ids_disk_bytes;
        Ok(metrics.render(DbGauges {
            fingerprints: stats.fingerprints,
            ids: stats.ids,
            disk_bytes,
        }))
    })
    .await?;
    Ok(([(CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}

pub(crate) async fn no_route(request: Request) -> ApiError {
    ApiError::no_route(request.uri().path())
}

pub(crate) async fn wrong_method(request: Request) -> ApiError {
    ApiError::wrong_method(request.method().as_str(), request.uri().path())
}
