//! The database against a model: random inserts, re-inserts, removes,
//! merges and reopens, and after each step every query is compared with a
//! brute-force scan of a `BTreeMap` of id → fingerprint. Exactness is
//! proven here, not assumed.

use std::collections::BTreeSet;

use fpdb::DesignChoice;
use fpdb::{Db, Fingerprint, OpenOptions, Options};
use fpdb_testkit::{brute_force, ids_by_fingerprint, memory_temp_dir, Model};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    Insert(u8, u64),
    /// Insert a fingerprint close to one already stored.
    InsertNear(u8, u8, u64),
    Remove(u8),
    Merge,
    Reopen,
    Query(u64),
}

fn step() -> impl Strategy<Value = Step> {
    // Fingerprints from a small pool of prefixes, so that near-duplicates,
    // shared prefixes and exact duplicates are common.
    let fp = prop_oneof![
        any::<u64>(),
        (0u64..4, any::<u16>()).prop_map(|(hi, lo)| (hi << 62) | u64::from(lo)),
        Just(0u64),
        Just(u64::MAX),
    ];
    prop_oneof![
        6 => (any::<u8>(), fp.clone()).prop_map(|(id, fp)| Step::Insert(id % 40, fp)),
        4 => (any::<u8>(), any::<u8>(), any::<u64>()).prop_map(|(id, of, flips)| Step::InsertNear(id % 40, of % 40, flips)),
        3 => any::<u8>().prop_map(|id| Step::Remove(id % 40)),
        1 => Just(Step::Merge),
        1 => Just(Step::Reopen),
        3 => fp.prop_map(Step::Query),
    ]
}

/// Flips 0 to 4 bits of `fp` chosen by `bits`.
fn near(fp: u64, bits: u64) -> u64 {
    let count = bits % 5;
    (0..count).fold(fp, |f, i| f ^ (1 << ((bits >> (8 + 6 * i)) & 63)))
}

fn check_all(db: &Db, model: &Model, query: Fingerprint) {
    let by_fp = ids_by_fingerprint(model);
    // Past the database's k too: neighbouring prefixes are probed.
    for k in (0..=db.k()).chain([db.k() + 4]) {
        assert_eq!(
            db.query(query, k).unwrap(),
            brute_force(&by_fp, query, k),
            "query {query} k {k}"
        );
    }
}

/// Cases per property, `FPDB_MODEL_CASES` to run more (e.g. in a soak).
fn cases() -> u32 {
    std::env::var("FPDB_MODEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

fn run(steps: Vec<Step>, design: &str, delta_limit: usize, block_bytes: usize) {
    let dir = memory_temp_dir("fpdb-model-");
    let path = dir.path().join("db");
    let options = Options::default()
        .design(design.parse::<DesignChoice>().unwrap())
        .block_bytes(block_bytes);
    let open = OpenOptions::default().delta_limit(delta_limit);
    drop(Db::create(&path, options).unwrap());
    let mut db = open.open(&path).unwrap();
    let mut model = Model::new();
    for step in steps {
        match step {
            Step::Insert(id, fp) => {
                let id = format!("doc-{id}");
                db.insert(&id, Fingerprint(fp)).unwrap();
                model.insert(id, Fingerprint(fp));
            }
            Step::InsertNear(id, of, bits) => {
                let base = model.get(&format!("doc-{of}")).map_or(bits, |f| f.0);
                let fp = Fingerprint(near(base, bits));
                let id = format!("doc-{id}");
                db.insert(&id, fp).unwrap();
                model.insert(id, fp);
            }
            Step::Remove(id) => {
                let id = format!("doc-{id}");
                assert_eq!(db.remove(&id).unwrap(), model.remove(&id));
            }
            Step::Merge => db.merge().unwrap(),
            Step::Reopen => {
                drop(db);
                db = open.open(&path).unwrap();
            }
            Step::Query(fp) => check_all(&db, &model, Fingerprint(fp)),
        }
        let stats = db.stats();
        assert_eq!(stats.ids, model.len() as u64);
        assert_eq!(
            stats.fingerprints,
            model.values().collect::<BTreeSet<_>>().len() as u64
        );
    }
    // Finally every stored fingerprint, and a near copy of each, is found.
    for fp in model.values() {
        check_all(&db, &model, *fp);
        check_all(&db, &model, Fingerprint(fp.0 ^ 0b101));
    }
    for (id, fp) in &model {
        assert_eq!(db.get(id).unwrap(), Some(*fp));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn matches_model_with_frequent_merges(steps in prop::collection::vec(step(), 1..120)) {
        run(steps, "auto", 8, 64);
    }

    #[test]
    fn matches_model_with_rare_merges(steps in prop::collection::vec(step(), 1..120)) {
        run(steps, "split-4-4", 1000, 128);
    }

    #[test]
    fn matches_model_with_one_level_design(steps in prop::collection::vec(step(), 1..120)) {
        run(steps, "10", 3, 1024);
    }
}

#[test]
fn many_fingerprints_in_many_blocks() {
    // Enough keys for many blocks per table and several merges that split
    // blocks, with queries checked against the model at the end.
    let steps: Vec<Step> = (0u64..3000)
        .map(|i| {
            let x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            if i % 7 == 0 {
                Step::InsertNear((i % 250) as u8, ((i / 3) % 250) as u8, x)
            } else {
                Step::Insert((i % 250) as u8, x)
            }
        })
        .collect();
    run(steps, "auto", 200, 256);
}
