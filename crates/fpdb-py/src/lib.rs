//! The native part of the `fpdb` Python package (`fpdb._fpdb`): the
//! database handle, its results, fingerprinting and de-duplication
//! without a database, and settings measured on a sample (`tune`). The Python part (`python/fpdb/`) re-exports these
//! and defines the exception classes.

mod args;
mod bulk;
mod corpus;
mod db;
mod errors;
mod export;
mod files;
mod progress;
mod reports;
mod results;
mod signer;
mod signer_state;
mod spark;
mod tune;

use pyo3::prelude::*;

#[pymodule]
fn _fpdb(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<db::PyDb>()?;
    module.add_class::<results::PyMatch>()?;
    module.add_class::<results::PyChecked>()?;
    module.add_class::<results::PyBatchMatches>()?;
    module.add_class::<results::PyFingerprintPairs>()?;
    module.add_class::<export::PyExport>()?;
    module.add_function(wrap_pyfunction!(corpus::fingerprint, module)?)?;
    module.add_function(wrap_pyfunction!(corpus::fingerprint_many, module)?)?;
    module.add_function(wrap_pyfunction!(corpus::dedup, module)?)?;
    module.add_function(wrap_pyfunction!(corpus::page_text, module)?)?;
    module.add_function(wrap_pyfunction!(corpus::fingerprint_pages, module)?)?;
    module.add_function(wrap_pyfunction!(tune::tune, module)?)?;
    module.add_class::<signer::PySigner>()?;
    module.add_function(wrap_pyfunction!(signer::similarity, module)?)?;
    module.add_function(wrap_pyfunction!(signer::judge_pairs, module)?)?;
    module.add_class::<spark::PyBatchIndex>()?;
    module.add_function(wrap_pyfunction!(spark::design_for, module)?)?;
    module.add_function(wrap_pyfunction!(spark::route, module)?)?;
    module.add_function(wrap_pyfunction!(spark::pairs_in_partition, module)?)?;
    module.add_function(wrap_pyfunction!(spark::route_keys, module)?)?;
    module.add_function(wrap_pyfunction!(spark::reached_in_partition, module)?)?;
    module.add("DEFAULT_K", fpdb::DEFAULT_K)?;
    // The confirming rule's defaults, as `Db.create` and `dedup` take them
    // (fpdb.spark reads them to fill in its options).
    let confirmation = fpdb::Confirmation::recommended();
    module.add("CONFIRM_RADIUS", confirmation.radius())?;
    module.add("CONFIRM_THRESHOLD", confirmation.threshold())?;
    module.add("CONFIRM_WEAK_BITS", confirmation.weak_bits())?;
    module.add("CONFIRM_WEAK_FLIPS", confirmation.weak_flips())?;
    module.add("CONFIRM_MIN_SHARED", confirmation.min_shared())?;
    module.add("MAX_ID_BYTES", fpdb::MAX_ID_BYTES)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
