//! Bearer tokens from a token file.
//!
//! One token a line, after what it may do: `read-write <token>` or
//! `read-only <token>`; blank lines and lines starting with `#` are
//! skipped. A token is at least 16 characters of printable ASCII without
//! spaces, so that a short guessable one is refused when the server starts
//! rather than accepted.

use std::path::Path;

use crate::error::ServeError;

/// What a token allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Queries, gets, stats and metrics.
    ReadOnly,
    /// Everything, writes included.
    ReadWrite,
}

/// Shortest token accepted.
const MIN_TOKEN_CHARS: usize = 16;

/// The tokens a server accepts, each with what it may do.
#[derive(Clone, Default)]
pub struct Tokens {
    tokens: Vec<(Vec<u8>, Access)>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the tokens themselves.
        f.debug_struct("Tokens")
            .field("count", &self.tokens.len())
            .finish()
    }
}

impl Tokens {
    /// Reads a token file.
    pub fn read(path: &Path) -> Result<Tokens, ServeError> {
        let text = std::fs::read_to_string(path).map_err(|error| ServeError::Tokens {
            path: path.into(),
            reason: error.to_string(),
        })?;
        Tokens::parse(&text).map_err(|reason| ServeError::Tokens {
            path: path.into(),
            reason,
        })
    }

    /// Parses the text of a token file; the error names the line.
    pub fn parse(text: &str) -> Result<Tokens, String> {
        let mut tokens = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(access), Some(token), None) = (words.next(), words.next(), words.next())
            else {
                return Err(format!(
                    "line {number}: expected `read-write <token>` or `read-only <token>`"
                ));
            };
            let access = match access {
                "read-write" => Access::ReadWrite,
                "read-only" => Access::ReadOnly,
                other => {
                    return Err(format!(
                        "line {number}: {other:?} is neither read-write nor read-only"
                    ))
                }
            };
            if token.len() < MIN_TOKEN_CHARS || !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(format!(
                    "line {number}: a token is at least {MIN_TOKEN_CHARS} printable ASCII characters"
                ));
            }
            tokens.push((token.as_bytes().to_vec(), access));
        }
        if tokens.is_empty() {
            return Err("no token in the file".into());
        }
        Ok(Tokens { tokens })
    }

    /// What `presented` may do, if it is one of the tokens. Every token is
    /// compared in full, so the time taken does not tell how much of a
    /// guess was right.
    pub fn access(&self, presented: &[u8]) -> Option<Access> {
        let mut found = None;
        for (token, access) in &self.tokens {
            if constant_time_eq(token, presented) {
                found = Some(*access);
            }
        }
        found
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_names_what_each_token_may_do() {
        let tokens = Tokens::parse(
            "# crawlers\nread-write 0123456789abcdefWRITE\n\nread-only 0123456789abcdefREAD\n",
        )
        .unwrap();
        assert_eq!(
            tokens.access(b"0123456789abcdefWRITE"),
            Some(Access::ReadWrite)
        );
        assert_eq!(
            tokens.access(b"0123456789abcdefREAD"),
            Some(Access::ReadOnly)
        );
        assert_eq!(tokens.access(b"0123456789abcdefREAX"), None);
        assert_eq!(tokens.access(b""), None);
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        let short = Tokens::parse("read-write short\n").unwrap_err();
        assert!(short.contains("line 1"), "{short}");
        let access = Tokens::parse("\nadmin 0123456789abcdef0123\n").unwrap_err();
        assert!(
            access.contains("line 2") && access.contains("admin"),
            "{access}"
        );
        let extra = Tokens::parse("read-only 0123456789abcdef0123 more\n").unwrap_err();
        assert!(extra.contains("line 1"), "{extra}");
        assert!(Tokens::parse("# nothing\n").is_err());
    }
}
