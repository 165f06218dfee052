//! The command line, as clap types. Validation that clap cannot express
//! happens when the arguments are turned into library options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// fpdb: find near-duplicate documents with 64-bit simhash fingerprints.
///
/// Exit status: 0 success, 1 error (a bad input line, a database error),
/// 2 invalid command line. Results go to standard output, errors and
/// progress to standard error.
#[derive(Debug, Parser)]
#[command(name = "fpdb", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new, empty database.
    Create(CreateArgs),
    /// Store documents (fingerprints or texts) in a database.
    ///
    /// Every input is read and checked completely before anything is
    /// stored (standard input is first saved to a temporary file), so a bad
    /// line stops the command with nothing of the inputs applied. Documents
    /// are then stored with one atomic batch per 10,000; texts are
    /// fingerprinted with the simhash options stored in the database. An id
    /// already stored gets the new fingerprint.
    Add(AddArgs),
    /// Find the stored near-duplicates of fingerprints or texts.
    ///
    /// Prints one answer per input document, in input order. Opens the
    /// database read-only, so it may run while another process writes.
    Query(QueryArgs),
    /// Query, then store, each document: the crawler's check-and-insert.
    ///
    /// Prints the answer as `query` does; each document is stored right
    /// after its answer, so later documents see earlier ones. Inputs are
    /// checked completely first, as in `add`.
    Check(CheckArgs),
    /// Forget documents by id.
    Remove(RemoveArgs),
    /// Show a database's design, counts and sizes.
    Stats(StatsArgs),
    /// Merge pending changes into the tables and compact the store.
    Compact(CompactArgs),
    /// Print every stored document as `<id>\t<16 hex digits>` (what `add` reads).
    Export(ExportArgs),
    /// Print the fingerprint of every input document as `<id>\t<hex>`.
    Hash(HashArgs),
    /// Load the bundled sample corpus into a temporary database and show
    /// its near-duplicates.
    Demo(DemoArgs),
}

/// How text is turned into fingerprints.
#[derive(Debug, Args, Clone)]
pub struct SimhashArgs {
    /// jieba (Chinese and mixed text), words (Unicode words) or chars:N
    /// (N-character shingles) [default: jieba].
    #[arg(long)]
    pub tokenizer: Option<String>,
    /// tf (term counts), tfidf (top keywords, count by length) or tfidf:N
    /// [default: tfidf:8].
    #[arg(long)]
    pub weights: Option<String>,
}

/// How input documents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// `<id>\t<16 hex digits>` per line (queries also take a bare
    /// fingerprint; its id is the fingerprint).
    Fps,
    /// JSON Lines: {"id": "...", "text": "..."} or {"id": "...", "fp": "<hex>"}.
    Jsonl,
    /// One text document per line; the id is the line number (FILE:LINE
    /// when several files are given). Blank lines are skipped.
    Lines,
    /// One text document per file; the id is the path.
    Files,
}

/// Where documents come from.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input format [default: jsonl for *.jsonl files, fps for *.tsv and
    /// *.fps files and for standard input, lines for other files].
    #[arg(long, value_enum)]
    pub input: Option<InputFormat>,
    /// Report bad lines on standard error, skip them and go on, instead of
    /// stopping at the first one.
    #[arg(long)]
    pub skip_bad: bool,
    /// Input files; standard input when none (or `-`).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One JSON object per query: {"query", "fp", "matches": [{"fp",
    /// "distance", "ids"}]}.
    Json,
    /// A table with a header: query, fp, match_fp, distance, id; one row
    /// per (match, id); queries without matches have no row.
    Tsv,
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// Directory of the new database (must not exist or be empty).
    pub db: PathBuf,
    /// Largest Hamming distance queries may ask for (0 to 7).
    #[arg(long, default_value_t = fpdb::DEFAULT_K)]
    pub k: u32,
    /// About how many distinct fingerprints the database will hold; picks
    /// the design when --design is auto.
    #[arg(long, value_name = "N", default_value_t = fpdb::Options::default().expected_size)]
    pub expected: u64,
    /// Permuted tables: auto, MxW (4x16), a table count (10, 16, 20, …),
    /// split-4-4, widths-40-24, …
    #[arg(long, default_value = "auto")]
    pub design: String,
    /// Target size of one compressed block in bytes (64 to 1048576).
    #[arg(long, value_name = "BYTES", default_value_t = fpdb::codec::DEFAULT_BLOCK_BYTES)]
    pub block_bytes: usize,
    #[command(flatten)]
    pub simhash: SimhashArgs,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The database.
    pub db: PathBuf,
    /// fsync every batch (survives a power failure, not only a crash).
    #[arg(long)]
    pub sync: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The database.
    pub db: PathBuf,
    /// Largest distance of a match [default: the database's k].
    #[arg(long)]
    pub k: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: OutputFormat,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The database.
    pub db: PathBuf,
    /// Largest distance of a match [default: the database's k].
    #[arg(long)]
    pub k: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: OutputFormat,
    /// fsync every insert.
    #[arg(long)]
    pub sync: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The database.
    pub db: PathBuf,
    /// Ids to remove.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// A file of ids to remove, one per line (`-`: standard input). A line
    /// `<id>\t<16 hex digits>`, as `fpdb hash` prints, removes <id>.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// fsync every removal.
    #[arg(long)]
    pub sync: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The database.
    pub db: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The database.
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct HashArgs {
    #[command(flatten)]
    pub simhash: SimhashArgs,
    /// Input format [default: jsonl for *.jsonl, else lines, also for
    /// standard input].
    #[arg(long, value_enum)]
    pub input: Option<InputFormat>,
    /// Report bad lines on standard error, skip them and go on.
    #[arg(long)]
    pub skip_bad: bool,
    /// Input files; standard input when none (or `-`).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The corpus (JSON Lines with id and text) [default: data/corpus.jsonl].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Largest Hamming distance of a near-duplicate.
    #[arg(long, default_value_t = 3)]
    pub k: u32,
    /// How many pairs to show side by side.
    #[arg(long, default_value_t = 5)]
    pub show: usize,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The database directory.
    pub db: PathBuf,
}
