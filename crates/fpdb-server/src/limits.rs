//! How much one request may ask of the server.

use std::time::Duration;

/// Limits on each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body; a larger one gets 413 before it is decoded.
    pub max_body_bytes: usize,
    /// Most documents, fingerprints or ids in one batch request (413).
    pub max_batch: usize,
    /// Longest a request may take from its headers to its answer,
    /// reading its body included (503 after it): a slow client cannot
    /// hold a connection and a thread.
    pub request_timeout: Duration,
    /// Longest a client may take to send a request's headers.
    pub header_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 64 << 20,
            max_batch: 100_000,
            request_timeout: Duration::from_secs(60),
            header_timeout: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// 413 naming `field` when a batch holds more than `max_batch` items.
    pub(crate) fn check_batch(&self, field: &str, len: usize) -> Result<(), crate::ApiError> {
        if len > self.max_batch {
            return Err(crate::ApiError::too_large(
                Some(field.to_string()),
                format!(
                    "{len} items in {field}; this server takes at most {} per request",
                    self.max_batch
                ),
            ));
        }
        Ok(())
    }
}
