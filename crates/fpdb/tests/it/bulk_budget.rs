//! A bulk load answers exactly whatever its memory budget: with room to
//! spare, with room for the documents alone (sorted in place), spilled
//! with the tables still built in memory, and spilled with the tables
//! built through sorted runs.

use fpdb::Fingerprint;
use fpdb_testkit::{
    assert_equals_model, bulk_load_within, clustered_documents, create_temp_db, small_options,
    Model, Rng,
};

const DOCUMENTS: usize = 20_000;

/// Loads `documents` within `memory` bytes; returns the runs it spilled.
fn load_within(documents: &[(String, Fingerprint)], memory: usize, model: &Model) -> u64 {
    let (_dir, _, mut db) = create_temp_db(small_options());
    let documents = documents.iter().map(|(id, fp)| (id, *fp));
    let summary = bulk_load_within(&mut db, documents, memory);
    assert_eq!(summary.ids, model.len() as u64, "{summary:?}");
    assert_equals_model(&db, model, 300, &mut Rng::new(memory as u64));
    summary.spilled_runs
}

#[test]
fn every_memory_budget_loads_the_same_answers() {
    let mut rng = Rng::new(31);
    let mut documents = clustered_documents(&mut rng, DOCUMENTS);
    // Repeated ids: the last document of each wins, in every path.
    for i in (0..DOCUMENTS).step_by(17) {
        let fp = Fingerprint(rng.next_u64());
        documents.push((format!("doc-{i}"), fp));
    }
    let model: Model = documents.iter().cloned().collect();
    let n = documents.len();
    // What the loader's buffer holds: 24 bytes a document and its id.
    let buffer: usize = documents.iter().map(|(id, _)| 24 + id.len()).sum();

    // Room for the documents with their (fingerprint, id) pairs beside.
    assert_eq!(load_within(&documents, 1 << 30, &model), 0);
    // Room for the documents and the fingerprint set only: sorted in place.
    assert_eq!(load_within(&documents, buffer + 24 * n, &model), 0);
    // Too little for the documents, enough to build a table in memory.
    assert!(load_within(&documents, 34 * n, &model) > 0);
    // Too little for even one table: built through sorted runs.
    assert!(load_within(&documents, 12 * n, &model) > 0);
}
