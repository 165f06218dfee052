//! The one place library errors become HTTP statuses, and the errors of
//! starting a server.

use std::path::PathBuf;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A failed request: its status and what the client is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable name for the kind of failure (`invalid_input`,
    /// `no_features`, `unauthorized`, `read_only`, `limit_exceeded`, `corrupt`,
    /// `storage`, `not_found`, `method_not_allowed`, `timeout`,
    /// `internal`); clients map it to
    /// their exception classes.
    pub kind: &'static str,
    /// What went wrong, for people.
    pub message: String,
    /// The request field at fault, as a path (`documents[3].fp`), when
    /// one is.
    pub field: Option<String>,
}

impl ApiError {
    /// 400: the request is malformed; `field` names the part at fault.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            kind: "invalid_input",
            message: message.into(),
            field: Some(field.into()).filter(|f: &String| !f.is_empty()),
        }
    }

    /// 413: the request is larger than the server takes.
    pub fn too_large(field: Option<String>, message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            kind: "limit_exceeded",
            message: message.into(),
            field,
        }
    }

    /// 401: no token, or one the server does not know.
    pub fn unauthorized() -> Self {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            kind: "unauthorized",
            message: "a valid bearer token is required (Authorization: Bearer <token>)".into(),
            field: None,
        }
    }

    /// 403: a write with a read-only token, or to a read-only server.
    pub fn read_only(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::FORBIDDEN,
            kind: "read_only",
            message: message.into(),
            field: None,
        }
    }

    /// 403: backups through the API were not enabled (`--backup-dir`).
    pub fn backups_off() -> Self {
        ApiError {
            status: StatusCode::FORBIDDEN,
            kind: "backups_off",
            message: "this server makes no backups (start it with --backup-dir DIR)".into(),
            field: None,
        }
    }

    /// 404: no such endpoint.
    pub fn no_route(path: &str) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            kind: "not_found",
            message: format!("no endpoint {path}"),
            field: None,
        }
    }

    /// 405: an endpoint asked with the wrong method (`GET /v1/query`).
    pub fn wrong_method(method: &str, path: &str) -> Self {
        ApiError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            kind: "method_not_allowed",
            message: format!("{path} does not take {method}"),
            field: None,
        }
    }

    /// 503: the request took longer than the server allows.
    pub fn timeout() -> Self {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            kind: "timeout",
            message: "the request took longer than the server's limit".into(),
            field: None,
        }
    }

    /// 500: something the server itself failed at.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            kind: "internal",
            message: message.into(),
            field: None,
        }
    }

    /// The error with `field` named (when the library's error does not
    /// know which part of the request it came from).
    pub fn at(mut self, field: impl Into<String>) -> Self {
        if self.field.is_none() && self.status == StatusCode::BAD_REQUEST {
            self.field = Some(field.into());
        }
        self
    }
}

impl From<fpdb_api::InvalidRequest> for ApiError {
    fn from(error: fpdb_api::InvalidRequest) -> Self {
        ApiError::invalid(error.field.unwrap_or_default(), error.message)
    }
}

impl From<fpdb::Error> for ApiError {
    fn from(error: fpdb::Error) -> Self {
        use fpdb::Error as E;
        let message = error.to_string();
        let (status, kind) = match &error {
            E::BadId { .. }
            | E::KTooLarge { .. }
            | E::RadiusTooLarge { .. }
            | E::InvalidOptions(_)
            | E::Html(_) => (StatusCode::BAD_REQUEST, "invalid_input"),
            // Not malformed, just nothing to compare: a client may drop the
            // document and send the rest again.
            E::NoFeatures => (StatusCode::BAD_REQUEST, "no_features"),
            E::ReadOnly => (StatusCode::FORBIDDEN, "read_only"),
            E::AlreadyExists { .. } => (StatusCode::CONFLICT, "already_exists"),
            E::LimitExceeded { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "limit_exceeded"),
            E::Corrupt { .. } | E::Version { .. } | E::Codec(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "corrupt")
            }
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "storage"),
        };
        let field = match &error {
            E::BadId { .. } => Some("id".to_string()),
            E::KTooLarge { .. } | E::RadiusTooLarge { .. } => Some("k".to_string()),
            _ => None,
        };
        ApiError {
            status,
            kind,
            message,
            field,
        }
    }
}

/// The body of every error answer.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ErrorBody<'a> {
    error: Detail<'a>,
}

/// What went wrong.
#[derive(Serialize, utoipa::ToSchema)]
struct Detail<'a> {
    /// `invalid_input`, `no_features`, `unauthorized`, `read_only`,
    /// `backups_off`, `already_exists`, `limit_exceeded`, `corrupt`, `storage`,
    /// `not_found`, `method_not_allowed`, `timeout` or `internal`.
    kind: &'a str,
    /// For people.
    message: &'a str,
    /// The request field at fault (`documents[3].fp`), when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: Detail {
                kind: self.kind,
                message: &self.message,
                field: self.field.as_deref(),
            },
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The database could not be opened.
    #[error("cannot open {path}: {source}")]
    Open {
        /// The database directory.
        path: PathBuf,
        /// Why.
        source: fpdb::Error,
    },
    /// The listening address could not be bound or served.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// A token file that cannot be read or parsed.
    #[error("token file {path}: {reason}")]
    Tokens {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The database could not be flushed when the server stopped.
    #[error("flushing the database: {0}")]
    Flush(fpdb::Error),
    /// TLS certificate or key files that cannot be used.
    #[error("TLS: {0}")]
    Tls(String),
}
