//! A request body decoded as JSON into the endpoint's struct, strictly
//! (the structs reject unknown fields), with errors that name the field.

use serde::de::DeserializeOwned;

use crate::error::InvalidRequest;

/// Decodes `body`; the error names the field (`documents[3].fp`) where
/// decoding failed. Any bytes give a request or an error, never a panic.
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, InvalidRequest> {
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
        InvalidRequest::new(field, message)
    })?;
    deserializer
        .end()
        .map_err(|error| InvalidRequest::new("", error.to_string()))?;
    Ok(value)
}

/// The field named by serde's "missing field `id`" message.
fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")?
        .split_once('`')
        .map(|(name, _)| name)
}
