//! Lines read as they arrive, each read's whole lines parsed together on
//! every core.

use std::io::{BufRead, BufReader, Read};

use fpdb_html::Extract;

use super::error::{BadInput, ReadError};
use crate::{parse_line_with, LineFormat, Record, Role};
use fpdb_parallel::{cores, map};

/// What reading an input reports.
pub(crate) enum Event {
    Record(Result<Record, BadInput>),
    /// Nothing more is buffered: the next read may wait for the writer.
    Idle,
}

/// How the lines of one input are read.
pub(crate) struct LineContext<'a> {
    pub name: &'a str,
    pub format: LineFormat,
    pub role: Role,
    /// Several inputs: `lines` ids are FILE:LINE, not just LINE.
    pub numbered_by_file: bool,
    /// Report [`Event::Idle`] whenever the buffer runs dry.
    pub eager: bool,
    pub extract: Extract,
}

impl LineContext<'_> {
    /// What line `number`, `raw`, holds (nothing if it is blank).
    fn event(&self, raw: &[u8], number: u64) -> Option<Event> {
        let source = self.numbered_by_file.then_some(self.name);
        match parse_line_with(self.format, self.role, raw, number, source, self.extract) {
            Ok(None) => None,
            Ok(Some(record)) => Some(Event::Record(Ok(record))),
            Err(bad) => Some(Event::Record(Err(BadInput {
                location: format!("{}:{number}", self.name),
                what: bad.to_string(),
            }))),
        }
    }
}

/// Reads whole lines as they arrive: all the whole lines buffered at once
/// (one read), parsed on every core (parsing is most of a bulk load's
/// reading), then reported in order. A read waits only when nothing is
/// buffered, so a line is parsed and reported as soon as it has arrived;
/// eagerly, [`Event::Idle`] follows whenever nothing more is buffered.
pub(crate) fn read_lines<R: Read, E: From<ReadError>>(
    context: &LineContext<'_>,
    reader: &mut BufReader<R>,
    handle: &mut impl FnMut(Event) -> Result<(), E>,
) -> Result<(), E> {
    let threads = cores();
    let mut long_line = Vec::new();
    let mut number = 0u64;
    loop {
        let failed = |source| ReadError::Read {
            name: context.name.to_string(),
            line: number,
            source,
        };
        let buffered = reader.fill_buf().map_err(failed)?;
        if buffered.is_empty() {
            return Ok(());
        }
        let whole = memchr::memrchr(b'\n', buffered).map_or(0, |at| at + 1);
        let events = if whole > 0 {
            #[expect(
                clippy::indexing_slicing,
                reason = "whole is one past a newline found in buffered"
            )]
            let block = &buffered[..whole];
            let events = parse_block(context, block, &mut number, threads);
            reader.consume(whole);
            events
        } else {
            // A line longer than the buffer (or the last, without a line
            // end): read to its end.
            long_line.clear();
            reader.read_until(b'\n', &mut long_line).map_err(failed)?;
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
    let mut parts = Vec::with_capacity(threads);
    for part in whole_line_parts(block, threads) {
        parts.push((*number + 1, part));
        *number += lines(part).count() as u64;
    }
    map(&parts, |&(first, part)| {
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

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    /// What reading `text` through a buffer of `capacity` bytes reports,
    /// one line per event.
    fn read(text: &[u8], capacity: usize, eager: bool) -> Vec<String> {
        let context = context(eager);
        let mut reader = BufReader::with_capacity(capacity, text);
        let mut seen = Vec::new();
        read_lines(&context, &mut reader, &mut |event| {
            seen.push(describe(event));
            Ok::<(), ReadError>(())
        })
        .unwrap();
        seen
    }

    fn context(eager: bool) -> LineContext<'static> {
        LineContext {
            name: "in",
            format: LineFormat::Fps,
            role: Role::Store,
            numbered_by_file: false,
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
        let context = context(false);
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
        let context = context(true);
        let mut reader = BufReader::new(OneLineAtATime(
            [&b"a\t0000000000000001\n"[..], b"b\t0000000000000002\n"].into(),
        ));
        let mut seen = Vec::new();
        read_lines(&context, &mut reader, &mut |event| {
            seen.push(describe(event));
            Ok::<(), ReadError>(())
        })
        .unwrap();
        let idle = seen.iter().filter(|seen| *seen == "idle").count();
        assert_eq!((seen.len(), idle), (4, 2), "{seen:?}");
        assert_eq!(seen[1], "idle");
    }
}
