//! Request bodies: read up to the size limit, then decoded as JSON into
//! the endpoint's struct (`fpdb_api::decode`).

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::limits::Limits;

/// A JSON request body decoded strictly (unknown fields are errors).
#[derive(Debug)]
pub struct Strict<T>(pub T);

impl<S, T> FromRequest<S> for Strict<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
    Limits: axum::extract::FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let limits = <Limits as axum::extract::FromRef<S>>::from_ref(state);
        let body = axum::body::to_bytes(request.into_body(), limits.max_body_bytes)
            .await
            .map_err(|error| body_error(&error, limits.max_body_bytes))?;
        Ok(Strict(fpdb_api::decode(&body)?))
    }
}

fn body_error(error: &axum::Error, limit: usize) -> ApiError {
    // `to_bytes` reports its limit with an error whose source is
    // `LengthLimitError`; anything else is the connection failing.
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if cause.is::<http_body_util::LengthLimitError>() {
            return ApiError::too_large(None, format!("request body over {limit} bytes"));
        }
        source = cause.source();
    }
    ApiError::invalid("", format!("reading the request body: {error}"))
}
