//! Request decoding on hostile input: any bytes, and JSON requests with
//! fields changed at random, decode into a request or an error saying
//! what is wrong; nothing panics.

use fpdb_api::{
    decode, CheckManyRequest, CheckRequest, HasContent, IdRequest, IdsRequest, InsertManyRequest,
    InsertRequest, InvalidRequest, QueryManyRequest, QueryRequest, Source,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Decodes `body` as every request type, and checks the documents of
/// those that decode.
fn decode_all(body: &[u8]) {
    let sources = |result: Result<Vec<Source>, InvalidRequest>| {
        if let Err(error) = result {
            assert!(!error.message.is_empty(), "{error:?}");
        }
    };
    if let Ok(request) = decode::<CheckRequest>(body) {
        sources(Source::of(request.content(), "").map(|s| vec![s]));
    }
    if let Ok(request) = decode::<QueryRequest>(body) {
        sources(Source::of(request.content(), "").map(|s| vec![s]));
    }
    if let Ok(request) = decode::<InsertRequest>(body) {
        sources(Source::of(request.content(), "").map(|s| vec![s]));
    }
    for request in [
        decode::<CheckManyRequest>(body).map(|r| r.documents),
        decode::<InsertManyRequest>(body).map(|r| r.documents),
    ]
    .into_iter()
    .flatten()
    {
        sources(
            request
                .iter()
                .enumerate()
                .map(|(i, d)| Source::of(d.content(), &format!("documents[{i}]")))
                .collect(),
        );
    }
    let _ = decode::<QueryManyRequest>(body);
    let _ = decode::<IdRequest>(body);
    let _ = decode::<IdsRequest>(body);
}

/// A JSON value that is sometimes what a field wants and often not.
fn wild_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[0-9a-fA-FxX]{0,18}".prop_map(Value::from),
        "[A-Za-z0-9+/=*]{0,24}".prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_string()),
                    Just("fp".to_string()),
                    Just("text".to_string()),
                    Just("html_base64".to_string()),
                    Just("content_type".to_string()),
                    "[a-z_]{1,8}"
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_bytes_decode_or_fail_with_a_message(body in prop::collection::vec(any::<u8>(), 0..256)) {
        decode_all(&body);
    }

    #[test]
    fn requests_with_random_fields_decode_or_fail_with_a_message(
        id in wild_value(),
        document in wild_value(),
        k in wild_value(),
        batch in prop::collection::vec(wild_value(), 0..4),
    ) {
        let bodies = [
            json!({"id": id, "fp": document, "k": k}),
            json!({"id": id, "text": document}),
            json!({"id": id, "html_base64": document, "content_type": k}),
            json!({"documents": batch, "k": k}),
            json!({"fps": batch}),
            json!({"ids": batch}),
            document.clone(),
        ];
        for body in bodies {
            decode_all(body.to_string().as_bytes());
            // And cut short at every tenth byte.
            let text = body.to_string();
            for end in (0..text.len()).step_by(10) {
                decode_all(&text.as_bytes()[..end]);
            }
        }
    }
}

#[test]
fn a_document_field_of_the_wrong_kind_is_named() {
    let body = br#"{"documents": [{"id": "a", "fp": "0123456789abcdef"}, {"id": 5}]}"#;
    let error = decode::<InsertManyRequest>(body).unwrap_err();
    assert_eq!(error.field.as_deref(), Some("documents[1].id"));
    let body = br#"{"documents": [{"id": "a"}]}"#;
    let request = decode::<InsertManyRequest>(body).unwrap();
    let error = Source::of(request.documents[0].content(), "documents[0]").unwrap_err();
    assert_eq!(error.field.as_deref(), Some("documents[0].fp"));
}
