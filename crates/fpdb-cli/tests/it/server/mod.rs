//! Real `fpdb serve` processes on 127.0.0.1 ports they pick, and a small
//! HTTP/1.1 client over a kept-alive connection, shared by the server
//! tests.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A running `fpdb serve`, killed when dropped.
pub struct Served {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Served {
    /// Starts `fpdb serve DB --listen 127.0.0.1:0 extra…` and waits for its
    /// `listening on ADDR` line.
    pub fn start(db: &Path, extra: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fpdb"))
            .arg("serve")
            .arg(db)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let addr = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("fpdb serve printed {line:?}, not `listening on ADDR`"))
            .trim()
            .parse()
            .unwrap();
        // Nothing else is printed on standard output: the rest is drained
        // so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stdout.read_to_string(&mut rest);
            assert!(rest.is_empty(), "fpdb serve printed more: {rest:?}");
        });
        Served { child, addr }
    }

    pub fn client(&self) -> Client {
        Client::new(self.addr, None)
    }

    pub fn client_with_token(&self, token: &str) -> Client {
        Client::new(self.addr, Some(token.to_string()))
    }

    /// Sends SIGTERM and returns the exit code.
    pub fn terminate(mut self) -> Option<i32> {
        let pid = self.child.id().to_string();
        let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(status.success());
        let code = self.child.wait().unwrap().code();
        std::mem::forget(self);
        code
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::mem::forget(self);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 connection, kept alive between requests.
pub struct Client {
    addr: SocketAddr,
    token: Option<String>,
    stream: Option<BufReader<TcpStream>>,
}

/// A response: status and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "status {} body {:?} is not JSON: {error}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The `error.field` and `error.kind` of an error answer.
    pub fn error(&self) -> (String, String) {
        let body = self.json();
        (
            body["error"]["field"].as_str().unwrap_or("").to_string(),
            body["error"]["kind"].as_str().unwrap().to_string(),
        )
    }
}

impl Client {
    pub fn new(addr: SocketAddr, token: Option<String>) -> Client {
        Client {
            addr,
            token,
            stream: None,
        }
    }

    /// `POST path` with a JSON body; panics unless the server answers.
    pub fn post(&mut self, path: &str, body: &Value) -> Response {
        self.try_request("POST", path, body.to_string().as_bytes())
            .unwrap_or_else(|error| panic!("POST {path}: {error}"))
    }

    /// `POST path`, 200 expected, the JSON answer.
    pub fn ok(&mut self, path: &str, body: &Value) -> Value {
        let response = self.post(path, body);
        assert_eq!(
            response.status,
            200,
            "POST {path} {body}: {}",
            response.text()
        );
        response.json()
    }

    pub fn get(&mut self, path: &str) -> Response {
        self.try_request("GET", path, b"")
            .unwrap_or_else(|error| panic!("GET {path}: {error}"))
    }

    /// One request with `body` as it is (any bytes).
    pub fn try_request(&mut self, method: &str, path: &str, body: &[u8]) -> io::Result<Response> {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        self.send_raw(&request)
    }

    /// Writes `request` (a whole HTTP request) and reads one response.
    pub fn send_raw(&mut self, request: &[u8]) -> io::Result<Response> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(self.addr)?;
            stream.set_read_timeout(Some(Duration::from_secs(60)))?;
            stream.set_nodelay(true)?;
            self.stream = Some(BufReader::new(stream));
        }
        let result = self.exchange(request);
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    fn exchange(&mut self, request: &[u8]) -> io::Result<Response> {
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| io::Error::other("no connection"))?;
        stream.get_mut().write_all(request)?;
        read_response(stream)
    }
}

/// Reads one response with a Content-Length body (what the server sends).
pub fn read_response(stream: &mut impl BufRead) -> io::Result<Response> {
    let mut line = String::new();
    if stream.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed before a response",
        ));
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line {line:?}")))?;
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        stream.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_string());
            if name == "content-length" {
                length = value.parse().map_err(io::Error::other)?;
            }
            headers.push((name, value));
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body)?;
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// A new database in `dir` (`fpdb create` with `args`).
pub fn create_db(dir: &Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let status = Command::new(env!("CARGO_BIN_EXE_fpdb"))
        .arg("create")
        .arg(&path)
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    path
}

/// 16 hex digits.
pub fn hex(fp: u64) -> String {
    format!("{fp:016x}")
}

/// The fingerprint in a JSON answer's hex string.
pub fn fp_of(value: &Value) -> u64 {
    u64::from_str_radix(value.as_str().unwrap(), 16).unwrap()
}
