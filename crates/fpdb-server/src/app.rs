//! The router: every endpoint, behind the token check, the time limit and
//! the metrics.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::auth::authorize;
use crate::error::ApiError;
use crate::openapi::serve_document;
use crate::routes::{
    backup, check_and_insert, check_and_insert_many, get_many, get_one, health, insert,
    insert_many, metrics, no_route, query, query_many, remove, remove_many, stats, wrong_method,
};
use crate::state::AppState;

/// Every endpoint, behind the token check, the time limit and the metrics.
pub(crate) fn router(state: AppState) -> Router {
    Router::new()
        .route("/v1/check_and_insert", post(check_and_insert))
        .route("/v1/check_and_insert_many", post(check_and_insert_many))
        .route("/v1/query", post(query))
        .route("/v1/query_many", post(query_many))
        .route("/v1/insert", post(insert))
        .route("/v1/insert_many", post(insert_many))
        .route("/v1/remove", post(remove))
        .route("/v1/remove_many", post(remove_many))
        .route("/v1/get", post(get_one))
        .route("/v1/get_many", post(get_many))
        .route("/v1/backup", post(backup))
        .route("/v1/stats", get(stats))
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(serve_document))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(middleware::from_fn_with_state(state.clone(), authorize))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// Times each request out at the limit and counts it in the metrics
/// (under its route, so unknown paths do not make new series).
async fn observe(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    // A shared string: cloned, not copied.
    let endpoint = request.extensions().get::<MatchedPath>().cloned();
    let response = match tokio::time::timeout(state.limits.request_timeout, next.run(request)).await
    {
        Ok(response) => response,
        Err(_) => ApiError::timeout().into_response(),
    };
    state.metrics.request(
        endpoint.as_ref().map_or("other", MatchedPath::as_str),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}
