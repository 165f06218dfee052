//! What every handler and middleware shares.

use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::FromRef;
use fpdb::Db;

use crate::limits::Limits;
use crate::metrics::Metrics;
use crate::tokens::Tokens;
use crate::writer::Writer;

/// What every handler shares.
#[derive(Clone, Debug)]
pub(crate) struct AppState {
    pub db: Arc<Db>,
    pub tokens: Option<Arc<Tokens>>,
    pub limits: Limits,
    pub metrics: Arc<Metrics>,
    /// Where `POST /v1/backup` writes (none: backups are off).
    pub backup_dir: Option<Arc<PathBuf>>,
    /// Where single check-and-inserts wait for their group.
    pub writer: Writer,
}

impl FromRef<AppState> for Limits {
    fn from_ref(state: &AppState) -> Limits {
        state.limits
    }
}
