//! The report's pages as a WARC file, for timing `fpdb load --input warc`
//! on real-shaped pages (`--warc FILE`).

use std::io::Write;

/// Appends one WARC/1.1 `response` record holding `html` as an HTTP 200
/// response for `uri` (no charset in the header: the page's own
/// `<meta>` says it, as on many real sites).
pub fn write_response(out: &mut impl Write, uri: &str, html: &[u8]) -> std::io::Result<()> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
        html.len()
    );
    let length = http.len() + html.len();
    write!(
        out,
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Date: 2026-11-25T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {length}\r\n\r\n{http}"
    )?;
    out.write_all(html)?;
    out.write_all(b"\r\n\r\n")
}
