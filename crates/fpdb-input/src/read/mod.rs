//! Reading inputs: files or standard input, in any of fpdb's formats
//! ([`InputFormat`], said or told by the extension), gzip undone, into
//! [`Record`]s handed over a batch at a time. The `fpdb` command and the
//! Python package read files through this, so a file means the same
//! documents to both.
//!
//! A bad document is a [`BadInput`] naming `file:line` (or `file@offset`
//! in WARC input, or the path of a whole file): it stops the reading
//! unless [`Inputs::skip_bad`] says what to do with it instead.
//!
//! Lines are read as they arrive, all the whole lines of one read parsed
//! together on every core. [`Inputs::stream_eagerly`] also hands over
//! whatever has arrived when the input pauses (a co-process's every
//! line); [`Inputs::validated`] reads everything once to check it before
//! handing anything over (standard input saved to a temporary file for
//! that, so inputs larger than memory work); [`Inputs::stream_until`]
//! stops reading when its caller has what it needs.
//!
//! ```
//! use fpdb_input::{InputFormat, Inputs, ReadError, Role};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("pages.tsv");
//! std::fs::write(&path, "a\t0123456789abcdef\nb\t00000000000000ff\n")?;
//! let mut ids = Vec::new();
//! Inputs::new(&[path], None, Role::Store).stream(|records| {
//!     ids.extend(records.into_iter().map(|record| record.id));
//!     Ok::<(), ReadError>(())
//! })?;
//! assert_eq!(ids, ["a", "b"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cores;
mod error;
mod format;
mod lines;
mod pages;
mod source;

use std::fmt;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use fpdb_html::Extract;

pub use cores::fingerprints;
pub use error::{BadInput, ReadError};
pub use format::{InputFormat, UnknownFormat};

use crate::{LineFormat, Payload, Record, Role};
use lines::{read_lines, Event, LineContext};
use pages::{read_warc, whole_file, WarcContext};
use source::Source;

/// Records per batch handed over, unless another size is asked for.
pub const CHUNK: usize = 10_000;
/// A batch is handed over early once its ids and texts reach this many
/// bytes, so large batches of long texts stay bounded in memory.
const CHUNK_BYTES: usize = 64 << 20;

/// What is done with a bad document instead of stopping.
type SkipBad = Box<dyn FnMut(&BadInput) + Send>;

/// The documents of some inputs.
pub struct Inputs {
    format: Option<InputFormat>,
    role: Role,
    sources: Vec<Source>,
    skip_bad: Option<SkipBad>,
    /// Bad documents skipped so far.
    skipped: u64,
    /// Bytes of input read so far (for progress).
    bytes_read: Arc<AtomicU64>,
    /// Most records per batch.
    chunk_records: usize,
    /// Hand a batch over as soon as the input has nothing more buffered.
    eager: bool,
    /// Which text of an HTML page is read.
    extract: Extract,
    /// WARC records skipped as not HTML responses.
    warc_skipped: AtomicU64,
}

impl fmt::Debug for Inputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inputs")
            .field("format", &self.format)
            .field("role", &self.role)
            .field("sources", &self.sources)
            .field("skip_bad", &self.skip_bad.is_some())
            .field("extract", &self.extract)
            .finish_non_exhaustive()
    }
}

impl Inputs {
    /// The inputs at `paths` (`-` is standard input; none: standard input
    /// alone), each read as `format` says or, when it is `None`, as
    /// [`InputFormat::for_path`] tells by its name.
    pub fn new(paths: &[impl AsRef<Path>], format: Option<InputFormat>, role: Role) -> Self {
        let mut sources: Vec<Source> = paths.iter().map(|p| Source::new(p.as_ref())).collect();
        if sources.is_empty() {
            sources.push(Source::Stdin);
        }
        Inputs {
            format,
            role,
            sources,
            skip_bad: None,
            skipped: 0,
            bytes_read: Arc::default(),
            chunk_records: CHUNK,
            eager: false,
            extract: Extract::default(),
            warc_skipped: AtomicU64::new(0),
        }
    }

    /// Bad documents are handed to `report`, counted and skipped, instead
    /// of stopping the reading.
    pub fn skip_bad(mut self, report: impl FnMut(&BadInput) + Send + 'static) -> Self {
        self.skip_bad = Some(Box::new(report));
        self
    }

    /// Reads HTML pages (`html` and `warc` inputs, JSON `html`) with
    /// `extract`.
    pub fn with_extract(mut self, extract: Extract) -> Self {
        self.extract = extract;
        self
    }

    /// Hands records over `records` at a time (at least one; fewer when
    /// their ids and texts reach 64 MiB).
    pub fn with_chunk(mut self, records: usize) -> Self {
        self.chunk_records = records.max(1);
        self
    }

    /// WARC records that were not HTML responses.
    pub fn warc_skipped(&self) -> u64 {
        self.warc_skipped.load(Ordering::Relaxed)
    }

    /// Bad documents skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Bytes read from the inputs so far (before gzip is undone), updated
    /// as reading goes on.
    pub fn bytes_read(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.bytes_read)
    }

    /// Total bytes of the inputs, when all are files whose size is known.
    pub fn total_bytes(&self) -> Option<u64> {
        self.sources.iter().map(Source::len).sum()
    }

    /// Whether standard input is one of the inputs.
    pub fn reads_standard_input(&self) -> bool {
        self.sources.iter().any(|s| matches!(s, Source::Stdin))
    }

    /// Calls `each` with the records of all inputs, a batch at a time, in
    /// input order. A bad document stops the reading with
    /// [`ReadError::Bad`], unless [`Inputs::skip_bad`] was asked for.
    pub fn stream<E: From<ReadError>>(
        &mut self,
        each: impl FnMut(Vec<Record>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut report = self.skip_bad.take();
        let mut skipped = 0;
        let result = self.read_all(each, |bad| match report.as_mut() {
            Some(report) => {
                report(&bad);
                skipped += 1;
                Ok(())
            }
            None => Err(ReadError::Bad(bad).into()),
        });
        self.skip_bad = report;
        self.skipped += skipped;
        result
    }

    /// [`Inputs::stream`] until `each` breaks: nothing after that batch is
    /// read, so a caller that needs the first documents of a large file
    /// (or of a pipe that stays open) does not wait for its end.
    pub fn stream_until<E: From<ReadError>>(
        &mut self,
        mut each: impl FnMut(Vec<Record>) -> Result<ControlFlow<()>, E>,
    ) -> Result<(), E> {
        let streamed = self.stream(|records| match each(records) {
            Ok(ControlFlow::Continue(())) => Ok(()),
            Ok(ControlFlow::Break(())) => Err(Until::Stopped),
            Err(error) => Err(Until::Failed(error)),
        });
        match streamed {
            Ok(()) | Err(Until::Stopped) => Ok(()),
            Err(Until::Failed(error)) => Err(error),
        }
    }

    /// [`Inputs::stream`], but a batch is also handed over whenever the
    /// input has nothing more buffered (the next read could wait), so each
    /// document is handled before the reader waits for more. A bad
    /// document stops the reading after what came before it was handed
    /// over.
    pub fn stream_eagerly<E: From<ReadError>>(
        &mut self,
        each: impl FnMut(Vec<Record>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.eager = true;
        let result = self.stream(each);
        self.eager = false;
        result
    }

    /// [`Inputs::stream`], but every input is read and checked completely
    /// before `each` sees the first record: a bad document (unless
    /// skipped) stops the reading with nothing handed over.
    pub fn validated<E: From<ReadError>>(
        &mut self,
        each: impl FnMut(Vec<Record>) -> Result<(), E>,
    ) -> Result<(), E> {
        let stdins = self
            .sources
            .iter()
            .filter(|s| matches!(s, Source::Stdin))
            .count();
        if stdins > 1 {
            return Err(ReadError::StdinTwice.into());
        }
        for source in &mut self.sources {
            source.spool()?;
        }
        // Pass 1 checks, pass 2 hands over, skipping (silently now) what
        // pass 1 reported.
        self.stream(|_| Ok::<(), E>(()))?;
        self.bytes_read.store(0, Ordering::Relaxed);
        self.warc_skipped.store(0, Ordering::Relaxed);
        self.read_all(each, |_| Ok(()))
    }

    fn read_all<E: From<ReadError>>(
        &self,
        mut each: impl FnMut(Vec<Record>) -> Result<(), E>,
        mut bad: impl FnMut(BadInput) -> Result<(), E>,
    ) -> Result<(), E> {
        let eager = self.eager;
        let mut batch = Batch::new(self.chunk_records);
        let numbered_by_file = self.sources.len() > 1;
        for source in &self.sources {
            let format = self
                .format
                .unwrap_or_else(|| InputFormat::for_path(source.path(), self.role));
            let name = source.name();
            let mut handle = |event: Event| -> Result<(), E> {
                match event {
                    Event::Idle => batch.hand_over(&mut each),
                    Event::Record(Ok(record)) => {
                        if batch.push(record) {
                            batch.hand_over(&mut each)?;
                        }
                        Ok(())
                    }
                    Event::Record(Err(line)) => {
                        // Streaming, what came before a bad document is
                        // handed over before it stops (or is skipped).
                        if eager {
                            batch.hand_over(&mut each)?;
                        }
                        bad(line)
                    }
                }
            };
            let line_format = match format {
                InputFormat::Fps => LineFormat::Fps,
                InputFormat::Jsonl => LineFormat::Jsonl,
                InputFormat::Lines => LineFormat::Lines,
                InputFormat::Files | InputFormat::Html => {
                    let record = whole_file(source, format, self.extract, &self.bytes_read)?;
                    handle(Event::Record(record))?;
                    continue;
                }
                InputFormat::Warc => {
                    let context = WarcContext {
                        name: &name,
                        extract: self.extract,
                        eager,
                        skipped: &self.warc_skipped,
                    };
                    read_warc(&context, source.reader(&self.bytes_read)?, &mut handle)?;
                    continue;
                }
            };
            let context = LineContext {
                name: &name,
                format: line_format,
                role: self.role,
                numbered_by_file,
                eager,
                extract: self.extract,
            };
            let mut reader = source.reader(&self.bytes_read)?;
            read_lines(&context, &mut reader, &mut handle)?;
        }
        batch.hand_over(&mut each)
    }
}

/// How [`Inputs::stream_until`] ended a reading early: its caller broke,
/// or failed (a read error included).
enum Until<E> {
    Stopped,
    Failed(E),
}

impl<E: From<ReadError>> From<ReadError> for Until<E> {
    fn from(error: ReadError) -> Self {
        Until::Failed(error.into())
    }
}

/// Records gathered for the caller, handed over when full (by count or by
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

    fn hand_over<E>(
        &mut self,
        each: &mut impl FnMut(Vec<Record>) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.records.is_empty() {
            return Ok(());
        }
        let fresh = Vec::with_capacity(self.limit.min(CHUNK));
        self.bytes = 0;
        each(std::mem::replace(&mut self.records, fresh))
    }
}
