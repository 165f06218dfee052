//! The OpenAPI document of every endpoint, generated from the handlers'
//! annotations and the request and answer types (docs/openapi.json holds
//! a copy that a test keeps equal).

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};

use crate::routes;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "fpdb serve",
        description = "A near-duplicate fingerprint database shared by many crawlers over HTTP/JSON.",
        license(name = "MIT OR Apache-2.0")
    ),
    paths(
        routes::check_and_insert,
        routes::check_and_insert_many,
        routes::query,
        routes::query_many,
        routes::insert,
        routes::insert_many,
        routes::remove,
        routes::remove_many,
        routes::get_one,
        routes::get_many,
        routes::backup,
        routes::stats,
        routes::health,
        routes::metrics,
    ),
    modifiers(&BearerTokens)
)]
struct ApiDoc;

/// Declares the bearer tokens of `--token-file`.
struct BearerTokens;

impl Modify for BearerTokens {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
            );
        }
    }
}

/// The document as pretty JSON, ending with a newline.
pub fn document() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
    json.push('\n');
    json
}

/// This document (docs/openapi.json is a copy, checked by a test).
pub(crate) async fn serve_document() -> Response {
    ([(CONTENT_TYPE, "application/json")], document()).into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_document_in_docs_is_the_generated_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
        let generated = super::document();
        if std::env::var_os("FPDB_WRITE_OPENAPI").is_some() {
            std::fs::write(path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == generated,
            "docs/openapi.json differs from the server's document; regenerate it with \
             FPDB_WRITE_OPENAPI=1 cargo test --release -p fpdb-server openapi"
        );
    }
}
