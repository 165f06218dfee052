//! The request bodies of `fpdb serve` from untrusted bytes: decoded as
//! every request type, each gives a request or an error that says what
//! is wrong, never a panic; the documents of a decoded request are
//! checked (one form each, base64 decoded) the same way.
#![no_main]

use fpdb_api::{
    decode, BackupRequest, CheckManyRequest, CheckRequest, HasContent, IdRequest, IdsRequest,
    InsertManyRequest, InsertRequest, InvalidRequest, QueryManyRequest, QueryRequest, Source,
};
use libfuzzer_sys::fuzz_target;

fn checked(result: Result<Source, InvalidRequest>) {
    if let Err(error) = result {
        assert!(!error.message.is_empty());
    }
}

fn decoded<T: serde::de::DeserializeOwned>(data: &[u8]) -> Option<T> {
    match decode::<T>(data) {
        Ok(request) => Some(request),
        Err(error) => {
            assert!(!error.message.is_empty());
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(request) = decoded::<CheckRequest>(data) {
        checked(Source::of(request.content(), ""));
    }
    if let Some(request) = decoded::<QueryRequest>(data) {
        checked(Source::of(request.content(), ""));
    }
    if let Some(request) = decoded::<InsertRequest>(data) {
        checked(Source::of(request.content(), ""));
    }
    let batches = [
        decoded::<CheckManyRequest>(data).map(|r| r.documents),
        decoded::<InsertManyRequest>(data).map(|r| r.documents),
    ];
    for documents in batches.into_iter().flatten() {
        for (index, document) in documents.iter().enumerate() {
            checked(Source::of(document.content(), &format!("documents[{index}]")));
        }
    }
    let _ = decoded::<QueryManyRequest>(data);
    let _ = decoded::<IdRequest>(data);
    let _ = decoded::<IdsRequest>(data);
    let _ = decoded::<BackupRequest>(data);
});
