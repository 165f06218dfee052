//! Random and malformed requests sent to the real router (without a
//! socket): every one is answered, with 200 or a 4xx whose JSON body says
//! what is wrong; none panics the server or gets a 5xx.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use fpdb_server::{Limits, ServeOptions, Server};
use fpdb_testkit::{create_temp_db, small_options};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use tower::ServiceExt as _;

const PATHS: &[&str] = &[
    "/v1/check_and_insert",
    "/v1/check_and_insert_many",
    "/v1/query",
    "/v1/query_many",
    "/v1/insert",
    "/v1/insert_many",
    "/v1/remove",
    "/v1/remove_many",
    "/v1/get",
    "/v1/get_many",
    "/v1/backup",
    "/v1/stats",
    "/health",
    "/nowhere",
];

/// The router of a server on a fresh database, small limits so that
/// random batches reach them, and a runtime to call it on.
fn router() -> (tempfile::TempDir, axum::Router, tokio::runtime::Runtime) {
    let (dir, _, db) = create_temp_db(small_options());
    let options = ServeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        limits: Limits {
            max_body_bytes: 4096,
            max_batch: 8,
            ..Limits::default()
        },
        ..ServeOptions::default()
    };
    let server = Server::bind(db, options).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    (dir, server.router(), runtime)
}

/// Sends one request, checks the answer is 200 or a 4xx with a message,
/// and returns its status and JSON.
fn send(
    router: &axum::Router,
    runtime: &tokio::runtime::Runtime,
    method: Method,
    path: &str,
    body: Vec<u8>,
) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method.clone())
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body.clone()))
        .unwrap();
    let response = runtime.block_on(router.clone().oneshot(request)).unwrap();
    let status = response.status();
    let bytes = runtime
        .block_on(axum::body::to_bytes(response.into_body(), usize::MAX))
        .unwrap();
    let shown = || {
        format!(
            "{method} {path} {:?} -> {status} {:?}",
            String::from_utf8_lossy(&body),
            String::from_utf8_lossy(&bytes)
        )
    };
    assert!(
        status == StatusCode::OK || status.is_client_error(),
        "{}",
        shown()
    );
    let answer: Value = if path == "/metrics" {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| panic!("{}", shown()))
    };
    if status.is_client_error() {
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{}", shown());
    }
    (status, answer)
}

/// A JSON value that is sometimes what a field wants and often not.
fn wild_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u32>().prop_map(|k| Value::from(k % 40)),
        "[0-9a-fA-FxX]{0,18}".prop_map(Value::from),
        "[A-Za-z0-9+/=]{0,24}".prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
        "<html><p>.{0,40}</p>".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_string()),
                    Just("ids".to_string()),
                    Just("fp".to_string()),
                    Just("fps".to_string()),
                    Just("k".to_string()),
                    Just("text".to_string()),
                    Just("html".to_string()),
                    Just("html_base64".to_string()),
                    Just("content_type".to_string()),
                    Just("documents".to_string()),
                    Just("name".to_string()),
                    "[a-z_]{1,8}"
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

#[test]
fn random_bytes_to_every_endpoint_get_an_answer() {
    let (_dir, router, runtime) = router();
    let requests = (
        prop::sample::select(PATHS),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 0..512),
    );
    TestRunner::new(Config::with_cases(1000))
        .run(&requests, |(path, post, body)| {
            let method = if post { Method::POST } else { Method::GET };
            send(&router, &runtime, method, path, body);
            Ok(())
        })
        .unwrap();
}

#[test]
fn random_json_to_every_endpoint_gets_an_answer() {
    let (_dir, router, runtime) = router();
    let requests = (
        prop::sample::select(PATHS),
        wild_value(),
        any::<prop::sample::Index>(),
    );
    TestRunner::new(Config::with_cases(2000))
        .run(&requests, |(path, value, cut)| {
            let mut body = value.to_string().into_bytes();
            send(&router, &runtime, Method::POST, path, body.clone());
            // The same body cut short.
            body.truncate(cut.index(body.len() + 1));
            send(&router, &runtime, Method::POST, path, body);
            Ok(())
        })
        .unwrap();
}

#[test]
fn well_formed_requests_with_wrong_values_name_the_field() {
    let (_dir, router, runtime) = router();
    let nine = vec!["0123456789abcdef"; 9];
    let cases = [
        (
            "/v1/check_and_insert",
            json!({"id": "a", "fp": "xyz"}),
            400,
            "fp",
        ),
        (
            "/v1/check_and_insert",
            json!({"id": "", "fp": "0123456789abcdef"}),
            400,
            "id",
        ),
        (
            "/v1/check_and_insert",
            json!({"id": "a", "fp": "0123456789abcdef", "k": 99}),
            400,
            "k",
        ),
        (
            "/v1/query",
            json!({"fp": "0123456789abcdef", "txet": "a"}),
            400,
            "txet",
        ),
        (
            "/v1/insert_many",
            json!({"documents": [{"id": "a", "fp": "0123456789abcdef"}, {"id": "b"}]}),
            400,
            "documents[1].fp",
        ),
        ("/v1/query_many", json!({"fps": nine}), 413, "fps"),
        (
            "/v1/insert",
            json!({"id": "a", "html_base64": "***"}),
            400,
            "html_base64",
        ),
        ("/v1/get", json!({"id": 7}), 400, "id"),
    ];
    for (path, body, status, field) in cases {
        let (got, answer) = send(
            &router,
            &runtime,
            Method::POST,
            path,
            body.to_string().into_bytes(),
        );
        assert_eq!(got.as_u16(), status, "{path} {body}: {answer}");
        assert_eq!(
            answer["error"]["field"].as_str().unwrap_or(""),
            field,
            "{path} {body}: {answer}"
        );
    }
    // Nothing of those was stored.
    let (_, stats) = send(&router, &runtime, Method::GET, "/v1/stats", Vec::new());
    assert_eq!(stats["ids"], 0);
}
