//! One line in, one record (or nothing, or what is wrong) out.

use fpdb_html::{page_text, Extract};
use fpdb_simhash::Fingerprint;
use serde::Deserialize;

use crate::{BadLine, Payload, Record, MAX_ID_BYTES};

/// How the lines of an input are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    /// `<id>\t<16 hex digits>`; for queries also a bare fingerprint.
    Fps,
    /// `{"id": ..., "text": ...}`, `{"id": ..., "html": ...}` (a page,
    /// whose text is extracted) or `{"id": ..., "fp": "<hex>"}`.
    Jsonl,
    /// One text document per line; the id is the line number.
    Lines,
}

/// What the records are for; decides which shapes are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Records to store: every record needs an id.
    Store,
    /// Records to look up: a bare fingerprint is its own id, a JSON line
    /// without an id gets its line number.
    Query,
    /// Texts whose fingerprints are printed (`fpdb hash`).
    Hash,
}

/// Longest piece of a bad fingerprint quoted back in an error.
const QUOTED_CHARS: usize = 64;

/// Parses one line (with or without its line ending) of an input.
///
/// `number` is the 1-based line number and `source` the input's name when
/// ids made from line numbers should read `source:number` (several inputs)
/// instead of `number`. A blank line gives `Ok(None)`. A JSON line's
/// `html` is read with [`fpdb_html::page_text`] under [`Extract::Main`];
/// [`parse_line_with`] names another extraction.
pub fn parse_line(
    format: LineFormat,
    role: Role,
    raw: &[u8],
    number: u64,
    source: Option<&str>,
) -> Result<Option<Record>, BadLine> {
    parse_line_with(format, role, raw, number, source, Extract::Main)
}

/// [`parse_line`] with the extraction a JSON line's `html` is read with
/// (the database's).
pub fn parse_line_with(
    format: LineFormat,
    role: Role,
    raw: &[u8],
    number: u64,
    source: Option<&str>,
    extract: Extract,
) -> Result<Option<Record>, BadLine> {
    let line = std::str::from_utf8(raw).map_err(|_| BadLine::NotUtf8)?;
    let line = line.trim_end_matches(['\n', '\r']);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let line_id = || match source {
        Some(source) => format!("{source}:{number}"),
        None => number.to_string(),
    };
    let record = match format {
        LineFormat::Lines => Record {
            id: line_id(),
            payload: Payload::Text(line.to_string()),
        },
        LineFormat::Fps => parse_fingerprint_line(line, role)?,
        LineFormat::Jsonl => parse_json_line(line, role, line_id, extract)?,
    };
    Ok(Some(record))
}

fn parse_fingerprint_line(line: &str, role: Role) -> Result<Record, BadLine> {
    let mut fields = line.split('\t');
    match (fields.next(), fields.next(), fields.next()) {
        (Some(id), Some(hex), None) => {
            check_id(id)?;
            Ok(Record {
                id: id.to_string(),
                payload: Payload::Fingerprint(parse_fingerprint(hex)?),
            })
        }
        (Some(hex), None, None) if role != Role::Store => {
            let fp = parse_fingerprint(hex)?;
            Ok(Record {
                id: hex.trim().to_string(),
                payload: Payload::Fingerprint(fp),
            })
        }
        _ => Err(BadLine::FieldCount {
            found: line.split('\t').count(),
        }),
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum JsonId {
    Text(String),
    Number(u64),
}

#[derive(Deserialize)]
struct JsonRecord {
    id: Option<JsonId>,
    text: Option<String>,
    html: Option<String>,
    fp: Option<String>,
}

fn parse_json_line(
    line: &str,
    role: Role,
    line_id: impl FnOnce() -> String,
    extract: Extract,
) -> Result<Record, BadLine> {
    let parsed: JsonRecord =
        serde_json::from_str(line).map_err(|e| BadLine::Json(e.to_string()))?;
    let payload = match (parsed.text, parsed.html, parsed.fp) {
        (Some(text), None, None) => Payload::Text(text),
        (None, Some(html), None) => Payload::Text(html_text(html.as_bytes(), extract)?),
        (None, None, Some(hex)) => Payload::Fingerprint(parse_fingerprint(&hex)?),
        (None, None, None) => return Err(BadLine::NoPayload),
        _ => return Err(BadLine::SeveralPayloads),
    };
    let id = match (parsed.id, &payload) {
        (Some(JsonId::Text(id)), _) => id,
        (Some(JsonId::Number(n)), _) => n.to_string(),
        (None, _) if role == Role::Store => return Err(BadLine::MissingId),
        (None, Payload::Fingerprint(fp)) => fp.to_string(),
        (None, Payload::Text(_)) => line_id(),
    };
    check_id(&id)?;
    Ok(Record { id, payload })
}

/// The text fingerprinted for a page given as a JSON string (so UTF-8,
/// whatever its `<meta charset>` says).
fn html_text(html: &[u8], extract: Extract) -> Result<String, BadLine> {
    page_text(html, Some("text/html; charset=utf-8"), extract)
        .map(|page| page.text)
        .map_err(|e| BadLine::Html(e.to_string()))
}

/// 16 hex digits (surrounding whitespace allowed) as a fingerprint.
pub fn parse_fingerprint(text: &str) -> Result<Fingerprint, BadLine> {
    let text = text.trim();
    text.parse().map_err(
        |e: fpdb_simhash::ParseFingerprintError| BadLine::Fingerprint {
            text: text.chars().take(QUOTED_CHARS).collect(),
            reason: e.to_string(),
        },
    )
}

/// An id must be 1 to [`MAX_ID_BYTES`] bytes.
pub fn check_id(id: &str) -> Result<(), BadLine> {
    if id.is_empty() {
        return Err(BadLine::EmptyId);
    }
    if id.len() > MAX_ID_BYTES {
        return Err(BadLine::IdTooLong { len: id.len() });
    }
    Ok(())
}

/// The id of one line of an id list (`fpdb remove --input`): the line, or
/// `<id>` of a line `<id>\t<16 hex digits>` (as `fpdb hash` and `fpdb
/// export` print). A blank line gives `Ok(None)`.
pub fn parse_id_line(raw: &[u8]) -> Result<Option<String>, BadLine> {
    let line = std::str::from_utf8(raw).map_err(|_| BadLine::NotUtf8)?;
    let line = line.trim_end_matches(['\n', '\r']);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let id = match line.rsplit_once('\t') {
        Some((id, hex)) if parse_fingerprint(hex).is_ok() => id,
        _ => line,
    };
    check_id(id)?;
    Ok(Some(id.to_string()))
}

/// A fingerprint line, `<id>\t<16 hex digits>`, without its line ending:
/// what `fpdb export` and `fpdb hash` print and [`LineFormat::Fps`] reads.
pub fn format_fingerprint_line(id: &str, fp: Fingerprint) -> String {
    format!("{id}\t{fp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(format: LineFormat, line: &str) -> Result<Option<Record>, BadLine> {
        parse_line(format, Role::Store, line.as_bytes(), 7, None)
    }

    #[test]
    fn fingerprint_lines() {
        let record = store(LineFormat::Fps, "a b\t00000000000000ff\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(record.id, "a b");
        assert_eq!(record.payload, Payload::Fingerprint(Fingerprint(0xff)));
        assert_eq!(store(LineFormat::Fps, "  \n"), Ok(None));
        assert!(matches!(
            store(LineFormat::Fps, "a\tb\t00000000000000ff"),
            Err(BadLine::FieldCount { found: 3 })
        ));
        assert!(matches!(
            store(LineFormat::Fps, "00000000000000ff"),
            Err(BadLine::FieldCount { found: 1 })
        ));
        assert!(matches!(
            store(LineFormat::Fps, "a\t00000000000000fg"),
            Err(BadLine::Fingerprint { .. })
        ));
        assert!(matches!(
            store(LineFormat::Fps, "\t00000000000000ff"),
            Err(BadLine::EmptyId)
        ));
        let long = format!("{}\t00000000000000ff", "x".repeat(MAX_ID_BYTES + 1));
        assert!(matches!(
            store(LineFormat::Fps, &long),
            Err(BadLine::IdTooLong { len }) if len == MAX_ID_BYTES + 1
        ));
        let at_limit = format!("{}\t00000000000000ff", "x".repeat(MAX_ID_BYTES));
        assert!(store(LineFormat::Fps, &at_limit).is_ok());
        // Queries take a bare fingerprint, which is its own id.
        let query = parse_line(LineFormat::Fps, Role::Query, b" 00000000000000ff", 1, None)
            .unwrap()
            .unwrap();
        assert_eq!(query.id, "00000000000000ff");
    }

    #[test]
    fn json_lines() {
        let text = store(LineFormat::Jsonl, r#"{"id": 5, "text": "hello"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(text.id, "5");
        assert_eq!(text.payload, Payload::Text("hello".into()));
        assert!(matches!(
            store(
                LineFormat::Jsonl,
                r#"{"id": "a", "text": "x", "fp": "00000000000000ff"}"#
            ),
            Err(BadLine::SeveralPayloads)
        ));
        assert!(matches!(
            store(LineFormat::Jsonl, r#"{"text": "x"}"#),
            Err(BadLine::MissingId)
        ));
        assert!(matches!(
            store(LineFormat::Jsonl, r#"{"id": "a""#),
            Err(BadLine::Json(_))
        ));
        // A query without an id is named by its line number.
        let query = parse_line(
            LineFormat::Jsonl,
            Role::Query,
            br#"{"text": "x"}"#,
            7,
            Some("in.jsonl"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(query.id, "in.jsonl:7");
    }

    #[test]
    fn invalid_utf8_is_a_bad_line() {
        assert_eq!(
            parse_line(LineFormat::Lines, Role::Store, b"ok \xff", 1, None),
            Err(BadLine::NotUtf8)
        );
        assert_eq!(parse_id_line(b"\xc3"), Err(BadLine::NotUtf8));
    }

    #[test]
    fn id_lines() {
        assert_eq!(
            parse_id_line(b"a\t00000000000000ff\n"),
            Ok(Some("a".into()))
        );
        assert_eq!(parse_id_line(b"a\tb"), Ok(Some("a\tb".into())));
        assert_eq!(parse_id_line(b"\r\n"), Ok(None));
    }

    #[test]
    fn formatted_lines_parse_back() {
        let fp = Fingerprint(0x0123_4567_89ab_cdef);
        let line = format_fingerprint_line("https://x/?a=1", fp);
        let record = store(LineFormat::Fps, &line).unwrap().unwrap();
        assert_eq!(record.id, "https://x/?a=1");
        assert_eq!(record.payload, Payload::Fingerprint(fp));
    }
}
