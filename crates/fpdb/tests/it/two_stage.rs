//! Two-stage matching against brute force: every answer of `find`, of
//! `find_batch` and of `check_and_insert_document` equals the match rule applied to every
//! stored document, through inserts, bare fingerprints, removals,
//! re-inserts, merges, reopening and repair.

use std::collections::BTreeMap;

use fpdb::{BatchStrategy, Confirmation, Db, Document, Error, Fingerprint, MatchRule, Near};
use fpdb_testkit::{create_temp_db, small_options, Rng};

/// What the model keeps of a stored document.
#[derive(Clone)]
struct Stored {
    fingerprint: Fingerprint,
    signature: Vec<u8>,
}

type Model = BTreeMap<String, Stored>;

fn stored(document: &Document, confirmation: Option<&Confirmation>) -> Stored {
    Stored {
        fingerprint: document.fingerprint,
        signature: document.stored_bytes(confirmation),
    }
}

/// The rule applied to every stored document, in `find`'s order.
fn brute_force(model: &Model, query: &Document, rule: &MatchRule) -> Vec<Near> {
    let signature = query.stored_bytes(rule.confirmation.as_ref());
    let mut near: Vec<Near> = model
        .iter()
        .filter_map(|(id, stored)| {
            let distance = stored.fingerprint.distance(query.fingerprint);
            let xor = stored.fingerprint.0 ^ query.fingerprint.0;
            rule.judge(xor, &signature, &stored.signature)
                .map(|similarity| Near {
                    id: id.clone(),
                    fingerprint: stored.fingerprint,
                    distance,
                    similarity,
                })
        })
        .collect();
    near.sort_by(|a, b| {
        (a.distance, a.fingerprint, &a.id).cmp(&(b.distance, b.fingerprint, &b.id))
    });
    near
}

/// Texts in families: each family a base of 60 words from a small
/// vocabulary, its members the base with 0 to 60% of the words replaced,
/// so pairs fall on both sides of the radius and of the threshold.
fn text(rng: &mut Rng, base: &[u64], percent: u64) -> String {
    base.iter()
        .map(|&word| {
            let word = if rng.chance(percent) {
                rng.below(500)
            } else {
                word
            };
            format!("w{word}x")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn family_text(rng: &mut Rng, bases: &[Vec<u64>]) -> String {
    let base = &bases[rng.below(bases.len() as u64) as usize];
    let percent = [0, 3, 8, 15, 30, 60][rng.below(6) as usize];
    text(rng, base, percent)
}

fn confirmed_options() -> fpdb::Options {
    small_options().confirmation(Some(Confirmation::recommended()))
}

/// The confirmations every test of both stages runs under: every
/// candidate within the radius; those the weak bits reach; and those
/// with the shared-shingle gate too.
fn confirmations() -> [Confirmation; 3] {
    [
        Confirmation::signatures_alone(),
        Confirmation::recommended().with_min_shared(0),
        // A gate these 60-word texts meet only well above the threshold.
        Confirmation::recommended().with_min_shared(45),
    ]
}

/// `find`, and a batch of the queries probed or merged, against brute
/// force.
fn assert_answers(db: &Db, model: &Model, queries: &[Document], rule: &MatchRule) {
    let expected: Vec<Vec<Near>> = queries
        .iter()
        .map(|query| brute_force(model, query, rule))
        .collect();
    for (query, expected) in queries.iter().zip(&expected) {
        let found = db.find(query, rule).unwrap();
        assert_eq!(&found, expected, "query {}", query.fingerprint);
    }
    for strategy in [BatchStrategy::Merge, BatchStrategy::Probe] {
        let batch = db.find_batch_with(queries, rule, strategy).unwrap();
        assert_eq!(batch, expected, "{strategy:?}");
    }
}

#[test]
fn find_and_check_equal_brute_force_through_every_change() {
    for confirmation in confirmations() {
        through_every_change(confirmation);
    }
}

fn through_every_change(confirmation: Confirmation) {
    let mut rng = Rng::new(0x7e57);
    let bases: Vec<Vec<u64>> = (0..12)
        .map(|_| (0..60).map(|_| rng.below(500)).collect())
        .collect();
    let (_dir, path, mut db) =
        create_temp_db(small_options().confirmation(Some(confirmation.clone())));
    let mut model = Model::new();
    let mut queries: Vec<Document> = Vec::new();
    let mut confirmed = 0;
    let mut rejected_within_k = 0;
    for round in 0..6 {
        for n in 0..60 {
            let id = format!("doc{}", rng.below(150));
            let document = if rng.chance(15) {
                // A bare fingerprint near a stored one, or anywhere.
                let near = model.values().next().map(|s| s.fingerprint);
                Document::from(match near {
                    Some(fp) if rng.chance(70) => rng.near(fp, 4),
                    _ => Fingerprint(rng.next_u64()),
                })
            } else {
                db.document_text(&family_text(&mut rng, &bases)).unwrap()
            };
            match n % 4 {
                0 => {
                    let rule = db.match_rule(3);
                    let checked = db.check_and_insert_document(&id, &document, &rule).unwrap();
                    let mut expected = brute_force(&model, &document, &rule);
                    expected.retain(|near| near.id != id);
                    assert_eq!(checked.near, expected);
                    assert_eq!(checked.previous, model.get(&id).map(|s| s.fingerprint));
                    model.insert(id, stored(&document, db.confirmation()));
                }
                1 if rng.chance(30) => {
                    db.remove(&id).unwrap();
                    model.remove(&id);
                }
                _ => {
                    db.insert_document(&id, &document).unwrap();
                    model.insert(id, stored(&document, db.confirmation()));
                }
            }
            queries.push(document);
        }
        queries.truncate(80);
        for query in &queries {
            confirmed += brute_force(&model, query, &db.match_rule(3))
                .iter()
                .filter(|near| near.similarity.is_some())
                .count();
            let distance_only = MatchRule {
                k: 3,
                confirmation: None,
            };
            rejected_within_k += brute_force(&model, query, &distance_only).len()
                - brute_force(&model, query, &db.match_rule(3))
                    .iter()
                    .filter(|near| near.distance <= 3)
                    .count();
        }
        assert_answers(&db, &model, &queries, &db.match_rule(3));
        assert_signature_counts(&db, &model);
        // Another rule over the same signatures: distance alone at 5.
        assert_answers(&db, &model, &queries, &db.match_rule(5));
        match round {
            1 => db.merge().unwrap(),
            3 => {
                drop(db);
                db = Db::open(&path).unwrap();
            }
            _ => {}
        }
    }
    // The data exercised both stages.
    assert!(confirmed > 100, "{confirmed} confirmed matches");
    assert!(rejected_within_k > 0, "no pair within k was rejected");
    fpdb_testkit::assert_verifies(&db);

    // Damage a table's file: repair rebuilds from the id map, whose
    // halves keep the signatures.
    db.merge().unwrap();
    db.flush().unwrap();
    drop(db);
    fpdb_testkit::damage_a_table_file(&path);
    let report = Db::repair(&path).unwrap();
    assert!(!report.damage.is_empty());
    assert_eq!(report.documents, model.len() as u64);
    let db = Db::open(&path).unwrap();
    assert_eq!(db.confirmation(), Some(&confirmation));
    assert_answers(&db, &model, &queries, &db.match_rule(3));
    assert_signature_counts(&db, &model);
}

/// `Db::signature_counts` against the model: the documents stored with a
/// signature and those stored bare.
fn assert_signature_counts(db: &Db, model: &Model) {
    let counts = db.signature_counts().unwrap();
    let signed = model.values().filter(|s| !s.signature.is_empty()).count() as u64;
    assert!(signed > 0 && signed < model.len() as u64, "{signed} signed");
    assert_eq!(
        (counts.signed, counts.bare),
        (signed, model.len() as u64 - signed)
    );
}

#[test]
fn texts_without_features_are_refused_not_matched() {
    let (_dir, _path, db) = create_temp_db(confirmed_options());
    for text in ["", "   ", "，。！", "1999 2024"] {
        assert!(
            matches!(db.document_text(text), Err(Error::NoFeatures)),
            "{text:?}"
        );
    }
    assert!(matches!(
        db.document_html(b"<html><body><p>  </p></body></html>", None),
        Err(Error::NoFeatures)
    ));
}

#[test]
fn a_database_without_confirmation_matches_by_distance_alone() {
    let (_dir, _path, db) = create_temp_db(small_options());
    let document = db
        .document_text("the river bank near the old mill")
        .unwrap();
    assert!(document.signature.is_none());
    db.insert_document("a", &document).unwrap();
    let near = db.find(&document, &db.match_rule(3)).unwrap();
    assert_eq!(near.len(), 1);
    assert_eq!((near[0].distance, near[0].similarity), (0, None));
}

#[test]
fn confirmations_survive_reopening_and_are_checked() {
    let layout = fpdb::simhash::SignatureLayout::new(32, 8, 3).unwrap();
    let confirmation = Confirmation::new(layout, 0.6, 7)
        .unwrap()
        .with_numbers_from(350)
        .unwrap();
    let (_dir, path, db) = create_temp_db(small_options().confirmation(Some(confirmation.clone())));
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_eq!(db.confirmation(), Some(&confirmation));
    assert_eq!(db.format_version(), fpdb::FORMAT_VERSION);
    assert!(matches!(
        Confirmation::new(layout, 0.5, fpdb::MAX_RADIUS + 1),
        Err(Error::InvalidOptions(_))
    ));
}

/// A bare document within a query's `k` matches by distance alone even
/// where the query's weak bits do not reach it (past 3 bits every
/// quarter may differ).
#[test]
fn bare_documents_within_k_are_found_past_the_weak_bits() {
    let (_dir, _path, db) =
        create_temp_db(small_options().confirmation(Some(Confirmation::recommended())));
    let query = db
        .document_text("near duplicate pages share most of their words and a few more")
        .unwrap();
    let weak = query.weak_bits.unwrap().0;
    // One bit outside the weak bits in each quarter, and one more.
    let mut xor = 0u64;
    for quarter in fpdb::simhash::QUARTERS {
        let outside = quarter & !weak;
        xor |= outside & outside.wrapping_neg();
    }
    let outside = !weak & !xor;
    xor |= outside & outside.wrapping_neg();
    assert_eq!(xor.count_ones(), 5);
    db.insert_document(
        "bare",
        &Document::from(Fingerprint(query.fingerprint.0 ^ xor)),
    )
    .unwrap();
    let rule = db.match_rule(5);
    let found = db.find(&query, &rule).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].distance, found[0].similarity), (5, None));
    assert!(db.find(&query, &db.match_rule(4)).unwrap().is_empty());
}

/// Weak bits are probed in tables keyed by the fingerprint's quarters:
/// `auto` picks split-4 for them at any size, and a design without such
/// tables is refused.
#[test]
fn weak_bits_need_tables_keyed_by_quarters() {
    let dir = tempfile::tempdir().unwrap();
    let weak = Some(Confirmation::recommended());
    let auto = fpdb::Options::default()
        .expected_size(1 << 30)
        .confirmation(weak.clone());
    let db = Db::create(dir.path().join("auto"), auto).unwrap();
    assert_eq!(db.design_name(), "split-4");
    drop(db);
    let named = fpdb::Options::default()
        .design(fpdb::DesignChoice::Named("split-5".into()))
        .confirmation(weak);
    let refused = Db::create(dir.path().join("named"), named);
    assert!(
        matches!(&refused, Err(Error::InvalidOptions(m)) if m.contains("quarters")),
        "{:?}",
        refused.err()
    );
    let plain = fpdb::Options::default()
        .design(fpdb::DesignChoice::Named("split-5".into()))
        .confirmation(Some(Confirmation::signatures_alone()));
    Db::create(dir.path().join("plain"), plain).unwrap();
}

/// A bulk load keeps each document's signature (the last of each id),
/// in memory and through spilled runs alike, and bare fingerprints stay
/// bare: `find` then answers as the rule applied to every document, and
/// as a database written by online inserts of the same documents.
#[test]
fn bulk_loads_keep_signatures_in_memory_and_through_spilled_runs() {
    for confirmation in confirmations() {
        bulk_loads_keep_signatures(confirmation);
    }
}

fn bulk_loads_keep_signatures(confirmation: Confirmation) {
    let options = small_options().confirmation(Some(confirmation));
    let mut rng = Rng::new(0xb01c);
    let bases: Vec<Vec<u64>> = (0..10)
        .map(|_| (0..60).map(|_| rng.below(500)).collect())
        .collect();
    let (_dir, _path, online) = create_temp_db(options.clone());
    let mut documents: Vec<(String, Document)> = Vec::new();
    for _ in 0..1_500 {
        let id = format!("doc{:04}", rng.below(1_100));
        let document = if rng.chance(10) {
            Document::from(Fingerprint(rng.next_u64()))
        } else {
            online
                .document_text(&family_text(&mut rng, &bases))
                .unwrap()
        };
        documents.push((id, document));
    }
    let mut model = Model::new();
    for (id, document) in &documents {
        online.insert_document(id, document).unwrap();
        model.insert(id.clone(), stored(document, online.confirmation()));
    }
    let rule = online.match_rule(online.k());
    let queries: Vec<Document> = documents.iter().take(120).map(|(_, d)| d.clone()).collect();
    let confirmed: usize = queries
        .iter()
        .map(|q| {
            brute_force(&model, q, &rule)
                .iter()
                .filter(|n| n.distance > rule.k)
                .count()
        })
        .sum();
    assert!(confirmed > 0, "no match past k to confirm");

    // 64 KiB of buffer spills runs many times over; the default does not.
    for memory in [None, Some(1 << 16)] {
        let (_dir, _path, mut db) = create_temp_db(options.clone());
        let mut options = fpdb::BulkOptions::default();
        if let Some(bytes) = memory {
            options = options.memory_bytes(bytes);
        }
        let mut loader = db.bulk_loader(options).unwrap();
        for (id, document) in &documents {
            loader.add_document(id, document).unwrap();
        }
        let summary = loader.finish().unwrap();
        assert_eq!(summary.spilled_runs > 0, memory.is_some(), "{summary:?}");
        assert_answers(&db, &model, &queries, &rule);
        for query in &queries {
            assert_eq!(
                db.find(query, &rule).unwrap(),
                online.find(query, &rule).unwrap()
            );
        }
        fpdb_testkit::assert_verifies(&db);
        assert_rule_pairs(&db, &model, &rule);
    }
}

/// `Db::rule_pairs` is the rule applied to every pair of stored documents.
fn assert_rule_pairs(db: &Db, model: &Model, rule: &MatchRule) {
    let (corpus, pairs) = db.rule_pairs(rule, &()).unwrap();
    let got: std::collections::BTreeSet<(String, String, u32)> = pairs
        .iter()
        .map(|p| {
            let (a, b) = (corpus.id(p.a).unwrap(), corpus.id(p.b).unwrap());
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            (a.to_string(), b.to_string(), p.distance)
        })
        .collect();
    let mut expected = std::collections::BTreeSet::new();
    let stored: Vec<(&String, &Stored)> = model.iter().collect();
    for (i, (a, x)) in stored.iter().enumerate() {
        for (b, y) in &stored[i + 1..] {
            let distance = x.fingerprint.distance(y.fingerprint);
            let xor = x.fingerprint.0 ^ y.fingerprint.0;
            if rule.judge(xor, &x.signature, &y.signature).is_some() {
                expected.insert(((*a).clone(), (*b).clone(), distance));
            }
        }
    }
    assert_eq!(got, expected);
    assert!(got.iter().any(|p| p.2 > rule.k), "no pair past k");
}

#[test]
fn a_bulk_load_refuses_a_signature_of_another_layout() {
    let (_dir, _path, mut db) = create_temp_db(confirmed_options());
    let other = fpdb::simhash::SignatureLayout::new(16, 8, 2).unwrap();
    let signature = fpdb::simhash::Signature::from_feature_hashes(other, &[1, 2, 3]).unwrap();
    let document = Document {
        fingerprint: Fingerprint(7),
        signature: Some(signature),
        shingles: 0,
        weak_bits: None,
    };
    let mut loader = db.bulk_loader(fpdb::BulkOptions::default()).unwrap();
    let expected = Confirmation::recommended().layout().bytes();
    assert!(matches!(
        loader.add_document("a", &document),
        Err(Error::SignatureLayout { expected: e, got: 16 }) if e == expected
    ));
}
