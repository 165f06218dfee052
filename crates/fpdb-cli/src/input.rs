//! Reading documents: JSON Lines, plain lines, or whole files. A bad line is
//! an error naming the file and line number.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use crate::cli::InputFormat;

/// One input document.
#[derive(Debug, Clone)]
pub struct Document {
    pub id: String,
    pub text: String,
}

#[derive(Deserialize)]
struct JsonDocument {
    id: String,
    text: String,
}

/// The format to read `path` with: the explicit one, else by extension.
pub fn format_for(explicit: Option<InputFormat>, path: Option<&Path>) -> InputFormat {
    explicit.unwrap_or_else(|| match path {
        Some(p) if p.extension().is_some_and(|e| e == "jsonl") => InputFormat::Jsonl,
        _ => InputFormat::Lines,
    })
}

/// Calls `each` with every document of the inputs (standard input when
/// `paths` is empty), stopping at the first bad line or failing callback.
pub fn for_each_document(
    format: Option<InputFormat>,
    paths: &[PathBuf],
    mut each: impl FnMut(Document) -> Result<()>,
) -> Result<()> {
    if paths.is_empty() {
        let stdin = io::stdin();
        return read_stream(format_for(format, None), "<stdin>", stdin.lock(), &mut each);
    }
    for path in paths {
        let format = format_for(format, Some(path));
        if format == InputFormat::Files {
            let mut text = String::new();
            File::open(path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .with_context(|| format!("{}: cannot read as UTF-8 text", path.display()))?;
            each(Document {
                id: path.display().to_string(),
                text,
            })?;
            continue;
        }
        let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        read_stream(
            format,
            &path.display().to_string(),
            BufReader::new(file),
            &mut each,
        )?;
    }
    Ok(())
}

fn read_stream(
    format: InputFormat,
    name: &str,
    mut reader: impl BufRead,
    each: &mut impl FnMut(Document) -> Result<()>,
) -> Result<()> {
    let mut raw = Vec::new();
    let mut number = 0u64;
    loop {
        raw.clear();
        if reader
            .read_until(b'\n', &mut raw)
            .with_context(|| format!("{name}: read failed after line {number}"))?
            == 0
        {
            return Ok(());
        }
        number += 1;
        let Ok(line) = std::str::from_utf8(&raw) else {
            bail!("{name}:{number}: line is not valid UTF-8");
        };
        let line = line.trim_end_matches(['\n', '\r']);
        let document = match format {
            InputFormat::Lines => Document {
                id: number.to_string(),
                text: line.to_string(),
            },
            InputFormat::Jsonl => {
                if line.trim().is_empty() {
                    continue;
                }
                let parsed: JsonDocument = serde_json::from_str(line).with_context(|| {
                    format!("{name}:{number}: expected {{\"id\": ..., \"text\": ...}}")
                })?;
                Document {
                    id: parsed.id,
                    text: parsed.text,
                }
            }
            InputFormat::Files => unreachable!("files are read whole"),
        };
        each(document)?;
    }
}
