//! `fpdb serve`: the database over HTTP/JSON (the `fpdb-server` crate).

use std::io::Write as _;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use fpdb::OpenOptions;
use fpdb_server::{Limits, ServeOptions, Server, Tls, Tokens};

use crate::cli::ServeArgs;

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
        backup_dir: args.backup_dir,
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
