//! Binding, TLS, serving until a signal, draining and flushing.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum_server::accept::NoDelayAcceptor;
use axum_server::tls_rustls::RustlsConfig;
use axum_server::Handle;
use fpdb::Db;

use crate::app::router;
use crate::error::ServeError;
use crate::limits::Limits;
use crate::metrics::Metrics;
use crate::shutdown::{signal, ShutdownHandle};
use crate::state::AppState;
use crate::tokens::Tokens;
use crate::writer::Writer;

/// TLS from PEM files.
#[derive(Debug, Clone)]
pub struct Tls {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Where to listen (port 0: any free port).
    pub listen: SocketAddr,
    /// Serve HTTPS with these files instead of plain HTTP.
    pub tls: Option<Tls>,
    /// Require one of these bearer tokens (none: anyone may do anything).
    pub tokens: Option<Tokens>,
    /// Per-request limits.
    pub limits: Limits,
    /// After SIGTERM, how long requests in flight may take to finish.
    pub drain: Duration,
    /// Where `POST /v1/backup` writes backups (none: backups are off).
    pub backup_dir: Option<PathBuf>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 7800)),
            tls: None,
            tokens: None,
            limits: Limits::default(),
            drain: Duration::from_secs(30),
            backup_dir: None,
        }
    }
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Server {
    runtime: tokio::runtime::Runtime,
    listener: TcpListener,
    address: SocketAddr,
    tls: Option<RustlsConfig>,
    state: AppState,
    limits: Limits,
    handle: Handle<SocketAddr>,
    drain: Duration,
}

impl Server {
    /// Binds `options.listen` for `db` and loads the TLS files; nothing is
    /// accepted until [`Server::run`].
    pub fn bind(db: Db, options: ServeOptions) -> Result<Server, ServeError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("fpdb-serve")
            .build()
            .map_err(|source| ServeError::Io {
                what: "starting the runtime".into(),
                source,
            })?;
        let tls = match &options.tls {
            None => None,
            Some(tls) => {
                // ring, the provider this crate builds rustls with; an
                // error only says one is installed already.
                let _ = rustls::crypto::ring::default_provider().install_default();
                let config = runtime
                    .block_on(RustlsConfig::from_pem_file(&tls.cert, &tls.key))
                    .map_err(|error| {
                        ServeError::Tls(format!(
                            "{} and {}: {error}",
                            tls.cert.display(),
                            tls.key.display()
                        ))
                    })?;
                Some(config)
            }
        };
        let listener = TcpListener::bind(options.listen).map_err(|source| ServeError::Io {
            what: format!("listening on {}", options.listen),
            source,
        })?;
        let address = listener.local_addr().map_err(|source| ServeError::Io {
            what: "the listening address".into(),
            source,
        })?;
        let db = Arc::new(db);
        let metrics = Arc::new(Metrics::default());
        let state = AppState {
            writer: Writer::start(&db, metrics.clone()).map_err(|source| ServeError::Io {
                what: "starting the writer thread".into(),
                source,
            })?,
            db,
            tokens: options.tokens.map(Arc::new),
            limits: options.limits,
            metrics,
            backup_dir: options.backup_dir.map(Arc::new),
        };
        Ok(Server {
            runtime,
            listener,
            address,
            tls,
            state,
            limits: options.limits,
            handle: Handle::new(),
            drain: options.drain,
        })
    }

    /// The address bound (with the port chosen when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The router [`Server::run`] serves every connection with: every
    /// endpoint behind the token check, the limits and the metrics, to
    /// call without a socket (tower's `oneshot`).
    pub fn router(&self) -> axum::Router {
        router(self.state.clone())
    }

    /// A handle that stops [`Server::run`] from another thread.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            handle: self.handle.clone(),
            drain: self.drain,
        }
    }

    /// Serves until SIGTERM, SIGINT or a [`ShutdownHandle`]; then answers
    /// the requests in flight (up to the drain time), flushes the
    /// database and returns.
    pub fn run(self) -> Result<(), ServeError> {
        let Server {
            runtime,
            listener,
            address,
            tls,
            state,
            limits,
            handle,
            drain,
        } = self;
        let db = state.db.clone();
        let app = router(state);
        // Each answer goes out as soon as it is written rather than
        // waiting on Nagle's algorithm for the client's acknowledgement
        // of its first segments (measured: batch answers of 10,000
        // fingerprints 1.1-1.6 times as fast, docs/BENCHMARKS.md).
        let served = runtime.block_on(async move {
            let watcher = handle.clone();
            tokio::spawn(async move {
                signal().await;
                watcher.graceful_shutdown(Some(drain));
            });
            let io_error = |source| ServeError::Io {
                what: format!("serving on {address}"),
                source,
            };
            tracing::info!(%address, tls = tls.is_some(), "accepting connections");
            match tls {
                None => {
                    let mut server = axum_server::from_tcp(listener)
                        .map_err(io_error)?
                        .acceptor(NoDelayAcceptor::new());
                    server
                        .http_builder()
                        .http1()
                        .header_read_timeout(Some(limits.header_timeout));
                    server
                        .handle(handle)
                        .serve(app.into_make_service())
                        .await
                        .map_err(io_error)
                }
                Some(config) => {
                    let mut server = axum_server::tls_rustls::from_tcp_rustls(listener, config)
                        .map_err(io_error)?
                        .map(|tls| tls.acceptor(NoDelayAcceptor::new()));
                    server
                        .http_builder()
                        .http1()
                        .header_read_timeout(Some(limits.header_timeout));
                    server
                        .handle(handle)
                        .serve(app.into_make_service())
                        .await
                        .map_err(io_error)
                }
            }
        });
        // Blocking work still running past the drain time finishes here.
        runtime.shutdown_timeout(drain);
        served?;
        if !db.is_read_only() {
            db.flush().map_err(ServeError::Flush)?;
        }
        tracing::info!("stopped");
        Ok(())
    }
}

/// Logs to standard error, one line per event, filtered by `RUST_LOG`
/// (default `info`). For binaries; a library leaves this to its caller.
pub fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
}
