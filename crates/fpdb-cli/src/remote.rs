//! A client of `fpdb serve` for `check`, `query` and `add --server URL`.
//! Only ids and fingerprints travel: documents are read and fingerprinted
//! by this process with the options the server's database was created
//! with (its stats name them), exactly as they would be for a directory.
//! A database with learned weights or one that confirms matches with
//! signatures is refused: its texts must reach the server as texts.
//! Many documents go in one batch request, bounded in count and bytes.
//!
//! Why ureq: a blocking client fits a command that waits for one answer
//! at a time, so no async runtime is started for it; it reuses one
//! kept-alive connection, and its TLS is the rustls on ring that the
//! server already builds.

use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use fpdb::{Extract, Fingerprint, Match, SimhashOptions, Simhasher};
use fpdb_server::api::{CheckedManyOut, CheckedOut, InsertedManyOut, MatchOut, QueryManyOut};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// Most documents or fingerprints in one request: a tenth of the server's
/// default batch limit.
const REQUEST_ITEMS: usize = 10_000;
/// A request is sent once its ids reach this many bytes, so its JSON stays
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
        };
        let stats: Value = remote.call("/v1/stats", None)?;
        remote.k = stats
            .get("k")
            .and_then(Value::as_u64)
            .and_then(|k| u32::try_from(k).ok())
            .ok_or_else(|| anyhow!("{}: the stats answer has no k", remote.url))?;
        if stats.get("confirmation").is_some_and(|c| !c.is_null()) {
            // Its documents are texts signed by the server; this client
            // sends fingerprints, which would be stored bare.
            bail!("the server's database confirms matches with signatures of the texts, which --server does not send (it sends fingerprints); send texts through the server's HTTP API or fpdb.Client, or run fpdb on the database itself");
        }
        remote.simhasher = Simhasher::new(simhash_options(stats.get("simhash"))?);
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

    fn expect_count(&self, what: &str, got: usize, sent: usize) -> Result<()> {
        if got != sent {
            bail!("{}: answered {got} {what} for {sent} documents", self.url);
        }
        Ok(())
    }

    /// A GET, or a POST of `body`; an error answer becomes an error with
    /// the server's message (and the field it names).
    fn call<T: DeserializeOwned>(&self, path: &str, body: Option<Value>) -> Result<T> {
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
            return Err(anyhow!(error_message(status.as_u16(), &bytes))
                .context(format!("fpdb serve at {}", self.url)));
        }
        serde_json::from_slice(&bytes)
            .with_context(|| format!("{url}: the answer is not what fpdb serve sends"))
    }
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
    if let fpdb::simhash::Weighting::Learned { .. } = options.weighting {
        // The table is in the server's database, not here.
        bail!("the server's database weighs words by learned weights, which --server cannot fingerprint with; give fingerprints, or run fpdb on the database itself");
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
