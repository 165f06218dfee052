//! Decoding blocks: the hot path of every query.
//!
//! Each key costs one 16-byte window load at the current bit position (off
//! the dependency chain), one table lookup that gives both `h` and the step
//! to the next key, and a few shifts to splice the residual under the
//! predecessor's top `h` bits. The header is validated first, so the loop
//! runs at most `count` times and writes into a vector no larger than the
//! block could describe; a key past the payload or a key that does not
//! ascend stops decoding with [`CodecError::Corrupt`]. The hot loop
//! (`fast_keys`) makes no calls and builds no errors: long code words and
//! the last keys of a payload (whose window would run past its end) leave it
//! for one general step each.
//!
//! Decoding can also start in the middle of a block, from a key and the bit
//! where its successor starts (the in-memory sync points of
//! [`EncodedTable`](crate::EncodedTable)), and pass keys to any
//! key sink instead of a vector. Scans decode two blocks in one loop
//! ([`BlockDecoder::decode_two`]): the fast loop's step is shared, and the
//! two blocks' chains overlap.

use super::header::BlockHeader;
use super::sync::SyncPoints;
use crate::bits::{bytes_at, read_bits};
use crate::error::CodecError;
use crate::huffman::HuffmanCode;
use crate::huffman::{entry_advance, entry_from, entry_h};
use crate::LUT_BITS;

const WHAT: &str = "block";

/// Whether decoding verifies the block checksum first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChecksumPolicy {
    /// Hash the payload and compare (for bytes read from storage).
    #[default]
    Verify,
    /// Trust the bytes (for blocks this process built and kept in memory,
    /// or storage that checksums on its own). Decoding stays panic-free and
    /// bounded; only silent corruption may go unnoticed.
    Skip,
}

/// Decodes blocks encoded with one table's code.
#[derive(Debug, Clone, Copy)]
pub struct BlockDecoder<'c> {
    code: &'c HuffmanCode,
    checksums: ChecksumPolicy,
}

impl<'c> BlockDecoder<'c> {
    /// A decoder for blocks encoded with `code`.
    pub fn new(code: &'c HuffmanCode, checksums: ChecksumPolicy) -> Self {
        BlockDecoder { code, checksums }
    }

    /// Replaces the contents of `out` with all keys of the block.
    pub fn decode(&self, block: &[u8], out: &mut Vec<u64>) -> Result<(), CodecError> {
        self.decode_block::<false>(block, u64::MAX, out)
    }

    /// Replaces the contents of `out` with the block's keys up to and
    /// including `upper`, stopping at the first key above it (the rest of
    /// the payload is not decoded).
    pub fn decode_until(
        &self,
        block: &[u8],
        upper: u64,
        out: &mut Vec<u64>,
    ) -> Result<(), CodecError> {
        self.decode_block::<true>(block, upper, out)
    }

    /// Passes every key of `block` in `[lo, hi]` to `visit`, ascending.
    /// Decoding starts at the last of `sync`'s points below `lo` (they must
    /// be this block's, from [`SyncPoints::for_block_keys`]) and stops at
    /// the first key above `hi`. Returns whether such a key was found: the
    /// blocks after this one then hold no key in range either.
    ///
    /// Only a decode that reaches the block's end checks where the keys
    /// end; a probe that stops early reads only the lines it needs.
    pub fn for_each_in_range(
        &self,
        block: &[u8],
        sync: &SyncPoints,
        lo: u64,
        hi: u64,
        visit: &mut impl FnMut(u64),
    ) -> Result<bool, CodecError> {
        let (header, payload) = BlockHeader::parse(block)?;
        if self.checksums == ChecksumPolicy::Verify {
            header.verify(payload)?;
        }
        for_each_in_payload_range(
            self.code,
            payload,
            header.payload_bits(payload.len()),
            usize::from(header.count),
            sync.start_for(lo),
            lo,
            hi,
            visit,
        )
    }

    /// Replaces the contents of `outs[0]` and `outs[1]` with all keys of
    /// `blocks[0]` and `blocks[1]`, as two calls of
    /// [`BlockDecoder::decode`] would, and returns their results.
    ///
    /// The two blocks are decoded in one interleaved loop: each block's
    /// keys form one chain of dependent steps, and two chains keep the
    /// core busy where one leaves it waiting. For scans of whole tables.
    pub fn decode_two(
        &self,
        blocks: [&[u8]; 2],
        outs: [&mut Vec<u64>; 2],
    ) -> [Result<(), CodecError>; 2] {
        let [first, second] = blocks;
        let [first_out, second_out] = outs;
        match (self.payload(first), self.payload(second)) {
            (Ok(a), Ok(b)) => decode_two_payloads(self.code, [a, b], [first_out, second_out]),
            _ => [
                self.decode(first, first_out),
                self.decode(second, second_out),
            ],
        }
    }

    /// A block's validated payload (checksum verified if asked).
    fn payload<'b>(&self, block: &'b [u8]) -> Result<Payload<'b>, CodecError> {
        let (header, bytes) = BlockHeader::parse(block)?;
        if self.checksums == ChecksumPolicy::Verify {
            header.verify(bytes)?;
        }
        Ok(Payload {
            bytes,
            bits: header.payload_bits(bytes.len()),
            count: usize::from(header.count),
        })
    }

    /// [`BlockDecoder::decode_until`], with the bound check compiled out
    /// when `BOUNDED` is false (full decodes).
    fn decode_block<const BOUNDED: bool>(
        &self,
        block: &[u8],
        upper: u64,
        out: &mut Vec<u64>,
    ) -> Result<(), CodecError> {
        out.clear();
        let (header, payload) = BlockHeader::parse(block)?;
        if self.checksums == ChecksumPolicy::Verify {
            header.verify(payload)?;
        }
        let result = decode_payload::<BOUNDED>(
            self.code,
            payload,
            header.payload_bits(payload.len()),
            usize::from(header.count),
            upper,
            out,
        );
        if result.is_err() {
            out.clear();
        }
        result
    }
}

/// The first key of a block, read without decoding the rest.
pub fn block_first_key(block: &[u8]) -> Result<u64, CodecError> {
    let (_, payload) = BlockHeader::parse(block)?;
    Ok(read_bits(payload, 0, 64))
}

/// Decodes a validated payload: `count ≥ 1` keys in exactly
/// `payload_bits ≥ 64` bits, with `count - 1 ≤ payload_bits - 64`.
fn decode_payload<const BOUNDED: bool>(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    count: usize,
    upper: u64,
    out: &mut Vec<u64>,
) -> Result<(), CodecError> {
    let first = read_bits(payload, 0, 64);
    if first > upper {
        return Ok(());
    }
    // Keys go straight into slots (no per-key length or capacity update);
    // the vector is cut back to the keys decoded. `count` is bounded by the
    // payload length (header check), so this is bounded by the input.
    out.resize(count, 0);
    let (result, unused) = match out.split_first_mut() {
        Some((head, slots)) => {
            *head = first;
            let mut sink = SliceSink {
                slots: slots.iter_mut(),
            };
            let result =
                decode_run::<BOUNDED>(code, payload, payload_bits, 64, first, upper, &mut sink);
            (result, sink.slots.len())
        }
        None => (Ok(RunEnd::Stopped), 0),
    };
    out.truncate(count - unused);
    if let RunEnd::Exhausted { position } = result? {
        check_block_end(payload, payload_bits, position)?;
    }
    Ok(())
}

/// A payload whose header was validated: `count ≥ 1` keys in exactly
/// `bits ≥ 64` bits, with `count - 1 ≤ bits - 64`.
#[derive(Debug, Clone, Copy)]
struct Payload<'b> {
    bytes: &'b [u8],
    bits: usize,
    count: usize,
}

/// [`BlockDecoder::decode_two`] on validated payloads: both runs step in
/// one loop while both are in their fast loop, then each finishes alone.
fn decode_two_payloads(
    code: &HuffmanCode,
    payloads: [Payload<'_>; 2],
    outs: [&mut Vec<u64>; 2],
) -> [Result<(), CodecError>; 2] {
    let [a, b] = payloads;
    let [out_a, out_b] = outs;
    out_a.clear();
    out_b.clear();
    out_a.resize(a.count, 0);
    out_b.resize(b.count, 0);
    let (Some((head_a, slots_a)), Some((head_b, slots_b))) =
        (out_a.split_first_mut(), out_b.split_first_mut())
    else {
        // Unreachable (validated counts are ≥ 1); decode the usual way.
        return [
            decode_payload::<false>(code, a.bytes, a.bits, a.count, u64::MAX, out_a),
            decode_payload::<false>(code, b.bytes, b.bits, b.count, u64::MAX, out_b),
        ];
    };
    *head_a = read_bits(a.bytes, 0, 64);
    *head_b = read_bits(b.bytes, 0, 64);
    let mut cursor_a = Cursor {
        position: 64,
        previous: *head_a,
    };
    let mut cursor_b = Cursor {
        position: 64,
        previous: *head_b,
    };
    let mut sink_a = SliceSink {
        slots: slots_a.iter_mut(),
    };
    let mut sink_b = SliceSink {
        slots: slots_b.iter_mut(),
    };
    let lookup = code.lookup_table();
    let (exit_a, exit_b) = match (
        FastStream::start(a.bytes, cursor_a),
        FastStream::start(b.bytes, cursor_b),
    ) {
        (Some(mut stream_a), Some(mut stream_b)) => {
            let exits = loop {
                if sink_a.remaining() == 0 {
                    break (Some(FastExit::Exhausted), None);
                }
                if let Some(exit) = stream_a.step::<false>(lookup, u64::MAX, &mut sink_a) {
                    break (Some(exit), None);
                }
                if sink_b.remaining() == 0 {
                    break (None, Some(FastExit::Exhausted));
                }
                if let Some(exit) = stream_b.step::<false>(lookup, u64::MAX, &mut sink_b) {
                    break (None, Some(exit));
                }
            };
            cursor_a = stream_a.cursor();
            cursor_b = stream_b.cursor();
            exits
        }
        _ => (None, None),
    };
    let run_a = resume_run(code, a, cursor_a, exit_a, &mut sink_a);
    let run_b = resume_run(code, b, cursor_b, exit_b, &mut sink_b);
    let (unused_a, unused_b) = (sink_a.slots.len(), sink_b.slots.len());
    [
        settle_decode(a, run_a, unused_a, out_a),
        settle_decode(b, run_b, unused_b, out_b),
    ]
}

/// Finishes a full decode that left the fast loop with `exit`, or that
/// has not entered it yet (`None`).
fn resume_run(
    code: &HuffmanCode,
    payload: Payload<'_>,
    mut cursor: Cursor,
    exit: Option<FastExit>,
    sink: &mut SliceSink<'_>,
) -> Result<RunEnd, CodecError> {
    let exit = match exit {
        Some(exit) => exit,
        None => fast_keys::<false>(
            code.lookup_table(),
            payload.bytes,
            u64::MAX,
            &mut cursor,
            sink,
        ),
    };
    finish_run::<false>(
        code,
        payload.bytes,
        payload.bits,
        u64::MAX,
        cursor,
        exit,
        sink,
    )
}

/// Cuts `out` back to the keys a run decoded (`unused` slots were not
/// reached), checks where an exhausted run ended, and empties `out` on
/// any error.
fn settle_decode(
    payload: Payload<'_>,
    run: Result<RunEnd, CodecError>,
    unused: usize,
    out: &mut Vec<u64>,
) -> Result<(), CodecError> {
    out.truncate(payload.count - unused);
    let result = match run {
        Ok(RunEnd::Exhausted { position }) => {
            check_block_end(payload.bytes, payload.bits, position)
        }
        Ok(RunEnd::Stopped) => Ok(()),
        Err(error) => Err(error),
    };
    if result.is_err() {
        out.clear();
    }
    result
}

/// The range walk of [`BlockDecoder::for_each_in_range`] over a payload
/// whose header was validated: `start` is a sync point's `(key, bit,
/// keys behind)`, or `None` for the first key.
#[expect(
    clippy::too_many_arguments,
    reason = "the range walk takes its state as plain values from the decoder's two range entry points"
)]
#[inline]
pub(crate) fn for_each_in_payload_range(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    count: usize,
    start: Option<(u64, usize, usize)>,
    lo: u64,
    hi: u64,
    visit: &mut impl FnMut(u64),
) -> Result<bool, CodecError> {
    let (previous, position, behind) = match start {
        Some(start) => start,
        None => {
            let first = read_bits(payload, 0, 64);
            if first > hi {
                return Ok(true);
            }
            if first >= lo {
                visit(first);
            }
            (first, 64, 1)
        }
    };
    let mut sink = RangeSink {
        remaining: count.saturating_sub(behind),
        lo,
        visit,
    };
    match decode_run::<true>(
        code,
        payload,
        payload_bits,
        position,
        previous,
        hi,
        &mut sink,
    )? {
        RunEnd::Stopped => Ok(true),
        RunEnd::Exhausted { position } => {
            check_block_end(payload, payload_bits, position)?;
            Ok(false)
        }
    }
}

/// Passes keys `≥ lo` on to `visit`, counting down the block's keys.
struct RangeSink<'v, F> {
    remaining: usize,
    lo: u64,
    visit: &'v mut F,
}

impl<F: FnMut(u64)> KeySink for RangeSink<'_, F> {
    #[inline(always)]
    fn remaining(&self) -> usize {
        self.remaining
    }

    #[inline(always)]
    fn put(&mut self, key: u64) {
        self.remaining = self.remaining.wrapping_sub(1);
        if key >= self.lo {
            (self.visit)(key);
        }
    }
}

/// How [`decode_run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// Every requested key was decoded; the next one would start at bit
    /// `position`.
    Exhausted {
        /// Bit position after the last decoded key.
        position: usize,
    },
    /// A key above the bound was found (and not passed on).
    Stopped,
}

/// After decoding every key of a block: the keys must end exactly at the
/// payload's bit length, and the padding bits after them must be zero.
/// (Checked here rather than in the header: an early-stopping query should
/// not touch the block's last cache line.)
pub(crate) fn check_block_end(
    payload: &[u8],
    payload_bits: usize,
    position: usize,
) -> Result<(), CodecError> {
    if position != payload_bits {
        return Err(CodecError::corrupt(
            WHAT,
            format!("keys end at bit {position} of a {payload_bits}-bit payload"),
        ));
    }
    // The padding bits are the low bits of the last byte: 0..=7 of them
    // for a payload whose bit length came from its header.
    let padding = (payload.len() * 8)
        .checked_sub(payload_bits)
        .and_then(|padding| u32::try_from(padding).ok())
        .filter(|&padding| padding < 8);
    let (Some(&last), Some(padding)) = (payload.last(), padding) else {
        return Err(CodecError::corrupt(
            WHAT,
            format!(
                "a {payload_bits}-bit payload cannot end in {} bytes",
                payload.len()
            ),
        ));
    };
    if u32::from(last) & ((1u32 << padding) - 1) != 0 {
        return Err(CodecError::corrupt(WHAT, "padding bits are not zero"));
    }
    Ok(())
}

/// Where decoded keys go, and how many more the run should decode.
pub(crate) trait KeySink {
    /// Keys still to decode.
    fn remaining(&self) -> usize;
    /// Takes the next key; called only while `remaining() > 0`, and
    /// lowers it by one.
    fn put(&mut self, key: u64);
}

/// Writes keys into consecutive slots; decodes as many keys as there are
/// slots.
struct SliceSink<'a> {
    slots: std::slice::IterMut<'a, u64>,
}

impl KeySink for SliceSink<'_> {
    #[inline(always)]
    fn remaining(&self) -> usize {
        self.slots.len()
    }

    #[inline(always)]
    fn put(&mut self, key: u64) {
        if let Some(slot) = self.slots.next() {
            *slot = key;
        }
    }
}

/// Decodes `sink.remaining()` keys following `previous`, the first of them
/// starting at bit `position` of a payload of `payload_bits` bits, and
/// passes each key `≤ upper` to `sink`; stops at the first key above
/// `upper` (without passing it on).
///
/// Most keys go through [`fast_keys`]; the rare code word longer than the
/// lookup table and the last keys of the payload (whose 16-byte window
/// would run past its end) take one general step each.
#[inline(always)]
pub(crate) fn decode_run<const BOUNDED: bool>(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    position: usize,
    previous: u64,
    upper: u64,
    sink: &mut impl KeySink,
) -> Result<RunEnd, CodecError> {
    let mut cursor = Cursor { position, previous };
    let exit = fast_keys::<BOUNDED>(code.lookup_table(), payload, upper, &mut cursor, sink);
    finish_run::<BOUNDED>(code, payload, payload_bits, upper, cursor, exit, sink)
}

/// Goes on from a fast loop's `exit` at `cursor` until the run ends.
#[inline(always)]
fn finish_run<const BOUNDED: bool>(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    upper: u64,
    mut cursor: Cursor,
    mut exit: FastExit,
    sink: &mut impl KeySink,
) -> Result<RunEnd, CodecError> {
    loop {
        match exit {
            FastExit::Exhausted => {
                return Ok(RunEnd::Exhausted {
                    position: cursor.position,
                })
            }
            FastExit::Stopped => return Ok(RunEnd::Stopped),
            FastExit::BitSet => return Err(bit_h_set(cursor.position)),
            FastExit::General => {
                if sink.remaining() == 0 {
                    // The last key was decoded by the fast loop.
                    if cursor.position > payload_bits {
                        return Err(past_end(cursor.position, payload_bits));
                    }
                    return Ok(RunEnd::Exhausted {
                        position: cursor.position,
                    });
                }
                match general_key(code, payload, payload_bits, upper, &mut cursor)? {
                    Some(key) => sink.put(key),
                    None => return Ok(RunEnd::Stopped),
                }
            }
        }
        exit = fast_keys::<BOUNDED>(code.lookup_table(), payload, upper, &mut cursor, sink);
    }
}

/// Where decoding stands: the next key starts at bit `position` and
/// follows `previous`.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    position: usize,
    previous: u64,
}

/// Why [`fast_keys`] returned.
#[derive(Debug, Clone, Copy)]
enum FastExit {
    /// No keys left.
    Exhausted,
    /// A key above the bound.
    Stopped,
    /// The predecessor of the key that would end at `cursor.position` has
    /// bit `h` set.
    BitSet,
    /// The next key needs [`general_key`]: its code word is long, or its
    /// 16-byte window runs past the payload (the key before it was passed
    /// on and the cursor moved past it, but whether it ends inside the
    /// payload is still to be checked).
    General,
}

/// The hot loop: no calls, no error construction, one bounds check per key.
///
/// The loop is bound by one dependency chain: a key's start depends on the
/// previous key's code word. To keep memory loads off that chain, the next
/// code word is peeked out of the 16 bytes already loaded for the current
/// key (a key spans at most 24 + 63 bits, so the next key's first
/// [`LUT_BITS`](crate::LUT_BITS) bits lie within them) while the load for
/// the next key proceeds in parallel. One lookup gives `h` and the step to
/// the next key; the residual and the key are computed off the chain.
#[inline(always)]
fn fast_keys<const BOUNDED: bool>(
    lookup: &[u32; 1 << LUT_BITS],
    payload: &[u8],
    upper: u64,
    cursor: &mut Cursor,
    sink: &mut impl KeySink,
) -> FastExit {
    let Some(mut stream) = FastStream::start(payload, *cursor) else {
        return FastExit::General;
    };
    let exit = loop {
        if sink.remaining() == 0 {
            break FastExit::Exhausted;
        }
        if let Some(exit) = stream.step::<BOUNDED>(lookup, upper, sink) {
            break exit;
        }
    };
    *cursor = stream.cursor();
    exit
}

/// One payload's state inside the fast loop.
struct FastStream<'p> {
    payload: &'p [u8],
    /// The last byte a full 16-byte window can start at.
    last_window: usize,
    /// 16 bytes from the current key's byte; the key starts at bit
    /// `position & 7` of them.
    loaded: u128,
    /// The current key's first [`LUT_BITS`](crate::LUT_BITS) bits.
    peek: usize,
    position: usize,
    previous: u64,
}

impl<'p> FastStream<'p> {
    /// The stream at `cursor`, if a full window can be loaded there.
    #[inline(always)]
    fn start(payload: &'p [u8], cursor: Cursor) -> Option<Self> {
        let loaded = window16(payload, cursor.position >> 3)?;
        Some(FastStream {
            payload,
            // The window above exists, so the payload has ≥ 16 bytes.
            last_window: payload.len().wrapping_sub(16),
            loaded,
            peek: ((loaded << (cursor.position & 7)) >> (128 - LUT_BITS)) as usize,
            position: cursor.position,
            previous: cursor.previous,
        })
    }

    fn cursor(&self) -> Cursor {
        Cursor {
            position: self.position,
            previous: self.previous,
        }
    }

    /// Decodes one key into `sink` (which must want one more), or says
    /// why the fast loop must stop.
    #[inline(always)]
    fn step<const BOUNDED: bool>(
        &mut self,
        lookup: &[u32; 1 << LUT_BITS],
        upper: u64,
        sink: &mut impl KeySink,
    ) -> Option<FastExit> {
        let loaded = self.loaded;
        let high = (loaded >> 64) as u64;
        #[expect(
            clippy::cast_possible_truncation,
            reason = "the view is bits 42..106 of `loaded`: the bits above are dropped on purpose"
        )]
        let middle = (loaded >> 22) as u64;
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a bit offset within a byte is below 8"
        )]
        let offset = (self.position & 7) as u32;
        #[expect(
            clippy::indexing_slicing,
            reason = "masked to LUT_BITS bits, the lookup table's length (the check compiles away)"
        )]
        let entry = lookup[self.peek & LUT_MASK];
        if entry == 0 {
            return Some(FastExit::General);
        }
        // The next key starts `next ≤ 7 + 87` bits into `loaded`, leaving
        // ≥ 34 bits to peek at. Rather than a 128-bit shift, peek into one
        // of two 64-bit views chosen by `next` (the second view was made
        // off the chain): bits 0..64 serve `next < 53`, bits 42..106 the
        // rest.
        let next = offset + entry_advance(entry);
        let from_high = (high << (next & 63)) >> (64 - LUT_BITS);
        let from_middle = (middle << (next.wrapping_sub(42) & 63)) >> (64 - LUT_BITS);
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a peek is the top LUT_BITS bits of a 64-bit view"
        )]
        let peek = if next < 53 { from_high } else { from_middle } as usize;
        self.peek = peek;
        // The residual is the `63 - h` bits just before `next`: the bits
        // of `before_next` under bit h (the bits above are dropped on
        // purpose).
        #[expect(
            clippy::cast_possible_truncation,
            reason = "only the low 64 bits, which hold the residual, are wanted"
        )]
        let before_next = (loaded >> (128 - next)) as u64;
        #[expect(
            clippy::indexing_slicing,
            reason = "masked to 6 bits, BIT_H's length (the check compiles away)"
        )]
        let bit_h = BIT_H[entry_h(entry) as usize & 63];
        let below = bit_h.wrapping_sub(1);
        // `h` is where the key first differs from its predecessor, so the
        // predecessor's bit h must be 0 and the key's 1. A set bit means a
        // corrupt (or non-canonical) stream; checking it also guarantees
        // that keys ascend.
        let previous = self.previous;
        let key = ((previous | bit_h) & !below) | (before_next & below);
        self.position += entry_advance(entry) as usize;
        if previous & bit_h != 0 {
            return Some(FastExit::BitSet);
        }
        if BOUNDED && key > upper {
            return Some(FastExit::Stopped);
        }
        sink.put(key);
        self.previous = key;
        // A full window at the next key also proves that this key ended
        // inside the payload (16 bytes ≥ the 7 padding bits).
        let byte = self.position >> 3;
        if byte > self.last_window {
            return Some(FastExit::General);
        }
        match window16(self.payload, byte) {
            Some(window) => self.loaded = window,
            None => return Some(FastExit::General),
        }
        None
    }
}

/// The 16 bytes from `byte`, big-endian, if all lie inside `bytes`.
#[inline(always)]
fn window16(bytes: &[u8], byte: usize) -> Option<u128> {
    let chunk: &[u8; 16] = bytes.get(byte..byte.wrapping_add(16))?.try_into().ok()?;
    Some(u128::from_be_bytes(*chunk))
}

/// One key the general way (zero-padded window, long code words, payload
/// bound check): the key, or `None` if it is above `upper`.
#[cold]
#[inline(never)]
fn general_key(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    upper: u64,
    cursor: &mut Cursor,
) -> Result<Option<u64>, CodecError> {
    // The key before this one may have been passed on by the fast loop
    // without its end being checked against the payload.
    if cursor.position > payload_bits {
        return Err(past_end(cursor.position, payload_bits));
    }
    let window = bytes_at(payload, cursor.position >> 3) << (cursor.position & 7);
    #[expect(
        clippy::indexing_slicing,
        reason = "the top LUT_BITS bits of the window index the lookup table's 2^LUT_BITS entries"
    )]
    let mut entry = code.lookup_table()[(window >> (128 - LUT_BITS)) as usize];
    if entry == 0 {
        let Some((length, h)) = code.decode_long(window) else {
            return Err(CodecError::corrupt(WHAT, "no code word matches"));
        };
        entry = entry_from(length, h);
    }
    let residual_bits = 63 - entry_h(entry);
    // The residual ends `advance` bits into `window` (at most 87 bits).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "only the low 64 bits, which hold the residual, are wanted"
    )]
    let before_next = (window >> (128 - entry_advance(entry))) as u64;
    let residual = before_next & !(u64::MAX << residual_bits);
    let above = cursor.previous >> residual_bits;
    let key = ((above | 1) << residual_bits) | residual;
    let position = cursor.position + entry_advance(entry) as usize;
    if position > payload_bits {
        return Err(past_end(position, payload_bits));
    }
    if above & 1 != 0 {
        return Err(bit_h_set(position));
    }
    if key > upper {
        return Ok(None);
    }
    cursor.position = position;
    cursor.previous = key;
    Ok(Some(key))
}

const LUT_MASK: usize = (1 << LUT_BITS) - 1;

/// `BIT_H[h]` is bit `h` counted from the most significant (a load is
/// cheaper in the hot loop than materialising and shifting the constant).
#[expect(
    clippy::indexing_slicing,
    reason = "const evaluation; `h < 64` is the loop bound"
)]
const BIT_H: [u64; 64] = {
    let mut table = [0u64; 64];
    let mut h = 0;
    while h < 64 {
        table[h] = (1u64 << 63) >> h;
        h += 1;
    }
    table
};

#[cold]
fn past_end(position: usize, payload_bits: usize) -> CodecError {
    CodecError::corrupt(
        WHAT,
        format!("a key ends at bit {position}, past the {payload_bits}-bit payload"),
    )
}

#[cold]
fn bit_h_set(position: usize) -> CodecError {
    CodecError::corrupt(
        WHAT,
        format!("the key ending at bit {position}: its predecessor already has bit h set"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_end_checks_padding_bits_and_rejects_impossible_lengths() {
        assert_eq!(check_block_end(&[0xf0], 4, 4), Ok(()));
        assert!(check_block_end(&[0xf1], 4, 4).is_err());
        assert!(check_block_end(&[0xf0], 4, 5).is_err());
        // More than 7 padding bits, more bits than bytes, or no bytes at
        // all cannot come from a validated header: errors, not panics.
        for (payload, bits) in [(&[0u8, 0][..], 0), (&[0u8][..], 9), (&[][..], 0)] {
            assert!(check_block_end(payload, bits, bits).is_err());
        }
    }
}
