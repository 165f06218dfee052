//! `fpdb serve` over TLS, with a certificate the test makes.

use std::io::BufReader;
use std::net::TcpStream;
use std::sync::Arc;

use crate::server::{create_db, hex, read_response, Response, Served};
use rustls::pki_types::ServerName;
use serde_json::json;

/// One HTTPS request to `served`, trusting only `cert_der`.
fn https(served: &Served, cert_der: &[u8], request: &str) -> Response {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert_der.to_vec().into()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connection =
        rustls::ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
            .unwrap();
    let socket = TcpStream::connect(served.addr).unwrap();
    let mut stream = BufReader::new(rustls::StreamOwned::new(connection, socket));
    std::io::Write::write_all(stream.get_mut(), request.as_bytes()).unwrap();
    read_response(&mut stream).unwrap()
}

#[test]
fn serves_https_with_the_given_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let served = Served::start(
        &db,
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    let der = certified.cert.der().to_vec();

    let body = json!({"id": "secure", "fp": hex(99)}).to_string();
    let request = format!(
        "POST /v1/check_and_insert HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let response = https(&served, &der, &request);
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.json()["matches"], json!([]));
    let response = https(
        &served,
        &der,
        "GET /v1/stats HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(response.json()["ids"], 1);

    // Plain HTTP to the TLS port gets no answer.
    let mut plain = served.client();
    let answer = plain.try_request("GET", "/health", b"");
    assert!(
        !matches!(answer, Ok(ref r) if r.status == 200),
        "{answer:?}"
    );
}
