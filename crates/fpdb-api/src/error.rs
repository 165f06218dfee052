//! What is wrong with a request body.

/// A request that does not decode, or names its document wrongly: what
/// is wrong, and the field at fault as a path (`documents[3].fp`) when
/// one is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", field.as_deref().map(|f| format!("{f}: ")).unwrap_or_default())]
pub struct InvalidRequest {
    /// The field at fault, when one is.
    pub field: Option<String>,
    /// What is wrong, for people.
    pub message: String,
}

impl InvalidRequest {
    /// The error naming `field` (none when empty).
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidRequest {
            field: Some(field.into()).filter(|f: &String| !f.is_empty()),
            message: message.into(),
        }
    }
}
