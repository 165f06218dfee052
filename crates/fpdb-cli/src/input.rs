//! The command line's inputs: `--input`, `--skip-bad` and the paths, read
//! by `fpdb_input::Inputs` (the reader the Python package uses too);
//! whether `add` and `check` stream; and id files for `remove`.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use fpdb_input::parse_id_line;
pub use fpdb_input::{fingerprints, Inputs, Payload, Record, Role};

use crate::cli::{Apply, InputArgs, InputFormat};

// The parsers check ids against their own copy of the database's limit.
const _: () = assert!(fpdb_input::MAX_ID_BYTES == fpdb::MAX_ID_BYTES);

impl From<InputFormat> for fpdb_input::InputFormat {
    fn from(format: InputFormat) -> Self {
        match format {
            InputFormat::Fps => fpdb_input::InputFormat::Fps,
            InputFormat::Jsonl => fpdb_input::InputFormat::Jsonl,
            InputFormat::Lines => fpdb_input::InputFormat::Lines,
            InputFormat::Files => fpdb_input::InputFormat::Files,
            InputFormat::Html => fpdb_input::InputFormat::Html,
            InputFormat::Warc => fpdb_input::InputFormat::Warc,
        }
    }
}

/// The inputs the arguments name.
pub fn inputs(args: &InputArgs, role: Role) -> Inputs {
    from_parts(args.input, &args.inputs, args.skip_bad, role)
}

/// The inputs at `paths` (standard input when none) read as `format`
/// says, else by extension; with `skip_bad`, bad documents are reported on
/// standard error and skipped.
pub fn from_parts(
    format: Option<InputFormat>,
    paths: &[PathBuf],
    skip_bad: bool,
    role: Role,
) -> Inputs {
    let inputs = Inputs::new(paths, format.map(Into::into), role);
    if skip_bad {
        inputs.skip_bad(|bad| eprintln!("fpdb: skipping {bad}"))
    } else {
        inputs
    }
}

/// Whether `apply` streams `inputs`: `auto` streams when one of them is
/// standard input that is a pipe, a socket or a terminal (a co-process),
/// and validates files and redirected regular files.
pub fn streams(inputs: &Inputs, apply: Apply) -> bool {
    match apply {
        Apply::Stream => true,
        Apply::Validate => false,
        Apply::Auto => inputs.reads_standard_input() && !stdin_is_regular_file(),
    }
}

/// Whether standard input is a regular file (redirected from one), as
/// opposed to a pipe, a socket or a terminal.
fn stdin_is_regular_file() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map(File::from)
            .and_then(|file| file.metadata())
            .is_ok_and(|metadata| metadata.file_type().is_file())
    }
    #[cfg(not(unix))]
    {
        use std::io::IsTerminal;
        !io::stdin().is_terminal()
    }
}

/// A line of an id file that is not an id, and where it is.
#[derive(Debug, Clone)]
struct BadLine {
    location: String,
    what: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.what)
    }
}

impl std::error::Error for BadLine {}

/// The ids of an id file (`-`: standard input), one per line; a line
/// `<id>\t<16 hex digits>` (as `fpdb hash` and fingerprint files hold)
/// gives its id. Blank lines are skipped. Every line is checked before the
/// list is returned, so a bad line stops the caller with nothing done.
pub fn read_ids(path: &Path) -> Result<Vec<String>> {
    let (name, reader): (String, Box<dyn BufRead>) = if path.as_os_str() == "-" {
        ("<stdin>".to_string(), Box::new(io::stdin().lock()))
    } else {
        let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
        (path.display().to_string(), Box::new(BufReader::new(file)))
    };
    let mut ids = Vec::new();
    for (index, line) in reader.split(b'\n').enumerate() {
        let number = index + 1;
        let raw = line.with_context(|| format!("{name}: read failed at line {number}"))?;
        match parse_id_line(&raw) {
            Ok(Some(id)) => ids.push(id),
            Ok(None) => {}
            Err(bad) => bail!(BadLine {
                location: format!("{name}:{number}"),
                what: bad.to_string(),
            }),
        }
    }
    Ok(ids)
}
