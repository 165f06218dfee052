//! Progress bars on standard error, drawn only when it is a terminal and
//! `--quiet` was not given. A bar counts what the library reports through
//! `fpdb::Progress` (blocks, ids) or what the command counts itself (bytes
//! read, documents written) against a total known beforehand; where no
//! total is known it is a spinner with the time so far.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::input::Inputs;

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--quiet`: no bar is drawn.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// A bar on standard error, or a hidden one.
#[derive(Debug, Clone)]
pub struct Bar(ProgressBar);

impl Bar {
    /// A spinner named `what`, drawn when bars are wanted. A command that
    /// prints results while it runs says `prints_while_running`, and gets
    /// no bar when standard output is the same terminal.
    pub fn new(what: &str, prints_while_running: bool) -> Bar {
        let wanted = !QUIET.load(Ordering::Relaxed)
            && std::io::stderr().is_terminal()
            && !(prints_while_running && std::io::stdout().is_terminal());
        if !wanted {
            return Bar(ProgressBar::hidden());
        }
        let bar = Bar(ProgressBar::new_spinner());
        bar.0.set_draw_target(ProgressDrawTarget::stderr());
        bar.count(what, None);
        bar.0.enable_steady_tick(Duration::from_millis(200));
        bar
    }

    /// A bar of bytes read: of `total` when it is known (with rate and
    /// time left), else a spinner with the bytes so far.
    pub fn bytes(what: &str, total: Option<u64>, prints_while_running: bool) -> Bar {
        let bar = Bar::new(what, prints_while_running);
        let (template, fallback) = match total {
            Some(total) => {
                bar.0.set_length(total);
                (
                    "{prefix:>9} [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} {msg}",
                    ProgressStyle::default_bar(),
                )
            }
            None => (
                "{prefix:>9} {spinner} {bytes} {binary_bytes_per_sec} {msg}",
                ProgressStyle::default_spinner(),
            ),
        };
        bar.style(template, fallback);
        bar
    }

    /// Counts `what` from 0: against `total` when known, else a spinner
    /// with the count and the time so far.
    pub fn count(&self, what: &str, total: Option<u64>) {
        self.0.set_prefix(what.to_string());
        self.0.set_position(0);
        match total {
            Some(total) => {
                self.0.set_length(total);
                self.style(
                    "{prefix:>9} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta} {msg}",
                    ProgressStyle::default_bar(),
                );
            }
            None => {
                self.0.unset_length();
                self.style(
                    "{prefix:>9} {spinner} {elapsed} {msg}",
                    ProgressStyle::default_spinner(),
                );
            }
        }
    }

    fn style(&self, template: &str, fallback: ProgressStyle) {
        let style = ProgressStyle::with_template(template)
            .unwrap_or(fallback)
            .progress_chars("=> ");
        self.0.set_style(style);
    }

    /// The bar itself, to set its position or message.
    pub fn bar(&self) -> &ProgressBar {
        &self.0
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl fpdb::Progress for Bar {
    fn phase(&self, name: &str, total: Option<u64>) {
        self.count(name, total);
    }

    fn advance(&self, steps: u64) {
        self.0.inc(steps);
    }
}

/// A bar of the bytes of a command's inputs read so far (of their total
/// when all are files), with the documents handled.
#[derive(Debug)]
pub struct Reading {
    bar: Bar,
    bytes_read: Arc<AtomicU64>,
    documents: u64,
}

impl Reading {
    /// `what` the command does with what it reads (`reading`, `adding`).
    pub fn new(what: &str, inputs: &Inputs, prints_while_running: bool) -> Reading {
        Reading {
            bar: Bar::bytes(what, inputs.total_bytes(), prints_while_running),
            bytes_read: inputs.bytes_read(),
            documents: 0,
        }
    }

    /// `documents` more were handled.
    pub fn handled(&mut self, documents: usize) {
        self.documents += documents as u64;
        let bar = self.bar.bar();
        bar.set_position(self.bytes_read.load(Ordering::Relaxed));
        bar.set_message(format!("{} documents", self.documents));
    }

    /// The bar, for the phases after reading.
    pub fn bar(&self) -> &Bar {
        &self.bar
    }

    pub fn finish(&self) {
        self.bar.finish();
    }
}
