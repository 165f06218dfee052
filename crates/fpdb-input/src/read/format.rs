//! Which layout an input has: said, or told by the file's extension.

use std::path::Path;
use std::str::FromStr;

use crate::Role;

/// How the documents of an input are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// `<id>\t<16 hex digits>` per line (queries also take a bare
    /// fingerprint, its own id).
    Fps,
    /// JSON Lines: `{"id", "text"}`, `{"id", "html"}` or `{"id", "fp"}`.
    Jsonl,
    /// One text per line; the id is the line number (`FILE:LINE` when
    /// several inputs are read).
    Lines,
    /// One text per file; the id is the path.
    Files,
    /// One HTML page per file, in any charset; the id is the path.
    Html,
    /// WARC files: the HTML pages of their response records, the id their
    /// `WARC-Target-URI`.
    Warc,
}

/// Every format, in the order their names are listed.
const ALL: [InputFormat; 6] = [
    InputFormat::Fps,
    InputFormat::Jsonl,
    InputFormat::Lines,
    InputFormat::Files,
    InputFormat::Html,
    InputFormat::Warc,
];

impl InputFormat {
    /// The format of `path` (`None`: standard input) when none is said:
    /// `.jsonl` JSON Lines, `.warc` WARC, `.html` and `.htm` pages, `.tsv`
    /// and `.fps` fingerprint lines, each also with `.gz` after it; any
    /// other file is lines of text. Standard input is fingerprint lines,
    /// except to [`Role::Hash`], which reads texts: lines of text there.
    pub fn for_path(path: Option<&Path>, role: Role) -> InputFormat {
        let Some(path) = path else {
            return match role {
                Role::Hash => InputFormat::Lines,
                Role::Store | Role::Query => InputFormat::Fps,
            };
        };
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        let extension = name.rsplit_once('.').map(|(_, extension)| extension);
        match (extension, role) {
            (Some("jsonl"), _) => InputFormat::Jsonl,
            (Some("warc"), _) => InputFormat::Warc,
            (Some("html" | "htm"), _) => InputFormat::Html,
            (Some("tsv" | "fps"), Role::Store | Role::Query) => InputFormat::Fps,
            _ => InputFormat::Lines,
        }
    }

    /// The format's name, as [`InputFormat::from_str`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Fps => "fps",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Lines => "lines",
            InputFormat::Files => "files",
            InputFormat::Html => "html",
            InputFormat::Warc => "warc",
        }
    }
}

/// A format name that is none of fpdb's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "format {0:?}: expected one of \"fps\", \"jsonl\", \"lines\", \"files\", \"html\", \"warc\""
)]
pub struct UnknownFormat(pub String);

impl FromStr for InputFormat {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        ALL.into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| UnknownFormat(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(name: &str, role: Role) -> InputFormat {
        InputFormat::for_path(Some(Path::new(name)), role)
    }

    #[test]
    fn extensions_name_the_format_also_under_gzip() {
        assert_eq!(of("a/b.jsonl", Role::Store), InputFormat::Jsonl);
        assert_eq!(of("b.JSONL.gz", Role::Query), InputFormat::Jsonl);
        assert_eq!(of("crawl.warc.gz", Role::Store), InputFormat::Warc);
        assert_eq!(of("page.htm", Role::Hash), InputFormat::Html);
        assert_eq!(of("fps.tsv.gz", Role::Store), InputFormat::Fps);
        assert_eq!(of("fps.tsv", Role::Hash), InputFormat::Lines);
        assert_eq!(of("notes.txt", Role::Store), InputFormat::Lines);
        assert_eq!(of("gz", Role::Store), InputFormat::Lines);
        assert_eq!(InputFormat::for_path(None, Role::Store), InputFormat::Fps);
        assert_eq!(InputFormat::for_path(None, Role::Hash), InputFormat::Lines);
    }

    #[test]
    fn names_read_back() {
        for format in ALL {
            assert_eq!(format.name().parse::<InputFormat>(), Ok(format));
        }
        assert!("csv".parse::<InputFormat>().is_err());
    }
}
