//! Golden vectors for web pages: the fingerprint of each page in
//! `data/golden/html/` under the default simhash options, with the charset
//! found, so that HTML extraction never changes fingerprints silently (a
//! database's stored pages would stop matching re-crawls). A deliberate
//! change updates `data/golden/html.tsv`; `FPDB_PRINT_GOLDEN=1` prints the
//! rows the code computes now.

use std::path::PathBuf;

use fpdb_html::{page_text, Extract};
use fpdb_simhash::Simhasher;

fn golden_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .join("../../data/golden")
}

struct Row {
    file: String,
    content_type: Option<String>,
    extract: Extract,
    encoding: String,
    fingerprint: String,
}

fn rows() -> Vec<Row> {
    let table = std::fs::read_to_string(golden_dir().join("html.tsv")).expect("html.tsv");
    table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let &[file, content_type, extract, encoding, fingerprint] = fields.as_slice() else {
                panic!("html.tsv: not 5 fields: {line:?}");
            };
            Row {
                file: file.to_string(),
                content_type: (content_type != "-").then(|| content_type.to_string()),
                extract: extract.parse().expect("an extract mode"),
                encoding: encoding.to_string(),
                fingerprint: fingerprint.to_string(),
            }
        })
        .collect()
}

fn computed(row: &Row) -> (String, String) {
    let bytes = std::fs::read(golden_dir().join("html").join(&row.file)).expect("a golden page");
    let page = page_text(&bytes, row.content_type.as_deref(), row.extract).expect("its text");
    let fp = Simhasher::default().fingerprint(&page.text);
    (page.encoding.to_string(), fp.to_string())
}

#[test]
fn pages_keep_their_golden_fingerprints() {
    let rows = rows();
    assert!(rows.len() >= 6, "html.tsv has {} rows", rows.len());
    let print = std::env::var_os("FPDB_PRINT_GOLDEN").is_some();
    let mut wrong = Vec::new();
    for row in &rows {
        let (encoding, fp) = computed(row);
        if print {
            let ct = row.content_type.as_deref().unwrap_or("-");
            println!("{}\t{ct}\t{}\t{encoding}\t{fp}", row.file, row.extract);
        }
        if (encoding.as_str(), fp.as_str()) != (row.encoding.as_str(), row.fingerprint.as_str()) {
            wrong.push(format!(
                "{} ({}): {encoding} {fp}, golden {} {}",
                row.file, row.extract, row.encoding, row.fingerprint
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "fingerprints changed:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn one_article_under_two_templates_and_charsets_has_one_fingerprint() {
    let rows = rows();
    let main = |prefix: &str| -> Vec<String> {
        let mut fps: Vec<String> = rows
            .iter()
            .filter(|r| r.file.starts_with(prefix) && r.extract == Extract::Main)
            .map(|r| r.fingerprint.clone())
            .collect();
        fps.sort();
        fps.dedup();
        fps
    };
    assert_eq!(main("tea-").len(), 1, "tea pages: {:?}", main("tea-"));
    assert_eq!(main("loans-").len(), 1, "loan pages: {:?}", main("loans-"));
    assert_ne!(main("tea-"), main("loans-"));
}
