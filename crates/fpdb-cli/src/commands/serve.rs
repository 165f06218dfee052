//! `fpdb serve`: the database over HTTP/JSON (the `fpdb-server` crate).

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use fpdb::OpenOptions;
use fpdb_server::{Limits, ServeOptions, Server, Tls, Tokens};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database (`fpdb create` makes one).
    pub db: PathBuf,
    /// Address and port to listen on (port 0: any free port, printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7800")]
    pub listen: SocketAddr,
    /// Bearer tokens clients must send, one per line: `read-write <token>`
    /// or `read-only <token>` [default: no token needed].
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Open the database read-only and refuse writes (403): a reader
    /// beside a writer process, serving the database as it was when opened.
    #[arg(long)]
    pub read_only: bool,
    /// Serve HTTPS with this certificate chain (PEM; needs --tls-key).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Largest request body in bytes (413 beyond).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_body_bytes)]
    pub max_body_bytes: usize,
    /// Most documents, fingerprints or ids in one batch request (413 beyond).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_batch)]
    pub max_batch: usize,
    /// Longest a request may take, its body's upload included (503 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().request_timeout.as_secs_f64())]
    pub request_timeout: f64,
    /// After SIGTERM, how long requests in flight may take to finish.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub drain_timeout: f64,
}

pub fn run(args: ServeArgs) -> Result<()> {
    fpdb_server::init_logs();
    let tokens = args.token_file.as_deref().map(Tokens::read).transpose()?;
    let tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(Tls { cert, key }),
        _ => None,
    };
    let limits = Limits {
        max_body_bytes: args.max_body_bytes,
        max_batch: args.max_batch,
        request_timeout: seconds(args.request_timeout, "--request-timeout")?,
        ..Limits::default()
    };
    let db = if args.read_only {
        OpenOptions::new().read_only(true).open(&args.db)
    } else {
        // Every write acknowledged is on disk; concurrent writers share
        // the log syncs.
        OpenOptions::new().sync(true).open(&args.db)
    }
    .with_context(|| format!("cannot open {}", args.db.display()))?;
    let options = ServeOptions {
        listen: args.listen,
        tls,
        tokens,
        limits,
        drain: seconds(args.drain_timeout, "--drain-timeout")?,
    };
    let server = Server::bind(db, options)?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {}", server.local_addr())?;
        out.flush()?;
    }
    server.run()?;
    Ok(())
}

fn seconds(value: f64, flag: &str) -> Result<Duration> {
    if !(value.is_finite() && value > 0.0) {
        bail!("{flag}: {value} is not a positive number of seconds");
    }
    Ok(Duration::from_secs_f64(value))
}
