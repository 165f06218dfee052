//! The input-line parsers on untrusted bytes: every format and role must
//! return a record, nothing or a bad-line reason, never panic; a parsed
//! fingerprint line must come back unchanged through
//! `format_fingerprint_line` and parsing again (what `fpdb export` prints
//! and `fpdb load` reads).
#![no_main]

use fpdb_input::{
    check_id, format_fingerprint_line, parse_fingerprint, parse_id_line, parse_line, LineFormat,
    Payload, Role, MAX_ID_BYTES,
};
use libfuzzer_sys::fuzz_target;

const FORMATS: [LineFormat; 3] = [LineFormat::Fps, LineFormat::Jsonl, LineFormat::Lines];
const ROLES: [Role; 3] = [Role::Store, Role::Query, Role::Hash];

fuzz_target!(|data: &[u8]| {
    for format in FORMATS {
        for role in ROLES {
            let Ok(Some(record)) = parse_line(format, role, data, 1, Some("input")) else {
                continue;
            };
            assert!(!record.id.is_empty() && record.id.len() <= MAX_ID_BYTES);
            assert!(check_id(&record.id).is_ok());
            if format == LineFormat::Fps {
                let Payload::Fingerprint(fp) = record.payload else {
                    panic!("fingerprint lines hold fingerprints");
                };
                let line = format_fingerprint_line(&record.id, fp);
                let again = parse_line(format, Role::Store, line.as_bytes(), 1, None)
                    .expect("a formatted line parses")
                    .expect("a formatted line is not blank");
                assert_eq!(again, record);
                assert_eq!(parse_id_line(line.as_bytes()), Ok(Some(record.id.clone())));
            }
        }
    }
    if let Ok(Some(id)) = parse_id_line(data) {
        assert!(check_id(&id).is_ok());
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(fp) = parse_fingerprint(text) {
            assert_eq!(parse_fingerprint(&fp.to_string()), Ok(fp));
        }
    }
});
