//! `fpdb remove`: forget documents by id, in one atomic write.

use anyhow::{bail, Result};

use crate::cli::RemoveArgs;
use crate::input::read_ids;

pub fn run(args: RemoveArgs) -> Result<()> {
    let mut ids = args.ids;
    if let Some(path) = &args.id_file {
        ids.extend(read_ids(path)?);
    }
    if ids.is_empty() {
        bail!("no ids to remove: give them as arguments or with --id-file FILE");
    }
    if let Some(bad) = ids
        .iter()
        .find(|id| id.is_empty() || id.len() > fpdb::MAX_ID_BYTES)
    {
        bail!(
            "id of {} bytes: ids are 1 to {} bytes",
            bad.len(),
            fpdb::MAX_ID_BYTES
        );
    }
    let db = super::open_writable(&args.db, args.sync)?;
    let removed = db.remove_batch(&ids)? as u64;
    eprintln!(
        "fpdb: removed {removed} of {} ({} not stored)",
        super::count(ids.len() as u64, "id"),
        ids.len() as u64 - removed
    );
    Ok(())
}
