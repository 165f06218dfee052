//! A [`Signer`](crate::signer::PySigner) as bytes, so that it can be
//! pickled to Spark's executors with what it learned: the tokenizer, the
//! weighting (and a learned weight table), and the common features left
//! out of signatures. Bytes from elsewhere are checked, never trusted:
//! a malformed state is an error, not a panic.

use std::sync::Arc;

use fpdb::simhash::{CommonFeatures, LearnedIdf, Tokenizer, Weighting};
use fpdb::{SimhashOptions, Simhasher};

/// The first bytes of every state: the format and its version.
const MAGIC: &[u8; 8] = b"fpdbsgn2";

/// Everything a signer needs besides the fixed signature layout.
#[derive(Debug, Clone)]
pub struct SignerState {
    pub simhasher: Simhasher,
    pub common: CommonFeatures,
}

impl SignerState {
    /// The state as bytes.
    pub fn encode(&self) -> Vec<u8> {
        let options = self.simhasher.options();
        let mut out = MAGIC.to_vec();
        put_str(&mut out, &options.tokenizer.to_string());
        match self.simhasher.learned_idf() {
            Some(idf) => {
                out.push(1);
                let table = idf.to_bytes();
                put_len(&mut out, table.len());
                out.extend_from_slice(&table);
            }
            None => {
                out.push(0);
                put_str(&mut out, &options.weighting.to_string());
            }
        }
        put_len(&mut out, self.common.hashes().len());
        for hash in self.common.hashes() {
            out.extend_from_slice(&hash.to_le_bytes());
        }
        out
    }

    /// Reads bytes made by [`SignerState::encode`].
    pub fn decode(bytes: &[u8]) -> Result<SignerState, String> {
        let mut reader = Reader(bytes);
        if reader.take(MAGIC.len())? != MAGIC {
            return Err("not a Signer's state".to_string());
        }
        let tokenizer: Tokenizer = reader.string()?.parse().map_err(|e| format!("{e}"))?;
        let simhasher = match reader.byte()? {
            1 => {
                let len = reader.len(1)?;
                let idf = LearnedIdf::from_bytes(reader.take(len)?).map_err(|e| e.to_string())?;
                Simhasher::learned(tokenizer, Arc::new(idf))
            }
            0 => {
                let weighting: Weighting = reader.string()?.parse().map_err(|e| format!("{e}"))?;
                if matches!(weighting, Weighting::Learned { .. }) {
                    return Err("learned weights without their table".to_string());
                }
                Simhasher::new(SimhashOptions {
                    tokenizer,
                    weighting,
                })
            }
            other => return Err(format!("unknown weighting kind {other}")),
        };
        let count = reader.len(8)?;
        let mut hashes = Vec::with_capacity(count);
        for _ in 0..count {
            hashes.push(reader.u64()?);
        }
        if !reader.0.is_empty() {
            return Err(format!("{} bytes past the end", reader.0.len()));
        }
        Ok(SignerState {
            simhasher,
            common: CommonFeatures::from_hashes(hashes),
        })
    }
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    // Tables and names are far below 2^32 entries.
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_len(out, text.len());
    out.extend_from_slice(text.as_bytes());
}

/// Reads a state front to back; every read checks what is left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("the state ends early".to_string());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        self.take(N)?
            .try_into()
            .map_err(|_| "the state ends early".to_string())
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A count of items of `item_bytes` each, no more than the bytes left
    /// can hold (so a corrupt count allocates nothing large).
    fn len(&mut self, item_bytes: usize) -> Result<usize, String> {
        let count = usize::try_from(self.u32()?).map_err(|e| e.to_string())?;
        if count.saturating_mul(item_bytes) > self.0.len() {
            return Err("the state ends early".to_string());
        }
        Ok(count)
    }

    fn string(&mut self) -> Result<&'a str, String> {
        let len = self.len(1)?;
        std::str::from_utf8(self.take(len)?).map_err(|e| e.to_string())
    }
}
