//! Stopping: SIGTERM or SIGINT starts a graceful shutdown (no new
//! connections, requests in flight are answered), as does a
//! [`ShutdownHandle`].

use std::time::Duration;

use axum_server::Handle;

/// Stops a running server gracefully from another thread.
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    pub(crate) handle: Handle<std::net::SocketAddr>,
    pub(crate) drain: Duration,
}

impl ShutdownHandle {
    /// Stops accepting connections; the server answers the requests in
    /// flight (for at most its drain time) and `run` returns.
    pub fn shutdown(&self) {
        self.handle.graceful_shutdown(Some(self.drain));
    }
}

/// Resolves at the first SIGTERM or SIGINT.
pub(crate) async fn signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot watch SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = terminate => tracing::info!("SIGTERM: draining"),
        result = tokio::signal::ctrl_c() => {
            if result.is_ok() {
                tracing::info!("SIGINT: draining");
            } else {
                std::future::pending::<()>().await;
            }
        }
    }
}
