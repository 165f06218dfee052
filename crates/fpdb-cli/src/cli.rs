//! The command line, as clap types. Validation that clap cannot express
//! happens when the arguments are turned into library options.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use fpdb_server::Limits;

/// fpdb: find near-duplicate documents with 64-bit simhash fingerprints.
///
/// Exit status: 0 success; 1 findings (`fpdb verify` found damage); 2 an
/// error: an invalid command line, a bad input line, a missing or unusable
/// database. A closed standard output (`fpdb export DB | head`) ends the
/// command quietly with 0. Results go to standard output, errors and
/// progress to standard error; long commands draw progress bars there
/// when it is a terminal (`--quiet`: never).
#[derive(Debug, Parser)]
#[command(
    name = "fpdb",
    version,
    about,
    long_about,
    after_help = "Examples:\n  fpdb create pages.fpdb && fpdb load pages.fpdb crawl.warc.gz\n  fpdb --quiet verify pages.fpdb"
)]
pub struct Cli {
    /// Draw no progress bars (they are drawn only when standard error is
    /// a terminal).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new, empty database.
    #[command(
        after_help = "Examples:\n  fpdb create pages.fpdb --k 3 --expected 100000000 --tokenizer words\n  fpdb create pages.fpdb --weights learned --learn-from first-pages.jsonl --confirm"
    )]
    Create(CreateArgs),
    /// Bulk load documents into an empty database (the fast way to fill one).
    ///
    /// Reads every input (standard input when none), fingerprints texts in
    /// parallel with the database's simhash options, sorts and writes the
    /// tables directly. Nothing is visible until the load has finished; a
    /// bad line (without --skip-bad) or an interruption leaves the database
    /// empty. A repeated id keeps its last fingerprint. The database must be
    /// empty: use `add` to add to a populated one.
    #[command(
        after_help = "Examples:\n  fpdb load pages.fpdb crawl.tsv\n  fpdb export old.fpdb | fpdb load new.fpdb\n  fpdb load pages.fpdb --input warc --format json crawl-*.warc.gz"
    )]
    Load(LoadArgs),
    /// Store documents (fingerprints, texts or pages) in a database.
    ///
    /// Texts are fingerprinted with the simhash options stored in the
    /// database. An id already stored gets the new fingerprint. When what
    /// is read gets stored depends on --apply: files (and standard input
    /// redirected from a file) are read and checked completely first, so a
    /// bad line stops the command with nothing stored, then stored in
    /// atomic batches of 10,000; standard input from a pipe is streamed,
    /// each document stored as soon as it has arrived, so a bad line stops
    /// the command after what came before it was stored.
    #[command(
        after_help = "Examples:\n  fpdb add pages.fpdb --input jsonl new-pages.jsonl\n  crawler | fpdb add pages.fpdb --input jsonl\n  fpdb add --server http://127.0.0.1:7800 --token-file token.txt new-pages.jsonl"
    )]
    Add(AddArgs),
    /// Find the stored near-duplicates of fingerprints or texts.
    ///
    /// Prints one answer per input document, in input order. Opens the
    /// database read-only, so it may run while another process writes.
    #[command(
        after_help = "Examples:\n  printf '0123456789abcdef\\n' | fpdb query pages.fpdb --k 2\n  fpdb query pages.fpdb --format tsv questions.jsonl\n  fpdb query --server http://127.0.0.1:7800 questions.jsonl"
    )]
    Query(QueryArgs),
    /// Query, then store, each document: the crawler's check-and-insert.
    ///
    /// Prints the answer as `query` does; each document is stored right
    /// after its answer, so later documents see earlier ones. --apply
    /// works as in `add`: files are checked completely before the first
    /// answer; standard input from a pipe is streamed, each answer printed
    /// and flushed before more input is awaited (for a crawler running
    /// fpdb as a co-process).
    #[command(
        after_help = "Examples:\n  fpdb check pages.fpdb todays-crawl.jsonl > duplicates.jsonl\n  crawler | fpdb check pages.fpdb --input jsonl --format tsv\n  crawler | fpdb check --server http://127.0.0.1:7800 --input jsonl"
    )]
    Check(CheckArgs),
    /// Forget documents by id (all in one atomic write).
    #[command(
        after_help = "Examples:\n  fpdb remove pages.fpdb https://example.com/a https://example.com/b\n  fpdb remove pages.fpdb --id-file gone.txt"
    )]
    Remove(RemoveArgs),
    /// Show a database's design, counts and sizes.
    ///
    /// Warns (on standard error) when the database has outgrown its
    /// design, and says what to do.
    #[command(
        after_help = "Examples:\n  fpdb stats pages.fpdb\n  fpdb stats pages.fpdb --format json"
    )]
    Stats(StatsArgs),
    /// Check everything stored: blocks, directories, tables, ids, counters.
    ///
    /// Decodes every block (checksums verified), checks that the block
    /// directories list exactly the stored blocks, that every table holds
    /// the same fingerprints, that every fingerprint has ids and every id
    /// its fingerprint, and that the counters are right. Prints what is
    /// damaged (table, block, id) and exits with 1 when anything is, 0 when
    /// all holds.
    #[command(
        after_help = "Examples:\n  fpdb verify pages.fpdb || echo damaged\n  fpdb verify pages.fpdb --format json"
    )]
    Verify(VerifyArgs),
    /// Merge pending changes into the tables and compact the store.
    #[command(after_help = "Example:\n  fpdb compact pages.fpdb")]
    Compact(CompactArgs),
    /// Copy a database consistently, also while another process writes.
    ///
    /// With no other process writing, the copy is a RocksDB checkpoint:
    /// its files are hard-linked when DEST is on the same file system, so
    /// it takes little time and space. Beside a live writer (a crawler
    /// holding the database), it replays the writer's log and copies what
    /// it sees into new files: every write acknowledged before the backup
    /// began. Either way the copy is built in DEST.tmp and renamed to DEST
    /// when complete (a leftover DEST.tmp of an interrupted backup is
    /// removed), then checked as `fpdb verify` does: exit 1 if the copy is
    /// damaged. The copy is a database: open it, or copy it elsewhere.
    #[command(
        after_help = "Examples:\n  fpdb backup pages.fpdb backups/pages-$(date +%F)\n  fpdb backup pages.fpdb /mnt/other-disk/pages --no-verify --format json"
    )]
    Backup(BackupArgs),
    /// Rebuild a damaged database from the copies of its data that survived.
    ///
    /// Finds the damage as `fpdb verify` does (and does nothing when there
    /// is none), reads every document still held by either half of the id
    /// map, builds a new database of them with the same options (every
    /// table rebuilt), verifies it and swaps it into place atomically: a
    /// kill at any moment leaves the damaged or the repaired database. The
    /// damaged one is kept as DB.damaged. Prints what was restored from
    /// which copy and what was lost (fingerprints the set still held whose
    /// ids were lost from both halves of the id map, and files RocksDB could
    /// not read, without which it reads an earlier state); exit 1 when
    /// something was or may have been lost. The database must not be open
    /// for writing.
    #[command(
        after_help = "Examples:\n  fpdb verify pages.fpdb || fpdb repair pages.fpdb && fpdb verify pages.fpdb\n  fpdb repair pages.fpdb --format json"
    )]
    Repair(RepairArgs),
    /// Print every stored document as `<id>\t<16 hex digits>`, or with
    /// --format json as `{"id", "fp"}` JSON Lines (what `load` and `add`
    /// read).
    #[command(
        after_help = "Examples:\n  fpdb export pages.fpdb > backup.tsv\n  fpdb export old.fpdb | fpdb load new.fpdb\n  fpdb export pages.fpdb --format json > backup.jsonl"
    )]
    Export(ExportArgs),
    /// Print the fingerprint of every input document as `<id>\t<hex>`, or
    /// with --format json as `{"id", "fp"}` JSON Lines.
    #[command(
        after_help = "Examples:\n  fpdb hash --tokenizer words --input lines titles.txt\n  fpdb hash --format json pages.jsonl | fpdb add pages.fpdb --input jsonl"
    )]
    Hash(HashArgs),
    /// Near-duplicate pairs or clusters of a corpus, without a database.
    ///
    /// Reads every input document (fingerprints, or texts hashed with the
    /// --tokenizer and --weights options), then prints each unordered pair
    /// of near-duplicates once, `{"a": "<id>", "b": "<id>", "distance": 2,
    /// "similarity": 0.9}`. Texts are matched in two stages by default,
    /// with weights and the features common to a site's template learned
    /// from the first 10,000 texts (--no-confirm and --weights tfidf:8
    /// give the single comparison within --k); fingerprints by distance
    /// within --k, documents with the same fingerprint at distance 0.
    /// With --clusters it prints connected components of those pairs
    /// instead, `{"cluster": 0, "representative": "<id>", "ids": [...]}`;
    /// documents without a near-duplicate are in no cluster. Holds every id
    /// and fingerprint in memory; texts are fingerprinted on every core,
    /// then the pairs are found on one.
    #[command(
        after_help = "Examples:\n  fpdb dedup pages.jsonl\n  fpdb dedup --no-confirm --weights tfidf:8 --k 3 pages.jsonl\n  fpdb hash --input lines docs.txt | fpdb dedup --clusters --representative smallest"
    )]
    Dedup(DedupArgs),
    /// Near-duplicate pairs or clusters inside a database.
    ///
    /// Prints each unordered pair of stored documents within --k once, in
    /// the format of `fpdb dedup`, documents sharing a fingerprint at
    /// distance 0; with --clusters, connected components named by their
    /// smallest id. Opens the database read-only and reads each table once.
    #[command(after_help = "Example:\n  fpdb pairs pages.fpdb --k 2 --format tsv")]
    Pairs(PairsArgs),
    /// Write one HTML page that shows a database: how far apart its near
    /// pairs are, how large its clusters, a sample of pairs side by side
    /// with their differences marked, and its sizes.
    ///
    /// The page is self-contained (inline SVG and CSS, no script, nothing
    /// fetched), to open in any browser or attach to a message. The
    /// database holds fingerprints, not texts: each sampled pair shows the
    /// bits its fingerprints differ in; given the documents with --texts
    /// (any input format; only the sampled ones are kept), it shows the
    /// two texts with the words that differ marked. Opens the database
    /// read-only and reads each table once, as `pairs` does.
    #[command(
        after_help = "Examples:\n  fpdb report pages.fpdb --html report.html\n  fpdb report pages.fpdb --html report.html --k 2 --texts pages.jsonl --sample 30"
    )]
    Report(ReportArgs),
    /// Serve a database over HTTP/JSON to many crawlers at once.
    ///
    /// One process owns the database (opened with every write synced);
    /// crawlers in any language check, query, insert and remove documents
    /// with JSON requests (docs/SERVER.md). Prints `listening on ADDR` on
    /// standard output once it accepts connections, logs to standard
    /// error, and on SIGTERM answers the requests in flight, flushes and
    /// exits with 0.
    #[command(
        after_help = "Examples:\n  fpdb serve pages.fpdb --listen 127.0.0.1:7800\n  fpdb serve pages.fpdb --listen 0.0.0.0:7800 --token-file tokens.txt --tls-cert cert.pem --tls-key key.pem"
    )]
    Serve(ServeArgs),
    /// Load the bundled sample corpus into a temporary database and show
    /// its near-duplicates.
    ///
    /// First within --k bits (the paper's single comparison), then in two
    /// stages as `fpdb dedup` matches by default (weights learned from the
    /// corpus, candidates confirmed by signatures); each answer is counted
    /// against the copies planted in the corpus, edit by edit, and checked
    /// against its rule applied to every pair. Then one article under two
    /// site templates and charsets.
    #[command(after_help = "Example:\n  fpdb demo --k 3 --show 5")]
    Demo(DemoArgs),
    /// Choose settings on a sample of your own documents.
    ///
    /// Takes the first --originals texts of the sample and plants copies of
    /// each as a crawler meets them (1% typos, a portal's header and
    /// footer, changed dates and counters, a dropped sentence, a mirror
    /// doing all of it; Chinese or space-separated edits by each text's
    /// script), keeps the rest of the sample as it is, and matches every
    /// text against every other under each setting a database can be
    /// created with: the default or learned weights, by distance alone or
    /// confirmed by signatures, at radii 3 to 12. Prints recall (overall
    /// and per edit), precision and false matches per query (measured, and
    /// extrapolated to --expected documents) for each, recommends the best
    /// recall at --min-precision with the `fpdb create` flags that give it,
    /// and with --figure draws recall against false matches as SVG. A pair
    /// of different texts of the sample counts as false, so a sample with
    /// near-duplicates of its own should be deduplicated first.
    #[command(
        after_help = "Examples:\n  fpdb tune --input jsonl sample.jsonl --figure settings.svg\n  fpdb tune --input lines --originals 500 --expected 100000000 paragraphs.txt"
    )]
    Tune(TuneArgs),
}

/// How text is turned into fingerprints.
#[derive(Debug, Args, Clone)]
pub struct SimhashArgs {
    /// jieba (Chinese and mixed text), words (Unicode words) or chars:N
    /// (N-character shingles) [default: jieba].
    #[arg(long)]
    pub tokenizer: Option<String>,
    /// tf (term counts), tfidf (top keywords, count by length), tfidf:N,
    /// or learned (every word weighted by its rarity in the first 10,000
    /// texts, tf × IDF³ capped at ln 100: of the corpus for dedup, of --learn-from for
    /// create) [default: tfidf:8; learned for dedup].
    #[arg(long)]
    pub weights: Option<String>,
    /// Which text of an HTML page is fingerprinted: main (the article, by
    /// a readability-style extractor; all visible text when it finds
    /// none) or all (every visible text, site template included).
    #[arg(long, default_value = "main")]
    pub extract: fpdb::Extract,
}

impl SimhashArgs {
    /// `--weights learned`: the weights are learned from the input.
    pub fn learns_weights(&self) -> bool {
        self.weights.as_deref() == Some("learned")
    }

    /// `dedup`'s choice: learned weights unless other weights are given.
    pub fn dedup_learns_weights(&self) -> bool {
        self.weights.is_none() || self.learns_weights()
    }
}

/// How input documents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// `<id>\t<16 hex digits>` per line (queries also take a bare
    /// fingerprint; its id is the fingerprint).
    Fps,
    /// JSON Lines: {"id": "...", "text": "..."}, {"id": "...", "html":
    /// "..."} or {"id": "...", "fp": "<hex>"}.
    Jsonl,
    /// One text document per line; the id is the line number (FILE:LINE
    /// when several files are given). Blank lines are skipped.
    Lines,
    /// One text document per file; the id is the path.
    Files,
    /// One HTML page per file, in any charset (BOM, <meta charset> or a
    /// guess); the id is the path; its text is extracted as the
    /// database's --extract says.
    Html,
    /// WARC 1.0/1.1 files (.warc.gz: a gzip member per record): the HTML pages of
    /// their response records, id = WARC-Target-URI; other records are
    /// skipped and counted; a malformed record is a bad input named by
    /// its byte offset.
    Warc,
}

/// Where documents come from.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input format [default, by the file's name: jsonl for *.jsonl, warc
    /// for *.warc, html for *.html and *.htm, fps for *.tsv and *.fps,
    /// each also with .gz after it; lines for other files; fps for standard
    /// input]. Gzip is read in any format.
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

/// When `add` and `check` store what they read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Apply {
    /// `stream` when standard input is a pipe, a socket or a terminal,
    /// `validate` for files (and standard input redirected from a file).
    Auto,
    /// Store (and, for `check`, answer) each document as soon as it has
    /// arrived, flushing each answer: for a crawler running fpdb as a
    /// co-process. A bad line stops the command after everything before
    /// it was stored.
    Stream,
    /// Read and check all input first; a bad line stops the command with
    /// nothing stored.
    Validate,
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
    /// Largest Hamming distance the tables answer by shared prefixes, and
    /// near pairs reach (0 to 7); single queries may ask up to 16.
    #[arg(long, default_value_t = fpdb::DEFAULT_K)]
    pub k: u32,
    /// About how many distinct fingerprints the database will hold; picks
    /// the design when --design is auto.
    #[arg(long, value_name = "N", default_value_t = fpdb::Options::default().expected_size)]
    pub expected: u64,
    /// Permuted tables: auto, MxW (4x16), a table count (6, 10, 16, …),
    /// split-4-4, parts-2-3, widths-40-24, …
    #[arg(long, default_value = "auto")]
    pub design: String,
    /// Target size of one compressed block in bytes (64 to 1048576).
    #[arg(long, value_name = "BYTES", default_value_t = fpdb::DEFAULT_BLOCK_BYTES)]
    pub block_bytes: usize,
    #[command(flatten)]
    pub simhash: SimhashArgs,
    #[command(flatten)]
    pub confirm: ConfirmArgs,
    /// Texts of the crawl (any input format, by extension) to learn from:
    /// with --weights learned, every word's weight; with --confirm, the
    /// features common to more than 20% of them, left out of signatures.
    /// Only the first 10,000 texts with features are read.
    #[arg(long, value_name = "FILE")]
    pub learn_from: Vec<PathBuf>,
    /// The format of --learn-from [default, by the file's name, as for
    /// `--input`; lines for standard input (`-`)].
    #[arg(long, value_enum, value_name = "FORMAT", requires = "learn_from")]
    pub learn_input: Option<InputFormat>,
}

/// Two-stage matching, for `create`.
#[derive(Debug, Args)]
pub struct ConfirmArgs {
    /// Confirm matches in two stages: keep a 32-byte signature of each
    /// text, retrieve candidates within --confirm-radius bits and keep
    /// those whose estimated resemblance reaches --confirm-threshold.
    /// Documents given as bare fingerprints match by distance alone.
    #[arg(long)]
    pub confirm: bool,
    /// With --confirm: the Hamming radius candidates come from (up to 16).
    #[arg(long, value_name = "BITS", default_value_t = fpdb::Confirmation::recommended().radius(), requires = "confirm")]
    pub confirm_radius: u32,
    /// With --confirm: the least estimated resemblance (0 to 1) that
    /// confirms a candidate.
    #[arg(long, value_name = "SHARE", default_value_t = fpdb::Confirmation::recommended().threshold(), requires = "confirm")]
    pub confirm_threshold: f64,
    /// With --confirm: weak bits kept per quarter of each fingerprint (0
    /// to 8). Candidates are then those within --confirm-radius that both
    /// documents' weak bits reach, probed in each table (needs the
    /// split-4 design, which `auto` then picks); 0 takes every
    /// fingerprint within the radius, far slower past k.
    #[arg(long, value_name = "N", default_value_t = fpdb::Confirmation::recommended().weak_bits(), requires = "confirm")]
    pub confirm_weak_bits: u32,
    /// With --confirm: at most this many of a quarter's weak bits flipped
    /// where one document reaches another (1 to 8; 8: any number, 2^N
    /// probes a table for N weak bits).
    #[arg(long, value_name = "F", default_value_t = fpdb::Confirmation::recommended().weak_flips(), value_parser = clap::value_parser!(u32).range(1..=8), requires = "confirm")]
    pub confirm_weak_flips: u32,
    /// With --confirm: the fewest shingles two documents must be
    /// estimated to share (0 for no such gate), so that short texts
    /// sharing little besides a site template are not confirmed.
    #[arg(long, value_name = "N", default_value_t = fpdb::Confirmation::recommended().min_shared(), requires = "confirm")]
    pub confirm_min_shared: u16,
    /// With --confirm: numbers count among the signature's features of a
    /// text whose digits are at least PERCENT of its letters and digits
    /// (a price list, a table of figures; 0: never). Elsewhere they never
    /// do, so that changed dates and counters keep copies together.
    #[arg(long, value_name = "PERCENT", default_value_t = fpdb::Confirmation::recommended().numbers_from_permille() / 10, value_parser = clap::value_parser!(u16).range(0..=100), requires = "confirm")]
    pub confirm_numbers_from: u16,
}

/// How `dedup` matches texts: in two stages unless told otherwise.
#[derive(Debug, Args)]
pub struct DedupRuleArgs {
    /// Match texts by distance alone, within --k, instead of in two stages
    /// (candidates within --confirm-radius bits, kept when their 32-byte
    /// signatures estimate a resemblance of at least --confirm-threshold;
    /// the default).
    #[arg(long)]
    pub no_confirm: bool,
    /// Two stages, the default (kept for scripts that ask for it).
    #[arg(long, hide = true, conflicts_with = "no_confirm")]
    pub confirm: bool,
    /// The Hamming radius candidates come from (up to 16).
    #[arg(long, value_name = "BITS", default_value_t = fpdb::Confirmation::recommended().radius(), conflicts_with = "no_confirm")]
    pub confirm_radius: u32,
    /// The least estimated resemblance (0 to 1) that confirms a candidate.
    #[arg(long, value_name = "SHARE", default_value_t = fpdb::Confirmation::recommended().threshold(), conflicts_with = "no_confirm")]
    pub confirm_threshold: f64,
    /// Weak bits kept per quarter of each fingerprint (0 to 8): candidates
    /// within --confirm-radius that both texts' weak bits reach; 0 takes
    /// every fingerprint within the radius.
    #[arg(long, value_name = "N", default_value_t = fpdb::Confirmation::recommended().weak_bits(), conflicts_with = "no_confirm")]
    pub confirm_weak_bits: u32,
    /// At most this many of a quarter's weak bits flipped where one text
    /// reaches another (1 to 8; 8: any number).
    #[arg(long, value_name = "F", default_value_t = fpdb::Confirmation::recommended().weak_flips(), value_parser = clap::value_parser!(u32).range(1..=8), conflicts_with = "no_confirm")]
    pub confirm_weak_flips: u32,
    /// The fewest shingles two texts must be estimated to share (0 for no
    /// such gate).
    #[arg(long, value_name = "N", default_value_t = fpdb::Confirmation::recommended().min_shared(), conflicts_with = "no_confirm")]
    pub confirm_min_shared: u16,
    /// Numbers count among the signature's features of a text whose
    /// digits are at least PERCENT of its letters and digits (0: never).
    #[arg(long, value_name = "PERCENT", default_value_t = fpdb::Confirmation::recommended().numbers_from_permille() / 10, value_parser = clap::value_parser!(u16).range(0..=100), conflicts_with = "no_confirm")]
    pub confirm_numbers_from: u16,
}

impl DedupRuleArgs {
    /// The same choice in `create`'s terms.
    pub fn confirm_args(&self) -> ConfirmArgs {
        ConfirmArgs {
            confirm: !self.no_confirm,
            confirm_radius: self.confirm_radius,
            confirm_threshold: self.confirm_threshold,
            confirm_weak_bits: self.confirm_weak_bits,
            confirm_weak_flips: self.confirm_weak_flips,
            confirm_min_shared: self.confirm_min_shared,
            confirm_numbers_from: self.confirm_numbers_from,
        }
    }
}

/// The database of `add`, `query` and `check`: a directory, or the one a
/// running `fpdb serve` owns.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The database (not given with --server: every path is then an
    /// input).
    #[arg(value_name = "DB", required_unless_present = "server")]
    pub db: Option<PathBuf>,
    /// Work on the database a running `fpdb serve` owns, at this URL
    /// (http://HOST:PORT or https://HOST:PORT), instead of a directory:
    /// the same input, output and exit status. Documents are fingerprinted
    /// here with the server's options and sent in batches.
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The bearer token --server needs: the file's first line that is not
    /// blank or a # comment (a `read-write <token>` line of the server's
    /// token file works too).
    #[arg(long, value_name = "FILE", requires = "server")]
    pub token_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// fsync every batch (survives a power failure, not only a crash;
    /// `fpdb serve` syncs every write anyway).
    #[arg(long)]
    pub sync: bool,
    /// When to store what is read.
    #[arg(long, value_enum, default_value = "auto")]
    pub apply: Apply,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Largest distance of a match, up to 16 [default: the database's k].
    /// Past the database's k each table also probes its neighbouring
    /// prefixes: still exact, with more reads per query (and batches are
    /// then probed query by query).
    #[arg(long)]
    pub k: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: OutputFormat,
    /// Queries answered together. Batches of 1,000 or more are merged
    /// against each table in one sequential pass, which costs less per
    /// query the larger the batch; answers are written when a batch is
    /// done, so use 1 to answer a stream line by line.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Largest distance of a match, up to 16 [default: the database's k].
    /// Past the database's k each table also probes its neighbouring
    /// prefixes: still exact, with more reads per query (and batches are
    /// then probed query by query).
    #[arg(long)]
    pub k: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: OutputFormat,
    /// fsync every insert (each answered document then survives a power
    /// failure, not only a crash; `fpdb serve` syncs every write anyway).
    #[arg(long)]
    pub sync: bool,
    /// When to store and answer what is read.
    #[arg(long, value_enum, default_value = "auto")]
    pub apply: Apply,
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
    /// (`--input FILE` is an older spelling.)
    #[arg(long, value_name = "FILE", alias = "input")]
    pub id_file: Option<PathBuf>,
    /// fsync every removal.
    #[arg(long)]
    pub sync: bool,
}

/// How `export` and `hash` print documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocumentFormat {
    /// `<id>\t<16 hex digits>` per line (what `--input fps` reads).
    Tsv,
    /// JSON Lines `{"id": "...", "fp": "<16 hex digits>"}` (what `--input
    /// jsonl` reads).
    Json,
}

/// How a report (`stats`, `verify`, `repair`, `backup`, `load`) is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
}

/// `--format text|json`, with `--json` as the older spelling of
/// `--format json`.
#[derive(Debug, Args)]
pub struct ReportFormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// The same as --format json.
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
}

impl ReportFormatArgs {
    /// The format asked for, by either spelling.
    pub fn get(&self) -> ReportFormat {
        if self.json {
            ReportFormat::Json
        } else {
            self.format
        }
    }
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The database.
    pub db: PathBuf,
    #[command(flatten)]
    pub format: ReportFormatArgs,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The database.
    pub db: PathBuf,
    /// Where the copy goes: a path that does not exist yet.
    pub dest: PathBuf,
    /// Do not verify the copy.
    #[arg(long)]
    pub no_verify: bool,
    #[command(flatten)]
    pub format: ReportFormatArgs,
}

#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The database.
    pub db: PathBuf,
    #[command(flatten)]
    pub format: ReportFormatArgs,
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
    /// Output format.
    #[arg(long, value_enum, default_value = "tsv")]
    pub format: DocumentFormat,
    /// Input format [default, by the file's name: jsonl for *.jsonl, warc
    /// for *.warc, html for *.html and *.htm, each also with .gz after it;
    /// else lines, also for standard input]. Gzip is read in any format.
    #[arg(long, value_enum)]
    pub input: Option<InputFormat>,
    /// Report bad lines on standard error, skip them and go on.
    #[arg(long)]
    pub skip_bad: bool,
    /// Input files; standard input when none (or `-`).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
}

/// Which member names a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RepresentativeRule {
    /// The member that comes first in the input.
    First,
    /// The member with the smallest id (byte order).
    Smallest,
}

/// How near-duplicate pairs and clusters are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PairsFormat {
    /// One JSON object per pair or cluster.
    Json,
    /// A table with a header: a, b, distance; or cluster, representative,
    /// id with one row per member.
    Tsv,
}

#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Largest Hamming distance of a near-duplicate matched by distance
    /// alone (0 to 16): of documents given as fingerprints, or of every
    /// document with --no-confirm.
    #[arg(long, default_value_t = fpdb::DEFAULT_K)]
    pub k: u32,
    #[command(flatten)]
    pub rule: DedupRuleArgs,
    /// Print clusters (connected components of the pairs) instead of pairs.
    #[arg(long)]
    pub clusters: bool,
    /// Which member names a cluster.
    #[arg(long, value_enum, default_value = "first")]
    pub representative: RepresentativeRule,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: PairsFormat,
    #[command(flatten)]
    pub simhash: SimhashArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct PairsArgs {
    /// The database.
    pub db: PathBuf,
    /// Largest distance of a pair [default: the database's k].
    #[arg(long)]
    pub k: Option<u32>,
    /// Print clusters (connected components of the pairs) instead of pairs.
    #[arg(long)]
    pub clusters: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: PairsFormat,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The database.
    pub db: PathBuf,
    /// The HTML file to write (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// Largest distance of a pair [default: the database's k].
    #[arg(long)]
    pub k: Option<u32>,
    /// How many pairs to show side by side, taken in turn from each
    /// distance, the largest first.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub sample: usize,
    /// The documents the database was filled from, to show the sampled
    /// pairs' texts (texts, JSON Lines, HTML pages or WARC files; pages
    /// extracted as the database's --extract says). May be repeated.
    #[arg(long, value_name = "FILE")]
    pub texts: Vec<PathBuf>,
    /// Format of the --texts files [default: by extension, as for `hash`].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub texts_format: Option<InputFormat>,
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// How many texts (the first of the sample) get planted copies.
    #[arg(long, default_value_t = 1000)]
    pub originals: usize,
    /// The database size false matches per query are extrapolated to.
    #[arg(long, default_value_t = 10_000_000)]
    pub expected: u64,
    /// The least precision a recommended setting keeps (0 to 1).
    #[arg(long, value_name = "SHARE", default_value_t = 0.99)]
    pub min_precision: f64,
    /// The least estimated resemblance that confirms a candidate, for the
    /// confirmed settings [default: each check's own: 0.45 with weak bits,
    /// 0.5 for every candidate].
    #[arg(long, value_name = "SHARE")]
    pub confirm_threshold: Option<f64>,
    /// Write recall against false matches per query, one line per
    /// setting through its radii, to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub figure: Option<PathBuf>,
    /// The seed of the planted edits.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// jieba (Chinese and mixed text), words (Unicode words) or chars:N
    /// (N-character shingles) [default: jieba].
    #[arg(long)]
    pub tokenizer: Option<String>,
    /// Which text of an HTML page is compared: main or all.
    #[arg(long, default_value = "main")]
    pub extract: fpdb::Extract,
    #[command(flatten)]
    pub format: ReportFormatArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The corpus (JSON Lines with id and text) [default: data/corpus.jsonl].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Largest Hamming distance of a near-duplicate in the single comparison.
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
    /// Output format.
    #[arg(long, value_enum, default_value = "tsv")]
    pub format: DocumentFormat,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The database (empty; `fpdb create` makes one).
    pub db: PathBuf,
    /// Memory for sorting, in MiB; beyond it sorted runs spill to disk
    /// [default: a quarter of the machine's memory, 1,024 to 32,768].
    #[arg(long, value_name = "MIB")]
    pub memory_mib: Option<usize>,
    /// Directory for spilled runs [default: inside the database].
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,
    /// How the summary is printed: text on standard error, or one JSON
    /// object on standard output (the keys of Python's `bulk_load`).
    #[command(flatten)]
    pub format: ReportFormatArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The database.
    pub db: PathBuf,
    #[command(flatten)]
    pub format: ReportFormatArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database (`fpdb create` makes one).
    pub db: PathBuf,
    /// Address and port to listen on (port 0: any free port, printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7800")]
    pub listen: SocketAddr,
    /// Bearer tokens clients must send, one per line: `read-write <token>`
    /// or `read-only <token>` [default: no token needed].
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Open the database read-only and refuse writes (403): a reader
    /// beside a writer process, serving the database as it was when opened.
    #[arg(long)]
    pub read_only: bool,
    /// Serve HTTPS with this certificate chain (PEM; needs --tls-key).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Largest request body in bytes (413 beyond).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_body_bytes)]
    pub max_body_bytes: usize,
    /// Most documents, fingerprints or ids in one batch request (413 beyond).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_batch)]
    pub max_batch: usize,
    /// Longest a request may take, its body's upload included (503 beyond).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().request_timeout.as_secs_f64())]
    pub request_timeout: f64,
    /// After SIGTERM, how long requests in flight may take to finish.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub drain_timeout: f64,
    /// Make backups through the API (`POST /v1/backup`) in this directory
    /// [default: no backups through the API].
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,
}
