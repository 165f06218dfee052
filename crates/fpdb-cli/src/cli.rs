//! The command line, as clap types. Validation that clap cannot express
//! happens when the arguments are turned into library options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// fpdb: find near-duplicate documents with 64-bit simhash fingerprints.
#[derive(Debug, Parser)]
#[command(name = "fpdb", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the fingerprint of every input document as `<id>\t<hex>`.
    Hash(HashArgs),
    /// Fingerprint the bundled sample corpus and show its near-duplicates.
    Demo(DemoArgs),
}

/// How text is turned into fingerprints.
#[derive(Debug, Args, Clone)]
pub struct SimhashArgs {
    /// jieba (Chinese and mixed text), words (Unicode words) or chars:N
    /// (N-character shingles).
    #[arg(long, default_value = "jieba")]
    pub tokenizer: String,
    /// tf (term counts), tfidf (top keywords, count by length) or tfidf:N.
    #[arg(long, default_value = "tfidf:8")]
    pub weights: String,
}

/// How input documents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// JSON Lines: {"id": "...", "text": "..."} (the default for .jsonl files).
    Jsonl,
    /// One document per line; the id is the line number.
    Lines,
    /// One document per file; the id is the path.
    Files,
}

#[derive(Debug, Args)]
pub struct HashArgs {
    #[command(flatten)]
    pub simhash: SimhashArgs,
    /// Input format (default: jsonl for *.jsonl, else lines).
    #[arg(long, value_enum)]
    pub input: Option<InputFormat>,
    /// Input files; standard input when none.
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The corpus (JSON Lines with id and text).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Largest Hamming distance of a near-duplicate.
    #[arg(long, default_value_t = 3)]
    pub k: u32,
    /// How many pairs to show side by side.
    #[arg(long, default_value_t = 5)]
    pub show: usize,
}
