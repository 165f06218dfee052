//! A client of `fpdb serve` for `check`, `query` and `add --server URL`.
//! Ids and fingerprints travel where they can: documents are read and
//! fingerprinted by this process with the options the server's database
//! was created with (its stats name them), exactly as they would be for a
//! directory. A database with learned weights, or one that confirms
//! matches with signatures of the texts, gets the texts themselves (the
//! server fingerprints and signs them); a text the server finds nothing
//! to compare in is reported and skipped, as a directory skips it. Many
//! documents go in one batch request, bounded in count and bytes.
//!
//! Why ureq: a blocking client fits a command that waits for one answer
//! at a time, so no async runtime is started for it; it reuses one
//! kept-alive connection, and its TLS is the rustls on ring that the
//! server already builds.

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use fpdb::{Extract, Fingerprint, Match, SimhashOptions, Simhasher};
use fpdb_server::api::{
    CheckedManyOut, CheckedOut, InsertedManyOut, MatchOut, QueryManyOut, QueryOut,
};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::input::{Payload, Record};

/// Most documents or fingerprints in one request: a tenth of the server's
/// default batch limit.
const REQUEST_ITEMS: usize = 10_000;
/// A request is sent once its ids (and texts) reach this many bytes, so its JSON stays
/// far below the server's default body limit (64 MiB) even when every
/// character of an id needs escaping.
const REQUEST_ID_BYTES: usize = 8 << 20;
/// How long one request may take, a batch of 10,000 included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// A server and what its database is: how texts become fingerprints, and
/// its k.
#[derive(Debug)]
pub struct Remote {
    agent: ureq::Agent,
    url: String,
    authorization: Option<String>,
    /// The database's k (the default radius).
    pub k: u32,
    /// The database's simhash options.
    pub simhasher: Simhasher,
    /// Which text of an HTML page the database fingerprints.
    pub extract: Extract,
    /// The database confirms matches with signatures of the texts.
    pub confirming: bool,
    /// The server must see the texts: the database confirms, or weighs
    /// words by weights learned into it (a fingerprint computed here
    /// would be stored bare, or be wrong).
    pub needs_texts: bool,
}

/// An error answer of the server.
#[derive(Debug)]
struct Refusal {
    status: u16,
    kind: Option<String>,
    field: Option<String>,
    body: Vec<u8>,
}

impl Remote {
    /// Connects to the server at `url` (`http://host:port` or `https://…`)
    /// with the bearer token in `token_file`, and asks what its database
    /// is.
    pub fn connect(url: &str, token_file: Option<&Path>) -> Result<Remote> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!("--server {url:?}: expected an http:// or https:// URL");
        }
        let authorization = token_file
            .map(read_token)
            .transpose()?
            .map(|token| format!("Bearer {token}"));
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .build()
            .new_agent();
        let mut remote = Remote {
            agent,
            url: url.trim_end_matches('/').to_string(),
            authorization,
            k: 0,
            simhasher: Simhasher::default(),
            extract: Extract::default(),
            confirming: false,
            needs_texts: false,
        };
        let stats: Value = remote.call("/v1/stats", None)?;
        remote.k = stats
            .get("k")
            .and_then(Value::as_u64)
            .and_then(|k| u32::try_from(k).ok())
            .ok_or_else(|| anyhow!("{}: the stats answer has no k", remote.url))?;
        remote.confirming = stats.get("confirmation").is_some_and(|c| !c.is_null());
        let options = simhash_options(stats.get("simhash"))?;
        let learned = matches!(options.weighting, fpdb::simhash::Weighting::Learned { .. });
        remote.needs_texts = remote.confirming || learned;
        if !learned {
            remote.simhasher = Simhasher::new(options);
        }
        remote.extract = stats
            .get("extract")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .parse()
            .with_context(|| format!("{}: the stats answer's extract", remote.url))?;
        Ok(remote)
    }

    /// Check-and-insert of each document in order; `each` gets each
    /// document with the fingerprint its id had and its matches, a
    /// request's documents once it is answered.
    pub fn check_and_insert(
        &self,
        documents: &[(&str, Fingerprint)],
        k: u32,
        mut each: impl FnMut(&str, Fingerprint, Option<Fingerprint>, Vec<Match>) -> Result<()>,
    ) -> Result<()> {
        for part in requests(documents, |(id, _)| id.len()) {
            let body = json!({"documents": id_documents(part), "k": k});
            let answer: CheckedManyOut = self.call("/v1/check_and_insert_many", Some(body))?;
            self.expect_count("results", answer.results.len(), part.len())?;
            for (&(id, fp), checked) in part.iter().zip(answer.results) {
                let CheckedOut {
                    matches, previous, ..
                } = checked;
                each(id, fp, previous.map(|hex| hex.0), matches_of(matches))?;
            }
        }
        Ok(())
    }

    /// The matches within `k` of each fingerprint, in order.
    pub fn query(&self, fps: &[Fingerprint], k: u32) -> Result<Vec<Vec<Match>>> {
        let mut found = Vec::with_capacity(fps.len());
        for part in requests(fps, |_| 0) {
            let hexes: Vec<String> = part.iter().map(Fingerprint::to_string).collect();
            let body = json!({"fps": hexes, "k": k});
            let answer: QueryManyOut = self.call("/v1/query_many", Some(body))?;
            self.expect_count("results", answer.results.len(), part.len())?;
            found.extend(answer.results.into_iter().map(matches_of));
        }
        Ok(found)
    }

    /// Stores the documents, one atomic write per request.
    pub fn insert(&self, documents: &[(&str, Fingerprint)]) -> Result<()> {
        for part in requests(documents, |(id, _)| id.len()) {
            let body = json!({"documents": id_documents(part)});
            let answer: InsertedManyOut = self.call("/v1/insert_many", Some(body))?;
            self.expect_count("fingerprints", answer.fingerprints.len(), part.len())?;
        }
        Ok(())
    }

    /// Check-and-insert of each record in order, texts sent as texts:
    /// `each` gets each record's id and the server's answer (its
    /// fingerprint, the one its id had, its matches).
    pub fn check_and_insert_records(
        &self,
        records: &[Record],
        k: u32,
        mut each: impl FnMut(&str, CheckedOut) -> Result<()>,
    ) -> Result<()> {
        for part in requests(records, record_bytes) {
            let Some((sent, answer)) = self.call_skipping::<CheckedManyOut>(
                "/v1/check_and_insert_many",
                part,
                |documents| json!({"documents": documents, "k": k}),
            )?
            else {
                continue;
            };
            self.expect_count("results", answer.results.len(), sent.len())?;
            for (record, checked) in sent.iter().zip(answer.results) {
                each(&record.id, checked)?;
            }
        }
        Ok(())
    }

    /// Stores the records, texts sent as texts, one atomic write per
    /// request; how many were stored.
    pub fn insert_records(&self, records: &[Record]) -> Result<usize> {
        let mut stored = 0;
        for part in requests(records, record_bytes) {
            let Some((sent, answer)) = self.call_skipping::<InsertedManyOut>(
                "/v1/insert_many",
                part,
                |documents| json!({"documents": documents}),
            )?
            else {
                continue;
            };
            self.expect_count("fingerprints", answer.fingerprints.len(), sent.len())?;
            stored += sent.len();
        }
        Ok(stored)
    }

    /// The stored near-duplicates of each record under the server's rule,
    /// texts sent as texts, one request each (the batch query takes
    /// fingerprints only); `None` for a text with nothing to compare.
    pub fn query_records(&self, records: &[Record], k: u32) -> Result<Vec<Option<QueryOut>>> {
        records
            .iter()
            .map(|record| {
                let (field, content) = record_content(record);
                let body = json!({field: content, "k": k});
                match self.send::<QueryOut>("/v1/query", Some(body))? {
                    Ok(answer) => Ok(Some(answer)),
                    Err(refusal) if refusal.kind.as_deref() == Some("no_features") => {
                        skipped(record);
                        Ok(None)
                    }
                    Err(refusal) => Err(self.error(refusal)),
                }
            })
            .collect()
    }

    /// POSTs the records of `part` as documents (`body` wraps them); a
    /// record the server finds no features in is reported, left out,
    /// and the rest sent again (the server stored nothing of a refused
    /// request). The records answered for, with the answer; `None` when
    /// none was left.
    fn call_skipping<'r, T: DeserializeOwned>(
        &self,
        path: &str,
        part: &'r [Record],
        body: impl Fn(Vec<Value>) -> Value,
    ) -> Result<Option<(Vec<&'r Record>, T)>> {
        let mut sending: Vec<&Record> = part.iter().collect();
        while !sending.is_empty() {
            let documents = sending.iter().map(|r| record_document(r)).collect();
            let refusal = match self.send::<T>(path, Some(body(documents)))? {
                Ok(answer) => return Ok(Some((sending, answer))),
                Err(refusal) => refusal,
            };
            let featureless = (refusal.kind.as_deref() == Some("no_features"))
                .then(|| refusal.field.as_deref().and_then(document_index))
                .flatten()
                .filter(|&index| index < sending.len());
            let Some(index) = featureless else {
                return Err(self.error(refusal));
            };
            skipped(sending.remove(index));
        }
        Ok(None)
    }

    fn expect_count(&self, what: &str, got: usize, sent: usize) -> Result<()> {
        if got != sent {
            bail!("{}: answered {got} {what} for {sent} documents", self.url);
        }
        Ok(())
    }

    /// A GET, or a POST of `body`; an error answer becomes an error with
    /// the server's message (and the field it names).
    fn call<T: DeserializeOwned>(&self, path: &str, body: Option<Value>) -> Result<T> {
        self.send(path, body)?
            .map_err(|refusal| self.error(refusal))
    }

    /// The server's error answer as an error of this command.
    fn error(&self, refusal: Refusal) -> anyhow::Error {
        anyhow!(error_message(refusal.status, &refusal.body))
            .context(format!("fpdb serve at {}", self.url))
    }

    /// A GET, or a POST of `body`: the answer, or the server's refusal.
    fn send<T: DeserializeOwned>(
        &self,
        path: &str,
        body: Option<Value>,
    ) -> Result<std::result::Result<T, Refusal>> {
        let url = format!("{}{path}", self.url);
        let sent = match body {
            Some(body) => {
                let mut request = self
                    .agent
                    .post(&url)
                    .header("Content-Type", "application/json");
                if let Some(authorization) = &self.authorization {
                    request = request.header("Authorization", authorization);
                }
                request.send(&serde_json::to_vec(&body)?)
            }
            None => {
                let mut request = self.agent.get(&url);
                if let Some(authorization) = &self.authorization {
                    request = request.header("Authorization", authorization);
                }
                request.call()
            }
        };
        let mut response =
            sent.with_context(|| format!("cannot reach fpdb serve at {}", self.url))?;
        let status = response.status();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(u64::MAX)
            .read_to_vec()
            .with_context(|| format!("{url}: reading the answer"))?;
        if !status.is_success() {
            let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let text = |name: &str| {
                answer
                    .get("error")
                    .and_then(|e| e.get(name))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            return Ok(Err(Refusal {
                status: status.as_u16(),
                kind: text("kind"),
                field: text("field"),
                body: bytes,
            }));
        }
        serde_json::from_slice(&bytes)
            .map(Ok)
            .with_context(|| format!("{url}: the answer is not what fpdb serve sends"))
    }
}

/// A record as a request's document: `{"id", "text"}` or `{"id", "fp"}`.
fn record_document(record: &Record) -> Value {
    let (field, content) = record_content(record);
    json!({"id": record.id, field: content})
}

/// What a record sends: its text, or its fingerprint in hex.
fn record_content(record: &Record) -> (&'static str, Value) {
    match &record.payload {
        Payload::Text(text) => ("text", text.as_str().into()),
        Payload::Fingerprint(fp) => ("fp", fp.to_string().into()),
    }
}

/// The bytes a record adds to a request.
fn record_bytes(record: &Record) -> usize {
    record.id.len()
        + match &record.payload {
            Payload::Text(text) => text.len(),
            Payload::Fingerprint(_) => 16,
        }
}

/// The index of `documents[3].text` (the field a refusal names).
fn document_index(field: &str) -> Option<usize> {
    field
        .strip_prefix("documents[")?
        .split_once(']')?
        .0
        .parse()
        .ok()
}

/// Says on standard error that `record` was left out, as a local
/// database's command says it.
fn skipped(record: &Record) {
    eprintln!("fpdb: {}: {}; skipped", record.id, fpdb::Error::NoFeatures);
}

/// The token in `path`: its first line that is not blank or a `#`
/// comment; of a line `read-write <token>` (as the server's token file
/// has it), the token.
fn read_token(path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--token-file {}: cannot read", path.display()))?;
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .and_then(|line| line.split_whitespace().last())
        .map(str::to_string)
        .ok_or_else(|| anyhow!("--token-file {}: no token in it", path.display()))
}

/// The simhash options of the stats' `"tokenizer=… weights=…"`.
fn simhash_options(value: Option<&Value>) -> Result<SimhashOptions> {
    let text = value.and_then(Value::as_str).unwrap_or_default();
    let mut options = SimhashOptions::default();
    let mut named = (false, false);
    for part in text.split_whitespace() {
        if let Some(tokenizer) = part.strip_prefix("tokenizer=") {
            options.tokenizer = tokenizer.parse()?;
            named.0 = true;
        } else if let Some(weights) = part.strip_prefix("weights=") {
            options.weighting = weights.parse()?;
            named.1 = true;
        }
    }
    if named != (true, true) {
        bail!("the server's simhash options {text:?} do not name a tokenizer and weights");
    }
    Ok(options)
}

/// What an error answer says: `field: message`, or the status when the
/// body is not the server's error JSON.
fn error_message(status: u16, body: &[u8]) -> String {
    let answer: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let error = answer.get("error");
    let text = |name: &str| error.and_then(|e| e.get(name)).and_then(Value::as_str);
    match (text("message"), text("field")) {
        (Some(message), Some(field)) => format!("{field}: {message}"),
        (Some(message), None) => message.to_string(),
        _ => format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(body)
                .chars()
                .take(200)
                .collect::<String>()
        ),
    }
}

/// The documents of a request as `{"id", "fp"}` objects.
fn id_documents(documents: &[(&str, Fingerprint)]) -> Vec<Value> {
    documents
        .iter()
        .map(|(id, fp)| json!({"id": id, "fp": fp.to_string()}))
        .collect()
}

fn matches_of(found: Vec<MatchOut>) -> Vec<Match> {
    found
        .into_iter()
        .map(|m| Match {
            fingerprint: m.fingerprint.0,
            distance: m.distance,
            ids: m.ids,
        })
        .collect()
}

/// `items` cut into requests of at most [`REQUEST_ITEMS`], each cut early
/// once the `bytes` of its items reach [`REQUEST_ID_BYTES`].
fn requests<T>(items: &[T], bytes: impl Fn(&T) -> usize) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut total = 0;
        let mut end = 0;
        while end < rest.len().min(REQUEST_ITEMS) && (end == 0 || total < REQUEST_ID_BYTES) {
            total += rest.get(end).map_or(0, &bytes);
            end += 1;
        }
        let (part, tail) = rest.split_at(end);
        rest = tail;
        Some(part)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_cut_by_count_and_bytes() {
        let items = vec![1usize; 25_000];
        let sizes: Vec<usize> = requests(&items, |_| 0).map(<[usize]>::len).collect();
        assert_eq!(sizes, [10_000, 10_000, 5_000]);
        let large = vec![REQUEST_ID_BYTES / 2 + 1; 5];
        let sizes: Vec<usize> = requests(&large, |&n| n).map(<[usize]>::len).collect();
        assert_eq!(sizes, [2, 2, 1]);
        assert_eq!(requests(&[] as &[usize], |_| 0).count(), 0);
    }

    #[test]
    fn the_document_a_refusal_names_is_found() {
        assert_eq!(document_index("documents[3].text"), Some(3));
        assert_eq!(document_index("documents[12]"), Some(12));
        assert_eq!(document_index("text"), None);
        assert_eq!(document_index("documents[x].text"), None);
        assert_eq!(document_index("documents[3"), None);
    }

    #[test]
    fn simhash_options_read_back_as_the_server_names_them() {
        for options in [
            SimhashOptions::default(),
            SimhashOptions {
                tokenizer: "chars:3".parse().unwrap(),
                weighting: "tf".parse().unwrap(),
            },
            SimhashOptions {
                tokenizer: "words".parse().unwrap(),
                weighting: "tfidf".parse().unwrap(),
            },
        ] {
            let named = Value::from(options.to_string());
            assert_eq!(simhash_options(Some(&named)).unwrap(), options);
        }
        assert!(simhash_options(Some(&Value::from("tokenizer=words"))).is_err());
        assert!(simhash_options(None).is_err());
    }
}
