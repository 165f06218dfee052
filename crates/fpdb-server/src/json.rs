//! Request bodies: read up to the size limit, decoded as JSON into the
//! endpoint's struct, with errors that name the field at fault.

use axum::body::Bytes;
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
        decode(&body).map(Strict)
    }
}

/// Decodes `body`; the error names the field (`documents[3].fp`) where
/// decoding failed.
pub fn decode<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let message = error.inner().to_string();
        // "." is the whole body, "?" a place serde could not name; a
        // missing field is named by the message, not the path.
        let parent = if path == "." || path == "?" {
            ""
        } else {
            path.as_str()
        };
        let field = match missing_field(&message) {
            Some(name) if parent.is_empty() => name.to_string(),
            Some(name) => format!("{parent}.{name}"),
            None => parent.to_string(),
        };
        ApiError::invalid(field, message)
    })?;
    deserializer
        .end()
        .map_err(|error| ApiError::invalid("", error.to_string()))?;
    Ok(value)
}

/// The field named by serde's "missing field `id`" message.
fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")?
        .split_once('`')
        .map(|(name, _)| name)
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
