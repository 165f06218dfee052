//! WARC files (1.0 and 1.1, as Heritrix, wget `--warc-file` and Common
//! Crawl write them): the HTML pages of their `response` records.
//!
//! Streaming with bounded memory: a header is at most
//! [`MAX_HEADER_BYTES`], a record body is read only up to
//! [`MAX_RECORD_BYTES`] (a larger one is skipped without being held), so a
//! lying `Content-Length` or a line without an end costs no more than
//! those limits. Gzip (`.warc.gz`, one member per record) is the caller's
//! to undo: this reads the WARC bytes themselves. Offsets are positions
//! in those bytes.

use std::io::{self, BufRead, Read};

/// Longest WARC or HTTP header block.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// Largest record body kept; larger records are skipped.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// A web page found in a `response` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcPage {
    /// `WARC-Target-URI`.
    pub uri: String,
    /// The HTTP response's `Content-Type`, if it had one.
    pub content_type: Option<String>,
    /// The HTTP payload (de-chunked).
    pub body: Vec<u8>,
    /// Where the record starts.
    pub offset: u64,
}

/// What one record is to fpdb.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarcItem {
    /// An HTML page.
    Page(WarcPage),
    /// Any other record (`warcinfo`, `request`, `metadata`, a response
    /// that is not HTML, or larger than [`MAX_RECORD_BYTES`]).
    Skipped {
        /// Where the record starts.
        offset: u64,
        /// Why it is not a page, e.g. `request record`.
        why: String,
    },
}

/// A record that cannot be read, and where.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// A record whose header or body is malformed.
    #[error("WARC record at byte {offset}: {what}")]
    Malformed {
        /// Where the record starts.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The input ends inside a record (a truncated file, or a
    /// `Content-Length` larger than what follows).
    #[error("WARC record at byte {offset}: truncated ({what})")]
    Truncated {
        /// Where the record starts.
        offset: u64,
        /// What was being read.
        what: String,
    },
    /// Reading failed (including a gzip member that ends early).
    #[error("WARC input at byte {offset}: {source}")]
    Io {
        /// How far the input was read.
        offset: u64,
        /// The error.
        source: io::Error,
    },
}

/// The records of a WARC stream, in order. After a malformed record the
/// reader looks for the next line starting `WARC/1.` and goes on from
/// there; after a truncated record or a read error iteration ends.
#[derive(Debug)]
pub struct WarcReader<R> {
    reader: R,
    offset: u64,
    failed: bool,
    /// Skip lines until the next `WARC/1.` version line.
    resync: bool,
}

impl<R: BufRead> WarcReader<R> {
    /// Reads WARC records from `reader` (already decompressed).
    pub fn new(reader: R) -> Self {
        WarcReader {
            reader,
            offset: 0,
            failed: false,
            resync: false,
        }
    }

    /// Bytes of WARC read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn next_record(&mut self) -> Result<Option<WarcItem>, WarcError> {
        // Records are separated by blank lines; after a malformed record,
        // by anything up to the next version line.
        let first = loop {
            let start = self.offset;
            let Some((line, whole)) = self.line()? else {
                return Ok(None);
            };
            if self.resync {
                if whole && line.starts_with(b"WARC/1.") {
                    self.resync = false;
                    break (start, line);
                }
                continue;
            }
            if !whole {
                return Err(malformed(
                    start,
                    format!("line over {MAX_HEADER_BYTES} bytes"),
                ));
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                break (start, line);
            }
        };
        let (start, version) = first;
        let version = String::from_utf8_lossy(&version);
        let version = version.trim();
        if version != "WARC/1.0" && version != "WARC/1.1" {
            return Err(malformed(
                start,
                format!("expected WARC/1.0 or WARC/1.1, found {:?}", clip(version)),
            ));
        }
        let headers = self.headers(start)?;
        let length = header(&headers, "content-length")
            .ok_or_else(|| malformed(start, "no Content-Length"))?
            .trim()
            .parse::<u64>()
            .map_err(|_| malformed(start, "Content-Length is not a number"))?;
        if length > MAX_RECORD_BYTES {
            self.skip(start, length)?;
            return Ok(Some(WarcItem::Skipped {
                offset: start,
                why: format!("record of {length} bytes is over the {MAX_RECORD_BYTES}-byte limit"),
            }));
        }
        let body = self.body(start, length)?;
        let kind = header(&headers, "warc-type")
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if kind != "response" {
            return Ok(Some(WarcItem::Skipped {
                offset: start,
                why: format!("{} record", if kind.is_empty() { "untyped" } else { &kind }),
            }));
        }
        let uri = header(&headers, "warc-target-uri")
            .map(|uri| {
                uri.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
            .filter(|uri| !uri.is_empty())
            .ok_or_else(|| malformed(start, "response record without WARC-Target-URI"))?;
        let is_http = header(&headers, "content-type").is_some_and(|ct| {
            ct.trim()
                .to_ascii_lowercase()
                .starts_with("application/http")
        });
        if !is_http {
            return Ok(Some(WarcItem::Skipped {
                offset: start,
                why: "response record that is not an HTTP response".into(),
            }));
        }
        let response = http_response(&body).map_err(|what| malformed(start, what))?;
        let html = response.content_type.as_deref().is_none_or(|ct| {
            let ct = ct.trim().to_ascii_lowercase();
            ct.starts_with("text/html") || ct.starts_with("application/xhtml")
        });
        if !html {
            return Ok(Some(WarcItem::Skipped {
                offset: start,
                why: format!(
                    "{} response",
                    clip(response.content_type.as_deref().unwrap_or(""))
                ),
            }));
        }
        Ok(Some(WarcItem::Page(WarcPage {
            uri,
            content_type: response.content_type,
            body: response.payload,
            offset: start,
        })))
    }

    /// The next line (with its ending), or its first
    /// [`MAX_HEADER_BYTES`] and `false` when it is longer; `None` at the
    /// end of the input.
    fn line(&mut self) -> Result<Option<(Vec<u8>, bool)>, WarcError> {
        let mut line = Vec::new();
        let limit = u64::try_from(MAX_HEADER_BYTES).unwrap_or(u64::MAX);
        let read = (&mut self.reader)
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(|source| WarcError::Io {
                offset: self.offset,
                source,
            })?;
        self.offset += read as u64;
        if read == 0 {
            return Ok(None);
        }
        let whole = line.ends_with(b"\n") || read < MAX_HEADER_BYTES;
        Ok(Some((line, whole)))
    }

    /// Header lines up to the blank line, as (lower-case name, value).
    fn headers(&mut self, record: u64) -> Result<Vec<(String, String)>, WarcError> {
        let mut headers = Vec::new();
        let mut bytes = 0usize;
        loop {
            let (line, whole) = self.line()?.ok_or_else(|| truncated(record, "header"))?;
            bytes += line.len();
            if !whole || bytes > MAX_HEADER_BYTES {
                return Err(malformed(
                    record,
                    format!("header over {MAX_HEADER_BYTES} bytes"),
                ));
            }
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                return Ok(headers);
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
            }
        }
    }

    fn body(&mut self, record: u64, length: u64) -> Result<Vec<u8>, WarcError> {
        let mut body = Vec::with_capacity(usize::try_from(length.min(1 << 20)).unwrap_or(0));
        let read = (&mut self.reader)
            .take(length)
            .read_to_end(&mut body)
            .map_err(|source| WarcError::Io {
                offset: self.offset,
                source,
            })?;
        self.offset += read as u64;
        if (read as u64) < length {
            return Err(truncated(record, format!("{read} of {length} body bytes")));
        }
        Ok(body)
    }

    fn skip(&mut self, record: u64, length: u64) -> Result<(), WarcError> {
        let skipped =
            io::copy(&mut (&mut self.reader).take(length), &mut io::sink()).map_err(|source| {
                WarcError::Io {
                    offset: self.offset,
                    source,
                }
            })?;
        self.offset += skipped;
        if skipped < length {
            return Err(truncated(
                record,
                format!("{skipped} of {length} body bytes"),
            ));
        }
        Ok(())
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Result<WarcItem, WarcError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_record();
        match &next {
            Err(WarcError::Malformed { .. }) => self.resync = true,
            Err(_) => self.failed = true,
            Ok(_) => {}
        }
        next.transpose()
    }
}

struct HttpResponse {
    content_type: Option<String>,
    payload: Vec<u8>,
}

/// The header and payload of an HTTP response as WARC stores it.
fn http_response(bytes: &[u8]) -> Result<HttpResponse, String> {
    let end = find(bytes, b"\r\n\r\n")
        .map(|at| (at, at + 4))
        .or_else(|| find(bytes, b"\n\n").map(|at| (at, at + 2)))
        .ok_or("HTTP response without the blank line ending its header")?;
    let (head, payload) = bytes.split_at(end.1);
    #[expect(
        clippy::indexing_slicing,
        reason = "head ends at end.1, past the blank line that starts at end.0"
    )]
    let head = String::from_utf8_lossy(&head[..end.0]);
    let mut lines = head.lines();
    let status = lines.next().unwrap_or_default();
    if !status.starts_with("HTTP/") {
        return Err(format!(
            "HTTP status line expected, found {:?}",
            clip(status)
        ));
    }
    let mut content_type = None;
    let mut chunked = false;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-type" => content_type = Some(value.trim().to_string()),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                _ => {}
            }
        }
    }
    let payload = if chunked {
        dechunk(payload).ok_or("malformed chunked transfer encoding")?
    } else {
        payload.to_vec()
    };
    Ok(HttpResponse {
        content_type,
        payload,
    })
}

/// The payload of a chunked body (`size CRLF data CRLF … 0 CRLF`).
fn dechunk(mut bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    loop {
        let line_end = find(bytes, b"\r\n")?;
        let (size_line, rest) = bytes.split_at(line_end);
        let size = std::str::from_utf8(size_line).ok()?;
        let size = size.split(';').next()?.trim();
        let size = usize::from_str_radix(size, 16).ok()?;
        let rest = rest.get(2..)?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        let after = rest.get(size..)?;
        bytes = after.strip_prefix(b"\r\n").unwrap_or(after);
    }
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value.as_str())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn clip(text: &str) -> String {
    text.chars().take(60).collect()
}

fn malformed(offset: u64, what: impl Into<String>) -> WarcError {
    WarcError::Malformed {
        offset,
        what: what.into(),
    }
}

fn truncated(offset: u64, what: impl Into<String>) -> WarcError {
    WarcError::Truncated {
        offset,
        what: what.into(),
    }
}
