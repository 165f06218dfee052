//! WARC records as crawlers write them, and as disks and networks break
//! them: pages come out, everything else is skipped and named, damage is
//! an error with its offset, never a panic or unbounded memory.

use fpdb_input::{WarcError, WarcItem, WarcReader};
use proptest::prelude::*;

fn record(kind: &str, uri: Option<&str>, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("WARC/1.1\r\nWARC-Type: {kind}\r\n").into_bytes();
    if let Some(uri) = uri {
        out.extend_from_slice(format!("WARC-Target-URI: {uri}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "WARC-Date: 2026-11-24T00:00:00Z\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

fn http(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nServer: t\r\n\r\n")
        .into_bytes();
    out.extend_from_slice(body);
    out
}

fn items(bytes: &[u8]) -> Vec<Result<WarcItem, WarcError>> {
    WarcReader::new(bytes).collect()
}

#[test]
fn response_pages_come_out_and_the_rest_is_skipped() {
    let page = "<html><body><p>正文</p></body></html>";
    let chunked = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    let warc = [
        record(
            "warcinfo",
            None,
            "application/warc-fields",
            b"software: test\r\n",
        ),
        record(
            "request",
            Some("https://a.example/"),
            "application/http; msgtype=request",
            b"GET / HTTP/1.1\r\n\r\n",
        ),
        record(
            "response",
            Some("https://a.example/"),
            "application/http; msgtype=response",
            &http("text/html; charset=gbk", page.as_bytes()),
        ),
        record(
            "response",
            Some("<https://a.example/logo.png>"),
            "application/http; msgtype=response",
            &http("image/png", b"\x89PNG"),
        ),
        record(
            "response",
            Some("https://b.example/chunked"),
            "application/http; msgtype=response",
            chunked,
        ),
    ]
    .concat();
    let items = items(&warc);
    assert_eq!(items.len(), 5);
    let pages: Vec<_> = items
        .iter()
        .filter_map(|item| match item {
            Ok(WarcItem::Page(page)) => Some(page),
            _ => None,
        })
        .collect();
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0].uri, "https://a.example/");
    assert_eq!(
        pages[0].content_type.as_deref(),
        Some("text/html; charset=gbk")
    );
    assert_eq!(pages[0].body, page.as_bytes());
    assert_eq!(pages[1].body, b"hello world");
    let skipped: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Ok(WarcItem::Skipped { why, .. }) => Some(why.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        skipped,
        ["warcinfo record", "request record", "image/png response"]
    );
    // Offsets point at each record's first byte.
    let second = record(
        "warcinfo",
        None,
        "application/warc-fields",
        b"software: test\r\n",
    )
    .len() as u64;
    assert!(matches!(&items[1], Ok(WarcItem::Skipped { offset, .. }) if *offset == second));
}

#[test]
fn a_lying_content_length_is_a_truncated_record_with_its_offset() {
    let good = record(
        "response",
        Some("https://a/"),
        "application/http",
        &http("text/html", b"<p>a</p>"),
    );
    let mut bad = record(
        "response",
        Some("https://b/"),
        "application/http",
        &http("text/html", b"<p>b</p>"),
    );
    let length = http("text/html", b"<p>b</p>").len();
    let text = String::from_utf8(bad.clone()).unwrap().replace(
        &format!("Content-Length: {length}"),
        "Content-Length: 9999999",
    );
    bad = text.into_bytes();
    let warc = [good.clone(), bad].concat();
    let items = items(&warc);
    assert!(matches!(items[0], Ok(WarcItem::Page(_))));
    match &items[1] {
        Err(WarcError::Truncated { offset, .. }) => assert_eq!(*offset, good.len() as u64),
        other => panic!("{other:?}"),
    }
    assert_eq!(items.len(), 2, "reading stops after an error");
}

#[test]
fn garbage_and_endless_lines_are_errors_not_memory() {
    assert!(matches!(
        items(b"GIF89a\0\0\0")[0],
        Err(WarcError::Malformed { offset: 0, .. })
    ));
    let endless = vec![b'x'; 1 << 20];
    let warc = [b"WARC/1.0\r\nWARC-Type: response\r\n".as_slice(), &endless].concat();
    let err = items(&warc).remove(0).unwrap_err();
    assert!(err.to_string().contains("over 65536 bytes"), "{err}");
    // After a malformed record the next one is found and read.
    let good = record(
        "response",
        Some("https://a/"),
        "application/http",
        &http("text/html", b"<p>a</p>"),
    );
    let resynced = items(
        &[
            b"WARC/1.0\r\nno colon here\r\n\r\nrubbish\r\n".as_slice(),
            &good,
        ]
        .concat(),
    );
    assert!(resynced[0].is_err(), "{resynced:?}");
    assert!(
        matches!(&resynced[1], Ok(WarcItem::Page(page)) if page.uri == "https://a/"),
        "{resynced:?}"
    );
    assert!(items(b"").is_empty());
    let no_length = b"WARC/1.0\r\nWARC-Type: response\r\n\r\n";
    assert!(items(no_length)[0]
        .as_ref()
        .unwrap_err()
        .to_string()
        .contains("Content-Length"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_bytes_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = items(&bytes);
    }

    #[test]
    fn any_cut_of_a_valid_file_reads_without_panic(cut in 0usize..400) {
        let warc = record("response", Some("https://a/"), "application/http", &http("text/html", "<p>页面</p>".as_bytes()));
        let cut = cut.min(warc.len());
        let _ = items(&warc[..cut]);
    }
}
