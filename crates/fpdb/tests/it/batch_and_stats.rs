//! `remove_batch` against one-by-one removal, and the stats warning for a
//! database that has outgrown its design.

use fpdb::{Db, Fingerprint, Options};

fn random_fingerprints(n: usize, mut seed: u64) -> Vec<Fingerprint> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            Fingerprint(seed)
        })
        .collect()
}

/// `n` random fingerprints under the ids `doc-0`, `doc-1`, …
fn random_documents(n: usize, seed: u64) -> Vec<(String, Fingerprint)> {
    random_fingerprints(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, fp)| (format!("doc-{i}"), fp))
        .collect()
}

fn exported(db: &Db) -> Vec<(String, Fingerprint)> {
    db.export().unwrap().map(Result::unwrap).collect()
}

#[test]
fn remove_batch_matches_removing_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let one = Db::create(dir.path().join("one"), Options::default()).unwrap();
    let batch = Db::create(dir.path().join("batch"), Options::default()).unwrap();
    let fps = random_fingerprints(500, 7);
    // Pairs of ids share fingerprints, so some removals empty a
    // fingerprint and some do not.
    let documents: Vec<(String, Fingerprint)> = (0..1000)
        .map(|i| (format!("id-{i}"), fps[i % 500]))
        .collect();
    for db in [&one, &batch] {
        db.insert_batch(&documents).unwrap();
        db.merge().unwrap();
    }
    let mut ids: Vec<String> = (0..1000).step_by(3).map(|i| format!("id-{i}")).collect();
    ids.push("never-stored".into());
    ids.push("id-0".into()); // twice in one batch
    let mut removed_one = 0;
    for id in &ids {
        if one.remove(id).unwrap().is_some() {
            removed_one += 1;
        }
    }
    let removed_batch = batch.remove_batch(&ids).unwrap();
    assert_eq!(removed_batch, removed_one);
    assert_eq!(exported(&batch), exported(&one));
    assert_eq!(batch.stats().fingerprints, one.stats().fingerprints);
    assert_eq!(batch.stats().ids, one.stats().ids);
    for fp in &fps[..50] {
        assert_eq!(batch.query(*fp, 3).unwrap(), one.query(*fp, 3).unwrap());
    }
    assert!(batch.verify().unwrap().is_clean());
    assert!(matches!(
        batch.remove_batch(&[""]),
        Err(fpdb::Error::BadId { .. })
    ));
}

#[test]
fn stats_warn_when_the_design_is_outgrown() {
    let dir = tempfile::tempdir().unwrap();
    let fps = random_fingerprints(40_000, 11);
    let documents: Vec<(String, Fingerprint)> = fps
        .iter()
        .enumerate()
        .map(|(i, fp)| (i.to_string(), *fp))
        .collect();
    let sized = |k: u32, expected: u64| {
        Options::default()
            .k(k)
            .expected_size(expected)
            .block_bytes(128)
    };
    // k = 7 designed for 100 fingerprints has short prefixes: probes read
    // many blocks.
    let small = Db::create(dir.path().join("small"), sized(7, 100)).unwrap();
    small.insert_batch(&documents).unwrap();
    small.merge().unwrap();
    let stats = small.stats();
    assert!(stats.keys_per_block > 0.0);
    assert!(
        stats.candidates_per_probe > 4.0 * stats.keys_per_block,
        "{stats:?}"
    );
    assert_eq!(stats.warnings.len(), 1, "{stats:?}");
    assert!(stats.warnings[0].contains("--expected"));
    // Designed for them: no warning.
    let right = Db::create(dir.path().join("right"), sized(3, 40_000)).unwrap();
    right.insert_batch(&documents).unwrap();
    right.merge().unwrap();
    let stats = right.stats();
    assert!(stats.warnings.is_empty(), "{stats:?}");
}

/// Merges that touch every block re-cut them into full blocks, as a bulk
/// load would; splitting each overflowing block in two on its own left
/// tables about three quarters full.
#[test]
fn merges_that_touch_neighbouring_blocks_leave_them_full() {
    let dir = tempfile::tempdir().unwrap();
    let block_bytes = 256;
    let db = Db::create(
        dir.path().join("db"),
        Options::default().block_bytes(block_bytes),
    )
    .unwrap();
    let fps = random_fingerprints(40_000, 11);
    for (round, chunk) in fps.chunks(5_000).enumerate() {
        let documents: Vec<(String, Fingerprint)> = chunk
            .iter()
            .enumerate()
            .map(|(i, &fp)| (format!("{round}-{i}"), fp))
            .collect();
        db.insert_batch(&documents).unwrap();
        db.merge().unwrap();
    }
    for (index, table) in db.stats().tables.iter().enumerate() {
        let fill = table.bytes as f64 / (table.blocks * block_bytes) as f64;
        assert!(
            fill > 0.9,
            "table {index}: blocks {fill:.2} full on average"
        );
    }
    // Still exact: every fingerprint is found at distance 0.
    for &fp in fps.iter().step_by(97) {
        assert_eq!(db.query(fp, 0).unwrap().len(), 1, "{fp}");
    }
}

#[test]
fn a_merge_keeps_its_blocks_in_memory_within_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    drop(Db::create(&path, Options::default()).unwrap());
    let fps = random_fingerprints(30_000, 5);
    let documents: Vec<(String, Fingerprint)> = fps
        .iter()
        .enumerate()
        .map(|(i, &fp)| (format!("doc-{i}"), fp))
        .collect();
    let table_bytes = |db: &Db| db.stats().tables.iter().map(|t| t.bytes).sum::<u64>();

    // Without a limit every block the merges wrote is kept, before any
    // query reads one.
    let db = Db::open(&path).unwrap();
    db.insert_batch(&documents[..20_000]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[20_000..]).unwrap();
    db.merge().unwrap();
    let stats = db.stats();
    assert!(
        stats.block_cache_bytes as u64 >= table_bytes(&db),
        "{} bytes kept of {} written",
        stats.block_cache_bytes,
        table_bytes(&db)
    );
    for &fp in fps.iter().step_by(101) {
        let flipped = Fingerprint(fp.0 ^ 0b101);
        let found = db.query(flipped, 3).unwrap();
        assert!(found.iter().any(|m| m.fingerprint == fp && m.distance == 2));
    }
    drop(db);

    // A small limit is respected, and queries still read what is not kept.
    let limit = 20_000;
    let db = fpdb::OpenOptions::default()
        .block_cache_bytes(limit)
        .open(&path)
        .unwrap();
    db.remove_batch(&["doc-0", "doc-1"]).unwrap();
    db.merge().unwrap();
    assert!(db.stats().block_cache_bytes <= limit);
    assert!(db.stats().block_cache_bytes > 0);
    assert!(db.query(fps[0], 0).unwrap().is_empty());
    for &fp in fps.iter().skip(2).step_by(101) {
        assert_eq!(db.query(fp, 0).unwrap().len(), 1, "{fp}");
    }
}

#[test]
fn stats_report_rocksdb_own_size_of_each_table() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    let documents = random_documents(20_000, 9);
    db.insert_batch(&documents).unwrap();
    // Compacted: the blocks are in SST files, and replaced ones are gone.
    db.compact().unwrap();
    for (index, table) in db.stats().tables.iter().enumerate() {
        // Blocks are stored uncompressed: the files hold at least them,
        // and RocksDB's index, filter and framing add a little.
        assert!(
            table.disk_bytes >= table.bytes,
            "table {index}: {} bytes on disk for {} bytes of blocks",
            table.disk_bytes,
            table.bytes
        );
        assert!(
            table.disk_bytes < table.bytes * 2,
            "table {index}: {} bytes on disk for {} bytes of blocks",
            table.disk_bytes,
            table.bytes
        );
    }
}

#[test]
fn blocks_a_merge_replaced_leave_the_files_without_a_manual_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    let documents = random_documents(40_000, 11);
    // Three merges, each rewriting nearly every block of every table
    // (random keys land in every block) and flushed to its own file, as a
    // large merge is; no `Db::compact`.
    for part in documents.chunks(documents.len() / 4).take(3) {
        db.insert_batch(part).unwrap();
        db.merge().unwrap();
        db.flush().unwrap();
    }
    for (index, table) in db.stats().tables.iter().enumerate() {
        // One copy of the blocks plus RocksDB's framing; each old copy
        // left behind would add about the table's size again.
        assert!(
            table.disk_bytes >= table.bytes && table.disk_bytes * 4 < table.bytes * 5,
            "table {index}: {} bytes on disk for {} bytes of blocks",
            table.disk_bytes,
            table.bytes
        );
    }
}

#[test]
fn waiting_for_compactions_on_a_read_only_handle_returns_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::create(&path, Options::default()).unwrap();
    db.insert_batch(&random_documents(1_000, 13)).unwrap();
    drop(db);
    let db = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    db.flush().unwrap();
    assert_eq!(db.stats().fingerprints, 1_000);
}

/// `n` URL-like ids (a few sites, dated paths, slugs) with random
/// fingerprints.
fn url_documents(n: usize, seed: u64) -> Vec<(String, Fingerprint)> {
    const WORDS: [&str; 12] = [
        "market", "rain", "city", "council", "school", "river", "price", "team", "festival",
        "road", "report", "harbour",
    ];
    random_fingerprints(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, fp)| {
            let pick = |salt: u64| (fp.0.rotate_left(salt as u32 * 7) % 1000) as usize;
            let id = format!(
                "https://www.site{}.example.com/{}/2024/{:02}/{:02}/{}-{}-{i}.html",
                pick(1) % 20,
                WORDS[pick(2) % WORDS.len()],
                pick(3) % 12 + 1,
                pick(4) % 28 + 1,
                WORDS[pick(5) % WORDS.len()],
                WORDS[pick(6) % WORDS.len()],
            );
            (id, fp)
        })
        .collect()
}

#[test]
fn ids_are_stored_compressed_whether_bulk_loaded_or_inserted() {
    let documents = url_documents(30_000, 21);
    let raw: u64 = documents.iter().map(|(id, _)| id.len() as u64).sum();
    let dir = tempfile::tempdir().unwrap();

    let mut loaded = Db::create(dir.path().join("loaded"), Options::default()).unwrap();
    let mut loader = loaded.bulk_loader(fpdb::BulkOptions::default()).unwrap();
    loader
        .add_all(documents.iter().map(|(id, fp)| (id.as_str(), *fp)))
        .unwrap();
    loader.finish().unwrap();

    let inserted = Db::create(dir.path().join("inserted"), Options::default()).unwrap();
    inserted.insert_batch(&documents).unwrap();
    inserted.compact().unwrap();

    // Each id is stored twice (`id_fp` and `fp_ids`) with its 8-byte
    // fingerprint: uncompressed that is over twice the ids' own bytes.
    for (name, db) in [("bulk-loaded", &loaded), ("inserted", &inserted)] {
        let on_disk = db.stats().ids_disk_bytes;
        assert!(
            on_disk > 0 && on_disk < raw,
            "{name}: ids take {on_disk} bytes on disk for {raw} bytes of ids"
        );
    }
}
