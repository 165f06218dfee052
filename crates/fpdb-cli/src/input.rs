//! Reading documents: fingerprint lines, JSON Lines, plain lines, or whole
//! files. This module opens inputs and splits lines; each line is parsed by
//! the `fpdb-input` crate (pure, fuzzed). A bad line is reported as
//! `file:line: what is wrong`; it stops the command unless `--skip-bad` is
//! given, in which case it is reported on standard error, counted and
//! skipped.
//!
//! Lines are read as they arrive, all the whole lines of one read parsed
//! together on every core. `load` reads its inputs once: its bulk loader
//! shows nothing before it finishes, so stopping at a bad line leaves
//! nothing behind.
//! Commands that write (`add`, `check`) either validate first or stream
//! ([`Apply`]). Validating reads the inputs twice: once to check every
//! line, then again to apply them, so that a bad line stops the command
//! before anything is stored (standard input is spooled to a temporary
//! file for that, so inputs larger than memory work). Streaming hands each
//! document over as soon as it has arrived and nothing more is waiting, so
//! a crawler can run `fpdb check` as a co-process and read each answer
//! before it writes the next page.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use fpdb::{Extract, Fingerprint, Simhasher};
use fpdb_input::{
    check_id, parse_id_line, parse_line_with, LineFormat, WarcItem, WarcPage, WarcReader,
};
pub use fpdb_input::{Payload, Record, Role};

use crate::cli::{Apply, InputArgs, InputFormat};

// The parsers check ids against their own copy of the database's limit.
const _: () = assert!(fpdb_input::MAX_ID_BYTES == fpdb::MAX_ID_BYTES);

/// A line that cannot be read, and where it is.
#[derive(Debug, Clone)]
pub struct BadLine {
    pub location: String,
    pub what: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.what)
    }
}

impl std::error::Error for BadLine {}

/// The format to read `path` with: the explicit one, else by extension.
pub fn format_for(explicit: Option<InputFormat>, path: Option<&Path>, role: Role) -> InputFormat {
    if let Some(format) = explicit {
        return format;
    }
    let extension = path
        .and_then(Path::extension)
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match (extension.as_deref(), role) {
        (Some("jsonl"), _) => InputFormat::Jsonl,
        (_, Role::Hash) => InputFormat::Lines,
        (Some("tsv" | "fps"), _) => InputFormat::Fps,
        (None, _) if path.is_none() => InputFormat::Fps,
        _ => InputFormat::Lines,
    }
}

/// One input: a file or standard input.
#[derive(Debug)]
enum Source {
    Stdin,
    File(PathBuf),
    /// Standard input saved to a temporary file (for reading it twice).
    Spooled(tempfile::NamedTempFile),
}

impl Source {
    fn name(&self) -> String {
        match self {
            Source::Stdin | Source::Spooled(_) => "<stdin>".to_string(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// The path the format is chosen by (none for standard input).
    fn path(&self) -> Option<&Path> {
        match self {
            Source::File(path) => Some(path),
            Source::Stdin | Source::Spooled(_) => None,
        }
    }

    fn open(&self) -> Result<Box<dyn Read + '_>> {
        Ok(match self {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::File(path) => Box::new(
                File::open(path).with_context(|| format!("{}: cannot open", path.display()))?,
            ),
            Source::Spooled(file) => {
                let mut file = file
                    .reopen()
                    .context("cannot reopen spooled standard input")?;
                file.rewind()?;
                Box::new(file)
            }
        })
    }
}

/// The documents of a command's inputs.
#[derive(Debug)]
pub struct Inputs {
    format: Option<InputFormat>,
    role: Role,
    skip_bad: bool,
    sources: Vec<Source>,
    /// Bad lines skipped so far (with `--skip-bad`).
    skipped: u64,
    /// Bytes of input read so far (for progress bars).
    bytes_read: Arc<AtomicU64>,
    /// Most records per batch handed to a command.
    chunk_records: usize,
    /// Hand a batch over as soon as the input has nothing more buffered.
    eager: bool,
    /// Which text of an HTML page is read.
    extract: Extract,
    /// WARC records skipped as not HTML responses.
    warc_skipped: AtomicU64,
}

/// Records per batch handed to a command, unless it asks for another size.
pub const CHUNK: usize = 10_000;
/// Bytes read from an input at once: large, so that a streamed file or a
/// fast pipe still arrives in big batches.
const READ_BUFFER: usize = 1 << 20;
/// A batch is handed over early once its ids and texts reach this many
/// bytes, so large batches of long texts stay bounded in memory.
const CHUNK_BYTES: usize = 64 << 20;

impl Inputs {
    pub fn new(args: &InputArgs, role: Role) -> Self {
        Inputs::from_parts(args.input, &args.inputs, args.skip_bad, role)
    }

    pub fn from_parts(
        format: Option<InputFormat>,
        paths: &[PathBuf],
        skip_bad: bool,
        role: Role,
    ) -> Self {
        let mut sources: Vec<Source> = paths
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" {
                    Source::Stdin
                } else {
                    Source::File(p.clone())
                }
            })
            .collect();
        if sources.is_empty() {
            sources.push(Source::Stdin);
        }
        Inputs {
            format,
            role,
            skip_bad,
            sources,
            skipped: 0,
            bytes_read: Arc::default(),
            chunk_records: CHUNK,
            eager: false,
            extract: Extract::default(),
            warc_skipped: AtomicU64::new(0),
        }
    }

    /// WARC records that were not HTML responses.
    pub fn warc_skipped(&self) -> u64 {
        self.warc_skipped.load(Ordering::Relaxed)
    }

    /// Bad lines skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Bytes read so far, updated as reading goes on.
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.bytes_read)
    }

    /// Total bytes of the inputs, when all are files whose size is known.
    pub fn total_bytes(&self) -> Option<u64> {
        self.sources
            .iter()
            .map(|source| match source {
                Source::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
                Source::Stdin | Source::Spooled(_) => None,
            })
            .sum()
    }

    /// Reads HTML pages (`--input html`, JSON `html`) with `extract`.
    pub fn with_extract(mut self, extract: Extract) -> Self {
        self.extract = extract;
        self
    }

    /// Hands records to commands `records` at a time (at least one; fewer
    /// when their texts reach 64 MiB).
    pub fn with_chunk(mut self, records: usize) -> Self {
        self.chunk_records = records.max(1);
        self
    }

    /// Calls `each` with the records of all inputs, a chunk at a time.
    /// A bad line stops with an error, or with `--skip-bad` is reported
    /// and skipped.
    pub fn stream(&mut self, each: impl FnMut(Vec<Record>) -> Result<()>) -> Result<()> {
        let skip_bad = self.skip_bad;
        let mut skipped = 0;
        let result = self.read_all(each, |bad| {
            if skip_bad {
                eprintln!("fpdb: skipping {bad}");
                skipped += 1;
                Ok(())
            } else {
                Err(bad.into())
            }
        });
        self.skipped += skipped;
        result
    }

    /// [`Inputs::stream`], but a batch is also handed over whenever the
    /// input has nothing more buffered (the next read could wait), so each
    /// document is applied and answered before the command waits for
    /// more. A bad line stops the command after what came before it was
    /// applied (or, with `--skip-bad`, is skipped).
    pub fn stream_eagerly(&mut self, each: impl FnMut(Vec<Record>) -> Result<()>) -> Result<()> {
        self.eager = true;
        let result = self.stream(each);
        self.eager = false;
        result
    }

    /// Whether `apply` streams for these inputs: `auto` streams when one
    /// of them is standard input that is a pipe, a socket or a terminal
    /// (a co-process), and validates files and redirected regular files.
    pub fn streams(&self, apply: Apply) -> bool {
        match apply {
            Apply::Stream => true,
            Apply::Validate => false,
            Apply::Auto => {
                self.sources.iter().any(|s| matches!(s, Source::Stdin)) && !stdin_is_regular_file()
            }
        }
    }

    /// [`Inputs::stream`], but every input is read and checked completely
    /// before `each` sees the first record: a bad line (without
    /// `--skip-bad`) stops the command with nothing applied.
    pub fn validated(&mut self, each: impl FnMut(Vec<Record>) -> Result<()>) -> Result<()> {
        let multiple = self
            .sources
            .iter()
            .filter(|s| matches!(s, Source::Stdin))
            .count();
        if multiple > 1 {
            bail!("standard input (-) can be given only once");
        }
        for source in &mut self.sources {
            if matches!(source, Source::Stdin) {
                let mut spool =
                    tempfile::NamedTempFile::new().context("cannot spool standard input")?;
                io::copy(&mut io::stdin().lock(), &mut spool)
                    .context("cannot spool standard input")?;
                spool.flush()?;
                *source = Source::Spooled(spool);
            }
        }
        // Pass 1: validate.
        self.stream(|_| Ok(()))?;
        // Pass 2: apply, skipping (silently now) what pass 1 reported.
        self.read_all(each, |_| Ok(()))
    }

    fn read_all(
        &self,
        mut each: impl FnMut(Vec<Record>) -> Result<()>,
        mut bad: impl FnMut(BadLine) -> Result<()>,
    ) -> Result<()> {
        let eager = self.eager;
        let mut batch = Batch::new(self.chunk_records);
        let numbered_by_file = self.sources.len() > 1;
        for source in &self.sources {
            let format = format_for(self.format, source.path(), self.role);
            let name = source.name();
            let mut handle = |event: Event| -> Result<()> {
                match event {
                    Event::Idle => batch.hand_over(&mut each),
                    Event::Record(Ok(record)) => {
                        if batch.push(record) {
                            batch.hand_over(&mut each)?;
                        }
                        Ok(())
                    }
                    Event::Record(Err(line)) => {
                        // Streaming, what came before a bad line is stored
                        // before the line stops (or is skipped by) the command.
                        if eager {
                            batch.hand_over(&mut each)?;
                        }
                        bad(line)
                    }
                }
            };
            if matches!(format, InputFormat::Files | InputFormat::Html) {
                let Source::File(path) = source else {
                    bail!("--input files and --input html need file paths, not standard input");
                };
                let record = if format == InputFormat::Html {
                    read_html_file(path, self.extract)?
                } else {
                    read_whole_file(path)?
                };
                if let Ok(record) = &record {
                    if let Payload::Text(text) = &record.payload {
                        self.bytes_read
                            .fetch_add(text.len() as u64, Ordering::Relaxed);
                    }
                }
                handle(Event::Record(record))?;
                continue;
            }
            if format == InputFormat::Warc {
                let counted = Counted {
                    inner: source.open()?,
                    bytes: &self.bytes_read,
                };
                // Pages are extracted a batch at a time on every core
                // (extraction is most of the work); streaming, each page
                // as it comes.
                let mut pages = PageBatch::default();
                for item in WarcReader::new(gunzipped(counted)?) {
                    match item {
                        Ok(WarcItem::Page(page)) => {
                            if pages.push(page) || eager {
                                pages.extract(&name, self.extract, &mut handle)?;
                            }
                        }
                        Ok(WarcItem::Skipped { .. }) => {
                            self.warc_skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(error) => {
                            pages.extract(&name, self.extract, &mut handle)?;
                            handle(Event::Record(Err(BadLine {
                                location: name.clone(),
                                what: error.to_string(),
                            })))?;
                        }
                    }
                }
                pages.extract(&name, self.extract, &mut handle)?;
                continue;
            }
            let mut reader = BufReader::with_capacity(READ_BUFFER, source.open()?);
            let format = match format {
                InputFormat::Fps => LineFormat::Fps,
                InputFormat::Jsonl => LineFormat::Jsonl,
                InputFormat::Lines | InputFormat::Files | InputFormat::Html | InputFormat::Warc => {
                    LineFormat::Lines
                }
            };
            let context = LineContext {
                name: &name,
                format,
                role: self.role,
                numbered_by_file,
                bytes_read: &self.bytes_read,
                eager: self.eager,
                extract: self.extract,
            };
            read_lines(&context, &mut reader, &mut handle)?;
        }
        batch.hand_over(&mut each)
    }
}

/// Records gathered for a command, handed over when full (by count or by
/// bytes of ids and texts) or when asked.
struct Batch {
    records: Vec<Record>,
    bytes: usize,
    limit: usize,
}

impl Batch {
    fn new(limit: usize) -> Self {
        Batch {
            records: Vec::with_capacity(limit.min(CHUNK)),
            bytes: 0,
            limit,
        }
    }

    /// Adds a record; true when the batch is full.
    fn push(&mut self, record: Record) -> bool {
        self.bytes += record.id.len();
        if let Payload::Text(text) = &record.payload {
            self.bytes += text.len();
        }
        self.records.push(record);
        self.records.len() >= self.limit || self.bytes >= CHUNK_BYTES
    }

    fn hand_over(&mut self, each: &mut impl FnMut(Vec<Record>) -> Result<()>) -> Result<()> {
        if self.records.is_empty() {
            return Ok(());
        }
        let fresh = Vec::with_capacity(self.limit.min(CHUNK));
        self.bytes = 0;
        each(std::mem::replace(&mut self.records, fresh))
    }
}

fn read_whole_file(path: &Path) -> Result<Result<Record, BadLine>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let id = path.display().to_string();
    Ok(match String::from_utf8(bytes) {
        Ok(text) => check_id(&id).map_err(|e| e.to_string()).map(|()| Record {
            id,
            payload: Payload::Text(text),
        }),
        Err(_) => Err("file is not valid UTF-8 text".to_string()),
    }
    .map_err(|what| BadLine {
        location: path.display().to_string(),
        what,
    }))
}

/// One HTML page per file: its text as `extract` says; binary data is a
/// bad input named by its path.
fn read_html_file(path: &Path, extract: Extract) -> Result<Result<Record, BadLine>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let id = path.display().to_string();
    Ok(
        html_record(id, &bytes, None, extract).map_err(|what| BadLine {
            location: path.display().to_string(),
            what,
        }),
    )
}

/// WARC pages waiting to be extracted together: at most
/// [`PAGE_BATCH`] pages or [`PAGE_BATCH_BYTES`] of bodies.
#[derive(Default)]
struct PageBatch {
    pages: Vec<WarcPage>,
    bytes: usize,
}

/// Pages extracted together: enough for every core to have several.
const PAGE_BATCH: usize = 256;
const PAGE_BATCH_BYTES: usize = 16 << 20;

impl PageBatch {
    /// Adds a page; true when the batch is full.
    fn push(&mut self, page: WarcPage) -> bool {
        self.bytes += page.body.len();
        self.pages.push(page);
        self.pages.len() >= PAGE_BATCH || self.bytes >= PAGE_BATCH_BYTES
    }

    /// Extracts the batch's pages on every core and hands their records
    /// over in input order; a page that cannot be read is a bad input
    /// named `input@offset`.
    fn extract(
        &mut self,
        name: &str,
        extract: Extract,
        handle: &mut impl FnMut(Event) -> Result<()>,
    ) -> Result<()> {
        let pages = std::mem::take(&mut self.pages);
        self.bytes = 0;
        let records = on_every_core(&pages, |page| {
            html_record(
                page.uri.clone(),
                &page.body,
                page.content_type.as_deref(),
                extract,
            )
            .map_err(|what| BadLine {
                location: format!("{name}@{}", page.offset),
                what,
            })
        });
        for record in records {
            handle(Event::Record(record))?;
        }
        Ok(())
    }
}

/// A page as a record of its extracted text, or what is wrong with it.
fn html_record(
    id: String,
    bytes: &[u8],
    content_type: Option<&str>,
    extract: Extract,
) -> Result<Record, String> {
    check_id(&id).map_err(|e| e.to_string())?;
    let page = fpdb_html::page_text(bytes, content_type, extract).map_err(|e| e.to_string())?;
    Ok(Record {
        id,
        payload: Payload::Text(page.text),
    })
}

/// A reader that counts the bytes it reads (for progress bars).
struct Counted<'a, R> {
    inner: R,
    bytes: &'a AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.bytes.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// The input, decompressed when it starts with gzip's magic bytes
/// (`.warc.gz`: one gzip member per record, read as one stream).
fn gunzipped<'a>(input: impl Read + 'a) -> Result<Box<dyn BufRead + 'a>> {
    let mut input = BufReader::with_capacity(READ_BUFFER, input);
    let gzip = input
        .fill_buf()
        .context("cannot read the WARC input")?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        let decoder = libflate::gzip::MultiDecoder::new(input).context("not a gzip stream")?;
        Box::new(BufReader::with_capacity(READ_BUFFER, decoder))
    } else {
        Box::new(input)
    })
}

struct LineContext<'a> {
    name: &'a str,
    format: LineFormat,
    role: Role,
    /// Several inputs: `lines` ids are FILE:LINE, not just LINE.
    numbered_by_file: bool,
    bytes_read: &'a AtomicU64,
    /// Report [`Event::Idle`] whenever the buffer runs dry.
    eager: bool,
    extract: Extract,
}

impl LineContext<'_> {
    /// What line `number`, `raw`, holds (nothing if it is blank).
    fn event(&self, raw: &[u8], number: u64) -> Option<Event> {
        let source = self.numbered_by_file.then_some(self.name);
        match parse_line_with(self.format, self.role, raw, number, source, self.extract) {
            Ok(None) => None,
            Ok(Some(record)) => Some(Event::Record(Ok(record))),
            Err(bad) => Some(Event::Record(Err(BadLine {
                location: format!("{}:{number}", self.name),
                what: bad.to_string(),
            }))),
        }
    }
}

/// What reading an input reports.
enum Event {
    Record(Result<Record, BadLine>),
    /// Nothing more is buffered: the next read may wait for the writer.
    Idle,
}

/// Reads whole lines as they arrive: all the whole lines buffered at once
/// (up to [`READ_BUFFER`] bytes, one read), parsed on every core (parsing
/// is most of a bulk load's reading), then reported in order. A read waits
/// only when nothing is buffered, so a line is parsed and reported as soon
/// as it has arrived; eagerly, [`Event::Idle`] follows whenever nothing
/// more is buffered.
fn read_lines<R: Read>(
    context: &LineContext<'_>,
    reader: &mut BufReader<R>,
    handle: &mut impl FnMut(Event) -> Result<()>,
) -> Result<()> {
    let name = context.name;
    let threads = cores();
    let mut long_line = Vec::new();
    let mut number = 0u64;
    loop {
        let buffered = reader
            .fill_buf()
            .with_context(|| format!("{name}: read failed after line {number}"))?;
        if buffered.is_empty() {
            return Ok(());
        }
        let whole = memchr::memrchr(b'\n', buffered).map_or(0, |at| at + 1);
        let events = if whole > 0 {
            let block = buffered.get(..whole).unwrap_or_default();
            let events = parse_block(context, block, &mut number, threads);
            reader.consume(whole);
            events
        } else {
            // A line longer than the buffer (or the last, without a line
            // end): read to its end.
            long_line.clear();
            reader
                .read_until(b'\n', &mut long_line)
                .with_context(|| format!("{name}: read failed after line {number}"))?;
            parse_block(context, &long_line, &mut number, 1)
        };
        for event in events {
            handle(event)?;
        }
        if context.eager && reader.buffer().is_empty() {
            handle(Event::Idle)?;
        }
    }
}

/// The events of the whole lines of `block`, parsed in up to `threads`
/// parts at once; `number` is the line before the block's first, and
/// becomes its last.
fn parse_block(
    context: &LineContext<'_>,
    block: &[u8],
    number: &mut u64,
    threads: usize,
) -> Vec<Event> {
    context
        .bytes_read
        .fetch_add(block.len() as u64, Ordering::Relaxed);
    let mut parts = Vec::with_capacity(threads);
    for part in whole_line_parts(block, threads) {
        parts.push((*number + 1, part));
        *number += lines(part).count() as u64;
    }
    on_every_core(&parts, |&(first, part)| {
        (first..)
            .zip(lines(part))
            .filter_map(|(number, raw)| context.event(raw, number))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `block` cut into at most `parts` pieces of whole lines.
fn whole_line_parts(block: &[u8], parts: usize) -> Vec<&[u8]> {
    let mut pieces = Vec::with_capacity(parts);
    let mut rest = block;
    for left in (2..=parts).rev() {
        let middle = rest.len() / left;
        let Some(end) = rest
            .get(middle..)
            .and_then(|tail| memchr::memchr(b'\n', tail))
            .map(|at| middle + at + 1)
        else {
            break;
        };
        let (piece, tail) = rest.split_at(end);
        pieces.push(piece);
        rest = tail;
    }
    if !rest.is_empty() {
        pieces.push(rest);
    }
    pieces
}

/// The lines of `text`, each with its line end (the last may have none).
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |at| at + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
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

/// Fingerprints of `records` under `simhasher`, texts hashed on all cores.
pub fn fingerprints(simhasher: &Simhasher, records: &[Record]) -> Vec<Fingerprint> {
    let texts = records
        .iter()
        .filter(|r| matches!(r.payload, Payload::Text(_)))
        .count();
    if texts < 64 {
        return records.iter().map(|r| r.fingerprint(simhasher)).collect();
    }
    on_every_core(records, |r| r.fingerprint(simhasher))
}

/// The cores this process may use, asked once: the answer reads cgroup
/// files, and lines are parsed a read at a time (a co-process's every
/// line).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `each` of `items`, in order, the items split evenly over the cores.
fn on_every_core<T: Sync, U: Send>(items: &[T], each: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let threads = cores();
    if items.len() < 2 || threads == 1 {
        return items.iter().map(&each).collect();
    }
    let per_thread = items.len().div_ceil(threads);
    let each = &each;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per_thread)
            .map(|part| scope.spawn(move || part.iter().map(each).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| match w.join() {
                Ok(done) => done,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// What reading `text` through a buffer of `capacity` bytes reports,
    /// one line per event.
    fn read(text: &[u8], capacity: usize, eager: bool) -> Vec<String> {
        let bytes_read = AtomicU64::new(0);
        let context = context(&bytes_read, eager);
        let mut reader = BufReader::with_capacity(capacity, text);
        let mut seen = Vec::new();
        read_lines(&context, &mut reader, &mut |event| {
            seen.push(describe(event));
            Ok(())
        })
        .unwrap();
        assert_eq!(bytes_read.into_inner(), text.len() as u64);
        seen
    }

    fn context(bytes_read: &AtomicU64, eager: bool) -> LineContext<'_> {
        LineContext {
            name: "in",
            format: LineFormat::Fps,
            role: Role::Store,
            numbered_by_file: false,
            bytes_read,
            eager,
            extract: Extract::default(),
        }
    }

    fn describe(event: Event) -> String {
        match event {
            Event::Record(Ok(record)) => format!("{record:?}"),
            Event::Record(Err(bad)) => bad.to_string(),
            Event::Idle => "idle".into(),
        }
    }

    #[test]
    fn lines_read_in_parallel_blocks_come_in_order_with_their_numbers() {
        let mut text = Vec::new();
        for i in 0..5_000u64 {
            match i % 97 {
                0 => text.extend_from_slice(b"\n"),
                1 => text.extend_from_slice(format!("bad{i}\tnot hex\n").as_bytes()),
                2 => text.extend_from_slice(format!("crlf{i}\t{i:016x}\r\n").as_bytes()),
                3 => text.extend_from_slice(format!("no-tab-{i}\n").as_bytes()),
                4 => text.extend_from_slice(format!("{}\t{i:016x}\n", "l".repeat(300)).as_bytes()),
                _ => text.extend_from_slice(format!("doc{i}\t{i:016x}\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"last\t00000000000000ff");
        // One line at a time, as a plain loop would read them.
        let bytes_read = AtomicU64::new(0);
        let context = context(&bytes_read, false);
        let want: Vec<String> = (1..)
            .zip(text.split_inclusive(|&byte| byte == b'\n'))
            .filter_map(|(number, raw)| context.event(raw, number))
            .map(describe)
            .collect();
        assert_eq!(want.len(), 5_000 - 52 + 1);
        assert!(want.iter().any(|seen| seen.starts_with("in:3882: ")));
        // Lines longer than the buffer, a few lines per read, all at once.
        for capacity in [16, 333, 1 << 20] {
            assert_eq!(read(&text, capacity, false), want, "buffer of {capacity}");
            let eager: Vec<String> = read(&text, capacity, true)
                .into_iter()
                .filter(|seen| seen != "idle")
                .collect();
            assert_eq!(eager, want, "eager, buffer of {capacity}");
        }
    }

    #[test]
    fn eager_reading_is_idle_after_each_read_of_whole_lines() {
        // A reader that hands over one line per read, as a pipe would.
        struct OneLineAtATime<'a>(std::collections::VecDeque<&'a [u8]>);
        impl Read for OneLineAtATime<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let Some(line) = self.0.pop_front() else {
                    return Ok(0);
                };
                out[..line.len()].copy_from_slice(line);
                Ok(line.len())
            }
        }
        let bytes_read = AtomicU64::new(0);
        let context = context(&bytes_read, true);
        let mut reader = BufReader::new(OneLineAtATime(
            [&b"a\t0000000000000001\n"[..], b"b\t0000000000000002\n"].into(),
        ));
        let mut seen = Vec::new();
        read_lines(&context, &mut reader, &mut |event| {
            seen.push(describe(event));
            Ok(())
        })
        .unwrap();
        let idle = seen.iter().filter(|seen| *seen == "idle").count();
        assert_eq!((seen.len(), idle), (4, 2), "{seen:?}");
        assert_eq!(seen[1], "idle");
    }
}
