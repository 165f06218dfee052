//! HTML pages through the CLI: `--input html` (one page per file) and
//! JSON Lines with `html`, extracted as the database was created to.

use crate::common::{fpdb, json_lines, ok, stderr};

const ARTICLE: &str = "<p>今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，新建的加工车间让鲜叶当天就能完成杀青和揉捻。</p>\
<p>茶叶的香气因此保存得更好，收购价格也随之上涨。不少在外打工的年轻人回到村里，跟着老师傅学习炒茶的手艺，希望把家乡的茶叶卖到更远的地方。</p>\
<p>县里的农业部门表示，今年将在三个乡镇推广生态种植，减少化肥和农药的使用，并为茶农提供免费的技术培训和品牌设计服务。</p>";

fn template_a() -> String {
    format!(
        "<html><head><meta charset='utf-8'></head><body><div class='header'>本地新闻网 体育 科技</div>\
         <div class='article-content'>{ARTICLE}</div>\
         <div class='sidebar'><ul><li><a href='/1'>新的高速铁路线路正式开通运营</a></li>\
         <li><a href='/2'>市博物馆推出古代海上贸易特别展览</a></li></ul></div>\
         <div class='footer'>版权所有</div></body></html>"
    )
}

fn template_b() -> String {
    format!(
        "<html><body><nav><a href='/'>门户首页</a> <a href='/f'>财经</a></nav>\
         <aside><ol><li><a href='/3'>主队补时绝杀卫冕冠军</a></li><li><a href='/4'>社区图书馆重新开放</a></li></ol></aside>\
         <article>{ARTICLE}</article><footer>阅读次数：987 转载请注明出处</footer></body></html>"
    )
}

#[test]
fn pages_under_different_templates_are_near_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let created = ok(dir, &["create", "db", "--expected", "1000"], "");
    assert!(created.contains("extract=main"), "{created}");
    // The same article, GBK-encoded under the other template.
    let page_b = template_b().replace("<html>", "<html><head><meta charset=gbk></head>");
    let (gbk, _, _) = encoding_rs::GBK.encode(&page_b);
    std::fs::write(dir.join("a.html"), template_a()).unwrap();
    std::fs::write(dir.join("b.html"), &gbk).unwrap();
    ok(dir, &["add", "db", "--input", "html", "a.html"], "");
    let answers = json_lines(ok(dir, &["query", "db", "--input", "html", "b.html"], ""));
    assert_eq!(answers[0]["query"], "b.html");
    let matches = answers[0]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1, "{}", answers[0]);
    assert_eq!(matches[0]["ids"][0], "a.html");
    assert_eq!(matches[0]["distance"], 0);

    // JSON Lines with "html" (a JSON string: UTF-8) answer the same.
    let line = serde_json::json!({"id": "c", "html": template_b()}).to_string();
    let checked = json_lines(ok(dir, &["check", "db", "--input", "jsonl"], line + "\n"));
    assert_eq!(checked[0]["matches"][0]["ids"][0], "a.html");

    // `hash` extracts the same way (its own --extract).
    let hashed = ok(dir, &["hash", "--input", "html", "a.html", "b.html"], "");
    let fps: Vec<&str> = hashed
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(fps[0], fps[1]);
    let all = ok(
        dir,
        &[
            "hash",
            "--extract",
            "all",
            "--input",
            "html",
            "a.html",
            "b.html",
        ],
        "",
    );
    assert_ne!(all, hashed);
}

#[test]
fn the_extraction_option_is_the_databases() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--extract", "all"], "");
    let stats: serde_json::Value =
        serde_json::from_str(&ok(dir, &["stats", "db", "--json"], "")).unwrap();
    assert_eq!(stats["extract"], "all");
    let out = fpdb(dir, &["create", "db2", "--extract", "article"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("main or all"), "{}", stderr(&out));
}

#[test]
fn binary_pages_are_bad_inputs_named_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db"], "");
    std::fs::write(dir.join("ok.html"), template_a()).unwrap();
    std::fs::write(dir.join("image.html"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let out = fpdb(
        dir,
        &["add", "db", "--input", "html", "ok.html", "image.html"],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("image.html: binary data"),
        "{}",
        stderr(&out)
    );
    // Validated first (files): nothing stored.
    assert_eq!(ok(dir, &["export", "db"], ""), "");
    let skipped = fpdb(
        dir,
        &[
            "add",
            "db",
            "--skip-bad",
            "--input",
            "html",
            "ok.html",
            "image.html",
        ],
        "",
    );
    assert!(skipped.status.success(), "{}", stderr(&skipped));
    assert!(ok(dir, &["export", "db"], "").starts_with("ok.html\t"));
}

/// A WARC record holding `body` as an HTTP response from `uri`.
fn warc_record(kind: &str, uri: &str, http: &[u8]) -> Vec<u8> {
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype={kind}\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    record.extend_from_slice(http);
    record.extend_from_slice(b"\r\n\r\n");
    record
}

fn http_html(page: &[u8], charset: &str) -> Vec<u8> {
    let mut http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset={charset}\r\n\r\n")
        .into_bytes();
    http.extend_from_slice(page);
    http
}

/// One gzip member per record, as crawlers write .warc.gz.
fn gzip_members(records: &[Vec<u8>]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    for record in records {
        let mut encoder = libflate::gzip::Encoder::new(Vec::new()).unwrap();
        encoder.write_all(record).unwrap();
        out.extend(encoder.finish().into_result().unwrap());
    }
    out
}

#[test]
fn warc_files_load_their_html_responses_by_uri() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db"], "");
    let page_b = template_b();
    let (gbk, _, _) = encoding_rs::GBK.encode(&page_b);
    let records = vec![
        warc_record(
            "request",
            "https://a.example/tea",
            b"GET /tea HTTP/1.1\r\n\r\n",
        ),
        warc_record(
            "response",
            "https://a.example/tea",
            &http_html(template_a().as_bytes(), "utf-8"),
        ),
        warc_record(
            "response",
            "https://b.example/mirror",
            &http_html(&gbk, "gbk"),
        ),
        warc_record(
            "response",
            "https://a.example/logo.png",
            b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG",
        ),
    ];
    std::fs::write(dir.join("crawl.warc.gz"), gzip_members(&records)).unwrap();
    let out = fpdb(dir, &["load", "db", "--input", "warc", "crawl.warc.gz"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("2 WARC records skipped"),
        "{}",
        stderr(&out)
    );
    let pairs = ok(dir, &["pairs", "db"], "");
    assert!(
        pairs.contains("https://a.example/tea") && pairs.contains("https://b.example/mirror"),
        "{pairs}"
    );

    // A plain .warc cut in the middle of its last record: the pages before
    // it are read, the cut is named by its byte offset.
    let plain: Vec<u8> = records[..3].concat();
    let cut = records[0].len() + records[1].len() + 40;
    std::fs::write(dir.join("cut.warc"), &plain[..cut]).unwrap();
    ok(dir, &["create", "db2"], "");
    let offset = format!("byte {}", records[0].len() + records[1].len());
    let out = fpdb(dir, &["add", "db2", "--input", "warc", "cut.warc"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&offset) && stderr(&out).contains("truncated"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        ok(dir, &["export", "db2"], ""),
        "",
        "validated first: nothing stored"
    );
    let out = fpdb(
        dir,
        &["add", "db2", "--skip-bad", "--input", "warc", "cut.warc"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let exported = ok(dir, &["export", "db2"], "");
    assert!(
        exported.starts_with("https://a.example/tea\t"),
        "{exported}"
    );
}

/// Pages are extracted in batches on every core: answers keep the input's
/// order across batches, and an unreadable page in the middle is named by
/// its record's offset and skipped alone.
#[test]
fn warc_pages_keep_their_order_across_extraction_batches() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let pages = 700;
    let bad_at = 301;
    let mut records = Vec::new();
    let mut bad_offset = 0;
    for i in 0..pages {
        let body = if i == bad_at {
            bad_offset = records.iter().map(Vec::len).sum::<usize>();
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()
        } else {
            format!(
                "<html><body><p>第 {i} 篇：茶叶 {} 的价格。</p></body></html>",
                i * 7919
            )
            .into_bytes()
        };
        records.push(warc_record(
            "response",
            &format!("https://a.example/{i}"),
            &http_html(&body, "utf-8"),
        ));
    }
    std::fs::write(dir.join("crawl.warc"), records.concat()).unwrap();
    let out = fpdb(dir, &["hash", "--input", "warc", "crawl.warc"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("crawl.warc@{bad_offset}")),
        "{}",
        stderr(&out)
    );
    let hashed = ok(
        dir,
        &["hash", "--skip-bad", "--input", "warc", "crawl.warc"],
        "",
    );
    let ids: Vec<&str> = hashed
        .lines()
        .map(|line| line.split('\t').next().unwrap())
        .collect();
    let expected: Vec<String> = (0..pages)
        .filter(|&i| i != bad_at)
        .map(|i| format!("https://a.example/{i}"))
        .collect();
    assert_eq!(ids, expected);
    // Each page's fingerprint is its own text's, whatever batch it was in.
    let one = ok(dir, &["hash"], "第 5 篇：茶叶 39595 的价格。\n");
    let fifth = hashed.lines().nth(5).unwrap().split('\t').nth(1).unwrap();
    assert_eq!(one.trim().split('\t').nth(1).unwrap(), fifth, "{one}");
}
