//! The little HTTP/1.1 the load generators of `fpdb serve` speak over
//! std sockets: responses with a Content-Length body.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

use anyhow::{Context, Result};

/// Reads one response; returns its status and body.
pub fn read_response(reader: &mut BufReader<TcpStream>) -> Result<(u16, Vec<u8>)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {line:?}"))?;
    let mut length = 0usize;
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse()?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok((status, body))
}
