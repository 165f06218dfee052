//! `Inputs` over real files: gzip looked through, bad documents stopped at
//! or skipped, validation before anything is handed over.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use fpdb_input::{Inputs, Payload, ReadError, Record, Role};

const LINES: &str = "a\t0123456789abcdef\nb\tnot hex\nc\t00000000000000ff\n";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = libflate::gzip::Encoder::new(Vec::new()).unwrap();
    encoder.write_all(bytes).unwrap();
    encoder.finish().into_result().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The ids handed over, or the error that stopped the reading.
fn ids(inputs: &mut Inputs, validated: bool) -> Result<Vec<String>, ReadError> {
    let mut ids = Vec::new();
    let mut each = |records: Vec<Record>| {
        ids.extend(records.into_iter().map(|record| record.id));
        Ok::<(), ReadError>(())
    };
    if validated {
        inputs.validated(&mut each)?;
    } else {
        inputs.stream(&mut each)?;
    }
    Ok(ids)
}

#[test]
fn a_bad_line_stops_at_its_file_and_line_also_under_gzip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("in.tsv", LINES.as_bytes().to_vec()),
        ("in.tsv.gz", gzip(LINES.as_bytes())),
    ] {
        let path = write(dir.path(), name, &bytes);
        let error = ids(&mut Inputs::new(&[&path], None, Role::Store), false).unwrap_err();
        let ReadError::Bad(bad) = &error else {
            panic!("{error}");
        };
        assert_eq!(bad.location, format!("{}:2", path.display()));
        assert!(bad.what.contains("invalid fingerprint"), "{error}");
    }
}

#[test]
fn reading_until_a_break_reads_nothing_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "in.tsv", LINES.as_bytes());
    // One record a batch: the break after `a` comes before the bad line.
    let mut inputs = Inputs::new(&[&path], None, Role::Store).with_chunk(1);
    let mut ids = Vec::new();
    inputs
        .stream_until(|records| {
            ids.extend(records.into_iter().map(|record| record.id));
            Ok::<_, ReadError>(std::ops::ControlFlow::Break(()))
        })
        .unwrap();
    assert_eq!(ids, ["a"]);
    // Without a break it reads on to the bad line, and a caller's own
    // error is returned as it is.
    let mut inputs = Inputs::new(&[&path], None, Role::Store).with_chunk(1);
    let error = inputs
        .stream_until(|_| Ok::<_, ReadError>(std::ops::ControlFlow::Continue(())))
        .unwrap_err();
    assert!(matches!(error, ReadError::Bad(_)), "{error}");
    // (An error no reading of a good file makes stands for the caller's.)
    let good = write(dir.path(), "good.tsv", b"a\t0123456789abcdef\n");
    let mut inputs = Inputs::new(&[&good], None, Role::Store);
    let error = inputs
        .stream_until(|_| -> Result<std::ops::ControlFlow<()>, ReadError> {
            Err(ReadError::StdinTwice)
        })
        .unwrap_err();
    assert!(matches!(error, ReadError::StdinTwice), "{error}");
}

#[test]
fn skipped_lines_are_reported_counted_and_the_rest_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "in.tsv.gz", &gzip(LINES.as_bytes()));
    let reported = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&reported);
    let mut inputs = Inputs::new(&[&path], None, Role::Store)
        .skip_bad(move |bad| seen.lock().unwrap().push(bad.location.clone()));
    assert_eq!(ids(&mut inputs, false).unwrap(), ["a", "c"]);
    assert_eq!(inputs.skipped(), 1);
    assert_eq!(*reported.lock().unwrap(), [format!("{}:2", path.display())]);
    let compressed = std::fs::metadata(&path).unwrap().len();
    assert_eq!(inputs.total_bytes(), Some(compressed));
    assert_eq!(
        inputs
            .bytes_read()
            .load(std::sync::atomic::Ordering::Relaxed),
        compressed
    );
}

#[test]
fn validation_hands_over_nothing_when_a_later_file_is_bad() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.tsv", b"x\t0000000000000001\n");
    let bad = write(dir.path(), "bad.tsv", LINES.as_bytes());
    let mut handed = 0;
    let result = Inputs::new(&[&good, &bad], None, Role::Store).validated(|records| {
        handed += records.len();
        Ok::<(), ReadError>(())
    });
    assert!(matches!(result, Err(ReadError::Bad(_))));
    assert_eq!(handed, 0);
    // Streamed eagerly, what came before the bad line was handed over.
    let mut streamed = Vec::new();
    let result = Inputs::new(&[&good, &bad], None, Role::Store).stream_eagerly(|records| {
        streamed.extend(records.into_iter().map(|record| record.id));
        Ok::<(), ReadError>(())
    });
    assert!(matches!(result, Err(ReadError::Bad(_))));
    assert_eq!(streamed, ["x", "a"]);
}

#[test]
fn a_broken_gzip_stream_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = gzip(LINES.as_bytes());
    let middle = bytes.len() / 2;
    bytes.truncate(middle);
    let path = write(dir.path(), "in.jsonl.gz", &bytes);
    let error = ids(&mut Inputs::new(&[&path], None, Role::Store), false).unwrap_err();
    assert!(matches!(error, ReadError::Read { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("{}: read failed", path.display())),
        "{message}"
    );
    assert!(!message.contains("after line 0"), "{message}");
}

#[test]
fn texts_of_lines_and_whole_files_keep_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let text = "第一行\nsecond line\n";
    let lines = write(dir.path(), "notes.txt.gz", &gzip(text.as_bytes()));
    let whole = write(dir.path(), "note", text.as_bytes());
    let mut records = Vec::new();
    Inputs::new(&[&lines], None, Role::Store)
        .stream(|batch| {
            records.extend(batch);
            Ok::<(), ReadError>(())
        })
        .unwrap();
    Inputs::new(&[&whole], Some(fpdb_input::InputFormat::Files), Role::Store)
        .stream(|batch| {
            records.extend(batch);
            Ok::<(), ReadError>(())
        })
        .unwrap();
    let texts: Vec<(&str, &str)> = records
        .iter()
        .map(|record| match &record.payload {
            Payload::Text(text) => (record.id.as_str(), text.as_str()),
            Payload::Fingerprint(_) => panic!("{record:?}"),
        })
        .collect();
    let whole_id = whole.display().to_string();
    assert_eq!(
        texts,
        [
            ("1", "第一行"),
            ("2", "second line"),
            (whole_id.as_str(), text)
        ]
    );
}
