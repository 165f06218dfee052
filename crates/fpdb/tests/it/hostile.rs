//! Hostile input through the library: ids at and over the limit, NUL
//! bytes, extreme fingerprints, k above the database's, bad paths, no
//! permission, a million duplicate ids in one batch, a full disk. Each
//! gets a typed error (or is stored faithfully) and a refused write leaves
//! the database exactly as it was (full export before and after).
//!
//! `FPDB_HOSTILE_DUPLICATES` sets the duplicate-id batch size (default one
//! million; `make soak` uses ten million).

use std::path::{Path, PathBuf};
use std::process::Command;

use fpdb::DesignChoice;
use fpdb::{Db, Error, Fingerprint, Options, MAX_ID_BYTES};
use fpdb_testkit::{assert_equals_model, export, Model, Rng};

fn small_options() -> Options {
    Options::default()
        .k(3)
        .expected_size(100_000)
        .design(DesignChoice::Named("4x16".into()))
}

/// A database holding a few hundred documents, some merged, some in the
/// delta, and the model of it.
fn seeded_db(path: &Path) -> (Db, Model) {
    let db = Db::create(path, small_options()).unwrap();
    let mut rng = Rng::new(11);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 400);
    db.insert_batch(&documents[..300]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[300..]).unwrap();
    let model = documents.into_iter().collect();
    (db, model)
}

#[test]
fn ids_at_and_over_the_limit_and_empty_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = seeded_db(&dir.path().join("db"));
    let before = export(&db);
    // 1024 bytes of UTF-8, in one-, two- and three-byte characters.
    let ascii = "a".repeat(MAX_ID_BYTES);
    let two_byte = "é".repeat(MAX_ID_BYTES / 2);
    let three_byte = format!("{}x", "€".repeat((MAX_ID_BYTES - 1) / 3));
    for id in [&ascii, &two_byte, &three_byte] {
        assert_eq!(id.len(), MAX_ID_BYTES);
    }
    let too_long = [
        "a".repeat(MAX_ID_BYTES + 1),
        format!("{two_byte}é"),
        "€".repeat(MAX_ID_BYTES / 3 + 1),
        "x".repeat(1 << 20),
    ];
    for id in too_long.iter().map(String::as_str).chain([""]) {
        let expected_len = id.len();
        let is_bad_id = |r: fpdb::Result<()>| matches!(r, Err(Error::BadId { len, max: MAX_ID_BYTES }) if len == expected_len);
        assert!(
            is_bad_id(db.insert(id, Fingerprint(1))),
            "insert {}",
            id.len()
        );
        assert!(is_bad_id(db.insert_batch(&[
            ("fine", Fingerprint(2)),
            (id, Fingerprint(3))
        ])));
        assert!(is_bad_id(db.remove(id).map(|_| ())));
        assert!(is_bad_id(
            db.check_and_insert(id, Fingerprint(4), 3).map(|_| ())
        ));
        assert!(is_bad_id(db.insert_text(id, "some text").map(|_| ())));
    }
    assert_eq!(export(&db), before, "a refused write changed the database");
    for id in [&ascii, &two_byte, &three_byte] {
        db.insert(id, Fingerprint(0xabc)).unwrap();
        model.insert(id.clone(), Fingerprint(0xabc));
    }
    assert_equals_model(&db, &model, 50, &mut Rng::new(1));
}

#[test]
fn nul_bytes_and_prefixes_in_ids_are_stored_faithfully() {
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = seeded_db(&dir.path().join("db"));
    // Ids that are prefixes of each other, differ only after a NUL, or are
    // all NUL: fp_ids keys are fingerprint ‖ id, so none may bleed into
    // another.
    let ids = [
        "a",
        "a\0",
        "a\0b",
        "\0",
        "\0\0\0",
        "a\u{0}\u{10FFFF}",
        "b\0",
    ];
    for (i, id) in ids.iter().enumerate() {
        let fp = Fingerprint(0x5555_0000 + (i as u64 % 2));
        db.insert(id, fp).unwrap();
        model.insert((*id).to_string(), fp);
    }
    let mut rng = Rng::new(2);
    assert_equals_model(&db, &model, 500, &mut rng);
    db.remove("a\0").unwrap();
    model.remove("a\0");
    db.merge().unwrap();
    assert_eq!(db.get("a").unwrap(), Some(Fingerprint(0x5555_0000)));
    assert_eq!(db.get("a\0").unwrap(), None);
    assert_equals_model(&db, &model, 500, &mut rng);
    let path = db.path().to_path_buf();
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 500, &mut rng);
}

#[test]
fn fingerprints_zero_and_all_ones_are_ordinary() {
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = seeded_db(&dir.path().join("db"));
    let mut rng = Rng::new(3);
    let edges = [0, u64::MAX, 1, u64::MAX - 1, 1 << 63, (1 << 63) - 1];
    for (i, &fp) in edges.iter().enumerate() {
        db.insert(&format!("edge-{i}"), Fingerprint(fp)).unwrap();
        model.insert(format!("edge-{i}"), Fingerprint(fp));
    }
    for round in 0..3 {
        for &fp in &edges {
            for k in 0..=3 {
                for query in [fp, fp ^ 0b111, fp ^ (0b11 << 62)] {
                    assert_eq!(
                        db.query(Fingerprint(query), k).unwrap(),
                        fpdb_testkit::brute_force(
                            &fpdb_testkit::ids_by_fingerprint(&model),
                            Fingerprint(query),
                            k
                        ),
                        "round {round}, query {query:016x}, k {k}"
                    );
                }
            }
        }
        assert_equals_model(&db, &model, 100, &mut rng);
        match round {
            0 => db.merge().unwrap(),
            _ => {
                db.remove("edge-0").unwrap();
                model.remove("edge-0");
                db.remove("edge-1").unwrap();
                model.remove("edge-1");
            }
        }
    }
}

#[test]
fn radius_above_the_widest_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = seeded_db(&dir.path().join("db"));
    let before = export(&db);
    for k in [fpdb::MAX_RADIUS + 1, 64, u32::MAX] {
        assert!(matches!(
            db.query(Fingerprint(9), k),
            Err(Error::RadiusTooLarge { k: got, max: fpdb::MAX_RADIUS }) if got == k
        ));
        assert!(matches!(
            db.query_batch(&[Fingerprint(9), Fingerprint(10)], k),
            Err(Error::RadiusTooLarge { .. })
        ));
        assert!(matches!(
            db.query_text("some page", k),
            Err(Error::RadiusTooLarge { .. })
        ));
        // Refused before anything is stored.
        assert!(matches!(
            db.check_and_insert("new-page", Fingerprint(9), k),
            Err(Error::RadiusTooLarge { .. })
        ));
    }
    // Near pairs and merged batches stop at the tables' own k.
    for k in [4, 7] {
        assert!(matches!(db.near_pairs(k), Err(Error::KTooLarge { .. })));
    }
    assert_eq!(export(&db), before);
    assert_eq!(db.get("new-page").unwrap(), None);
}

#[test]
fn paths_that_are_files_or_inside_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"not a database").unwrap();
    assert!(matches!(Db::open(&file), Err(Error::NotFound { path }) if path == file));
    assert!(matches!(
        fpdb::OpenOptions::new().read_only(true).open(&file),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        Db::create(&file, small_options()),
        Err(Error::AlreadyExists { .. })
    ));
    let inside = file.join("db");
    assert!(matches!(Db::open(&inside), Err(Error::NotFound { .. })));
    let error = Db::create(&inside, small_options()).unwrap_err();
    assert!(
        error.to_string().contains(&*file.to_string_lossy()),
        "{error}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not a database");
    // A directory that holds something else is not a database either.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), b"x").unwrap();
    assert!(matches!(Db::open(&other), Err(Error::NotFound { .. })));
    assert!(matches!(
        Db::create(&other, small_options()),
        Err(Error::AlreadyExists { .. })
    ));
}

#[test]
fn a_database_directory_without_permission_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let (db, model) = seeded_db(&path);
    drop(db);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(&path).is_ok() {
        // Root (or CAP_DAC_OVERRIDE) ignores permission bits.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        println!("SKIPPED: permission bits do not bind this user (running as root?)");
        return;
    }
    let open = Db::open(&path);
    let read_only = fpdb::OpenOptions::new().read_only(true).open(&path);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    for result in [open, read_only] {
        let error = result.unwrap_err();
        assert!(
            matches!(
                error,
                Error::NotFound { .. } | Error::Io { .. } | Error::Storage { .. }
            ),
            "{error:?}"
        );
    }
    let db = Db::open(&path).unwrap();
    assert_eq!(export(&db), model);
}

#[test]
fn a_million_duplicate_ids_in_one_batch_last_one_wins() {
    let count = std::env::var("FPDB_HOSTILE_DUPLICATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000u64);
    let dir = tempfile::tempdir().unwrap();
    let (db, mut model) = seeded_db(&dir.path().join("db"));
    // Ten ids, each written count / 10 times with a new fingerprint, and
    // an id of the seeded database among them.
    let ids: Vec<String> = (0..9)
        .map(|i| format!("dup-{i}"))
        .chain(["doc-5".to_string()])
        .collect();
    let batch: Vec<(&str, Fingerprint)> = (0..count)
        .map(|i| (ids[(i % 10) as usize].as_str(), fpdb_testkit::spread(i)))
        .collect();
    let started = std::time::Instant::now();
    db.insert_batch(&batch).unwrap();
    println!(
        "{count} duplicate ids in one insert_batch: {:?}",
        started.elapsed()
    );
    for (id, fp) in &batch {
        model.insert((*id).to_string(), *fp);
    }
    let mut rng = Rng::new(4);
    assert_equals_model(&db, &model, 100, &mut rng);
    // A batch of the same size with one bad id at the end changes nothing.
    let before = export(&db);
    let mut bad = batch;
    bad.push(("", Fingerprint(1)));
    assert!(matches!(db.insert_batch(&bad), Err(Error::BadId { .. })));
    assert_eq!(export(&db), before);
}

/// A small tmpfs, unmounted on drop.
struct Tmpfs {
    mount_point: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (e.g. "8m") at `mount_point`, or says why not.
    fn mount(mount_point: &Path, size: &str) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(mount_point).map_err(|e| e.to_string())?;
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(mount_point)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
        }
        Ok(Tmpfs {
            mount_point: mount_point.to_path_buf(),
        })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(&self.mount_point)
            .status();
    }
}

/// Writes zeros to `path` until the file system is full.
fn fill(path: &Path) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 64 << 10];
    while file.write_all(&chunk).is_ok() {}
    let mut byte = [0u8; 1];
    while file.write_all(&byte).is_ok() {
        byte[0] = 0;
    }
}

#[test]
fn a_full_disk_refuses_the_write_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let tmpfs = match Tmpfs::mount(&dir.path().join("small"), "16m") {
        Ok(tmpfs) => tmpfs,
        Err(reason) => {
            println!("SKIPPED: cannot mount a small tmpfs to fill ({reason})");
            return;
        }
    };
    let path = tmpfs.mount_point.join("db");
    let (db, mut model) = seeded_db(&path);
    // Writes of each kind that succeeded before the disk filled.
    db.insert("before-full", Fingerprint(77)).unwrap();
    model.insert("before-full".into(), Fingerprint(77));
    db.merge().unwrap();
    db.insert_batch(&[("in-delta", Fingerprint(78))]).unwrap();
    model.insert("in-delta".into(), Fingerprint(78));
    let filler = tmpfs.mount_point.join("filler");
    fill(&filler);

    // 40,000 documents with 1000-byte ids: megabytes of write-ahead log.
    let big: Vec<(String, Fingerprint)> = (0..40_000u64)
        .map(|i| (format!("{i:01000}"), Fingerprint(i.wrapping_mul(0x9e37))))
        .collect();
    let error = db.insert_batch(&big).unwrap_err();
    println!("full disk: {error}");
    assert!(
        matches!(error, Error::Storage { .. } | Error::Io { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().to_lowercase().contains("space"),
        "the error does not say the disk is full: {error}"
    );
    // Still answers from what it has.
    for (id, fp) in model.iter().take(20) {
        assert!(db.query(*fp, 0).unwrap().iter().any(|m| m.ids.contains(id)));
    }
    drop(db);
    std::fs::remove_file(&filler).unwrap();
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 200, &mut Rng::new(5));
    // And it takes writes again.
    db.insert("after-full", Fingerprint(79)).unwrap();
    model.insert("after-full".into(), Fingerprint(79));
    db.merge().unwrap();
    assert_equals_model(&db, &model, 200, &mut Rng::new(6));
    drop(db);
    drop(tmpfs);
}
