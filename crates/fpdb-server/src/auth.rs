//! Who may do what: every request but `/health` needs a bearer token when
//! the server has a token file; writes need a read-write token and a
//! server that is not read-only. A refused request is answered before its
//! body is read, so it touches nothing.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;
use crate::tokens::Access;

/// Whether `path` changes the database.
pub(crate) fn is_write(path: &str) -> bool {
    matches!(
        path,
        "/v1/check_and_insert"
            | "/v1/check_and_insert_many"
            | "/v1/insert"
            | "/v1/insert_many"
            | "/v1/remove"
            | "/v1/remove_many"
    )
}

/// The middleware: 401 without a valid token, 403 for a write the token
/// or the server does not allow.
pub(crate) async fn authorize(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    if path == "/health" {
        return next.run(request).await;
    }
    let access = match &state.tokens {
        None => Access::ReadWrite,
        Some(tokens) => {
            let presented = request
                .headers()
                .get(AUTHORIZATION)
                .and_then(|value| value.as_bytes().strip_prefix(b"Bearer "))
                .and_then(|token| tokens.access(token));
            match presented {
                Some(access) => access,
                None => return ApiError::unauthorized().into_response(),
            }
        }
    };
    if is_write(path) && state.db.is_read_only() {
        return ApiError::read_only("this server is read-only (fpdb serve --read-only)")
            .into_response();
    }
    // A backup changes nothing in the database (a read-only server makes
    // them too) but writes to the server's disk.
    if (is_write(path) || path == "/v1/backup") && access == Access::ReadOnly {
        return ApiError::read_only("this token is read-only").into_response();
    }
    next.run(request).await
}
