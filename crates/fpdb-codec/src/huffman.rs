//! The per-table Huffman code for `h`, the position of the first bit in
//! which a key differs from its predecessor.
//!
//! The `huffman-compress` crate computes optimal code *lengths* from the
//! histogram of `h` over a whole table (the cold path). Codes are then
//! assigned canonically (shorter codes first, ties by symbol), so the code
//! book is just 64 lengths, and decoding uses a table lookup on the next
//! [`LUT_BITS`] bits instead of walking a tree bit by bit.
//!
//! Every symbol `0..=63` gets a code (each count is incremented by one) so
//! keys inserted later can always be encoded with the table's code. Lengths
//! are capped at [`MAX_CODE_LEN`] by repeatedly halving the counts, which
//! flattens the distribution until the longest code fits.

use huffman_compress::CodeBuilder;

use crate::error::CodecError;
use crate::format::{decode_frame, encode_frame, legacy, Kind, FRAME_OVERHEAD};

/// Number of symbols: `h` ranges over bit positions `0..=63`.
pub const SYMBOLS: usize = 64;

/// Longest code word. A code word plus a 63-bit residual must fit the
/// decoder's 120 usable window bits.
pub const MAX_CODE_LEN: u32 = 24;

/// Bits looked up at once by the fast decoder; codes up to this long take
/// one lookup (for random keys that is every code), longer ones a short
/// canonical search.
pub const LUT_BITS: u32 = 11;

/// Version of the code book byte format (1: unframed, database format 1).
pub const CODE_BOOK_VERSION: u8 = 2;

/// Serialized size: the 64 lengths in a frame.
pub const CODE_BOOK_BYTES: usize = SYMBOLS + FRAME_OVERHEAD;

const WHAT: &str = Kind::CodeBook.name();

/// A canonical, complete prefix code for `h ∈ 0..=63`.
#[derive(Clone, PartialEq, Eq)]
pub struct HuffmanCode {
    lengths: [u8; SYMBOLS],
    codes: [u32; SYMBOLS],
    /// Indexed by the next `LUT_BITS` bits: an entry packed as
    /// `advance | h << 8 | length << 16`, or 0 when the code word is longer
    /// than `LUT_BITS`.
    lookup: Box<[u32; 1 << LUT_BITS]>,
    /// Canonical decoding of long codes, indexed by length: the first code
    /// of that length, how many codes have it, and where their symbols
    /// start in `symbols_by_code`.
    first_code: [u32; MAX_CODE_LEN as usize + 1],
    code_count: [u32; MAX_CODE_LEN as usize + 1],
    first_index: [u32; MAX_CODE_LEN as usize + 1],
    symbols_by_code: [u8; SYMBOLS],
}

impl std::fmt::Debug for HuffmanCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HuffmanCode")
            .field("lengths", &self.lengths)
            .finish_non_exhaustive()
    }
}

/// Packs a lookup entry: code length, `h`, and the bits the key occupies
/// (`length + 63 - h`, the decoder's step to the next key).
/// The advance sits in the low byte so the decoder's dependency chain
/// needs no shift to reach it.
const fn pack_entry(length: u32, h: u32) -> u32 {
    (length + 63 - h) | (h << 8) | (length << 16)
}

/// Code length of a packed lookup entry.
#[inline(always)]
#[cfg(test)]
pub(crate) const fn entry_length(entry: u32) -> u32 {
    entry >> 16
}

/// `h` of a packed lookup entry.
#[inline(always)]
pub(crate) const fn entry_h(entry: u32) -> u32 {
    (entry >> 8) & 0xff
}

/// Bits from this key's start to the next key's of a packed lookup entry.
#[inline(always)]
pub(crate) const fn entry_advance(entry: u32) -> u32 {
    entry & 0xff
}

/// Packs `(length, h)` from the slow path like a lookup entry.
#[inline]
pub(crate) const fn entry_from(length: u32, h: u32) -> u32 {
    pack_entry(length, h)
}

/// Histogram of `h` over consecutive pairs of strictly ascending keys.
/// Pairs that are not ascending are skipped (they cannot be encoded anyway).
pub fn h_histogram(sorted_keys: &[u64]) -> [u64; SYMBOLS] {
    let mut histogram = [0u64; SYMBOLS];
    for pair in sorted_keys.windows(2) {
        if let [previous, key] = pair {
            if key > previous {
                let h = (previous ^ key).leading_zeros() as usize;
                if let Some(count) = histogram.get_mut(h) {
                    *count += 1;
                }
            }
        }
    }
    histogram
}

/// Optimal code lengths from `huffman-compress` for positive weights.
fn library_lengths(weights: &[u64; SYMBOLS]) -> [u8; SYMBOLS] {
    let builder: CodeBuilder<u8, u64> = (0u8..).zip(weights.iter().copied()).collect();
    let (book, _tree) = builder.finish();
    let mut lengths = [0u8; SYMBOLS];
    for (symbol, code) in book.iter() {
        if let Some(slot) = lengths.get_mut(usize::from(*symbol)) {
            // Saturating is right: any length above MAX_CODE_LEN (far below
            // 255) makes the caller flatten the histogram and try again.
            *slot = u8::try_from(code.len()).unwrap_or(u8::MAX);
        }
    }
    lengths
}

impl HuffmanCode {
    /// The Huffman code for a histogram of `h`: weights are `count + 1`
    /// (every symbol gets a code). If the longest code would exceed
    /// [`MAX_CODE_LEN`], the histogram is flattened to `(count >> s) + 1`
    /// with the smallest shift `s` that fits, found by binary search (at
    /// most 7 more code builds; shift 64 makes all weights 1, 6-bit codes).
    pub fn from_histogram(histogram: &[u64; SYMBOLS]) -> HuffmanCode {
        let attempt = |shift: u32| {
            // A shift of 64 shifts every bit out: count 0, weight 1.
            let weights =
                histogram.map(|count| count.checked_shr(shift).unwrap_or(0).saturating_add(1));
            let lengths = library_lengths(&weights);
            if lengths
                .iter()
                .all(|&length| u32::from(length) <= MAX_CODE_LEN)
            {
                HuffmanCode::from_lengths(&lengths).ok()
            } else {
                None
            }
        };
        if let Some(code) = attempt(0) {
            return code;
        }
        // Invariant: `low` fails, `high` passes.
        let (mut low, mut high) = (0u32, 64u32);
        let mut best = None;
        while high - low > 1 {
            let middle = (low + high) / 2;
            match attempt(middle) {
                Some(code) => {
                    high = middle;
                    best = Some(code);
                }
                None => low = middle,
            }
        }
        // Shift 64 gives 64 equal weights, a complete 6-bit code, so the
        // uniform code (also valid for every key, just less compact) is
        // only a formality.
        best.or_else(|| attempt(64))
            .unwrap_or_else(HuffmanCode::uniform)
    }

    /// The code for a table of strictly ascending keys.
    pub fn for_sorted_keys(sorted_keys: &[u64]) -> HuffmanCode {
        Self::from_histogram(&h_histogram(sorted_keys))
    }

    /// A code where every `h` costs 6 bits (no statistics needed).
    pub fn uniform() -> HuffmanCode {
        match Self::from_lengths(&[6; SYMBOLS]) {
            Ok(code) => code,
            Err(_) => unreachable!("64 codes of 6 bits form a complete code"),
        }
    }

    /// Builds the canonical code for these lengths. The lengths must be in
    /// `1..=MAX_CODE_LEN` and form a complete code (Kraft sum exactly 1),
    /// so that every bit string decodes.
    pub fn from_lengths(lengths: &[u8; SYMBOLS]) -> Result<HuffmanCode, CodecError> {
        let mut kraft: u64 = 0;
        let mut code_count = [0u32; MAX_CODE_LEN as usize + 1];
        for (symbol, &length) in lengths.iter().enumerate() {
            if length == 0 || u32::from(length) > MAX_CODE_LEN {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("symbol {symbol} has code length {length}"),
                ));
            }
            kraft += 1u64 << (MAX_CODE_LEN - u32::from(length));
            if let Some(count) = code_count.get_mut(usize::from(length)) {
                *count += 1;
            }
        }
        if kraft != 1u64 << MAX_CODE_LEN {
            return Err(CodecError::corrupt(
                WHAT,
                "code lengths do not form a complete code",
            ));
        }
        let mut first_code = [0u32; MAX_CODE_LEN as usize + 1];
        let mut first_index = [0u32; MAX_CODE_LEN as usize + 1];
        let mut code = 0u32;
        let mut index = 0u32;
        // Lengths 1..=MAX_CODE_LEN, in order (slot 0 stays unused).
        for ((&count, first), first_at) in code_count
            .iter()
            .zip(&mut first_code)
            .zip(&mut first_index)
            .skip(1)
        {
            code <<= 1;
            *first = code;
            *first_at = index;
            code += count;
            index += count;
        }
        let mut next_code = first_code;
        let mut codes = [0u32; SYMBOLS];
        let mut symbols_by_code = [0u8; SYMBOLS];
        let mut lookup = Box::new([0u32; 1 << LUT_BITS]);
        // Canonical codes: taking symbols in increasing order, each gets
        // the next code of its length, so codes of one length follow their
        // symbols' order; its place in `symbols_by_code` is that code's
        // offset from the length's first code and index.
        #[expect(
            clippy::indexing_slicing,
            reason = "every length was checked to be in 1..=MAX_CODE_LEN above, and a code's position (its rank in canonical order) is below SYMBOLS"
        )]
        for ((symbol, &length), code) in (0u8..).zip(lengths).zip(&mut codes) {
            let slot = usize::from(length);
            let assigned = next_code[slot];
            next_code[slot] += 1;
            *code = assigned;
            let position = first_index[slot] + (assigned - first_code[slot]);
            symbols_by_code[position as usize] = symbol;
            if u32::from(length) <= LUT_BITS {
                // Every LUT index starting with this code word maps to it.
                let spread = LUT_BITS - u32::from(length);
                let start = (assigned << spread) as usize;
                let entry = pack_entry(u32::from(length), u32::from(symbol));
                for slot in lookup.iter_mut().skip(start).take(1 << spread) {
                    *slot = entry;
                }
            }
        }
        Ok(HuffmanCode {
            lengths: *lengths,
            codes,
            lookup,
            first_code,
            code_count,
            first_index,
            symbols_by_code,
        })
    }

    /// Code length of every symbol.
    pub fn lengths(&self) -> &[u8; SYMBOLS] {
        &self.lengths
    }

    /// The code word of `h` (right-aligned) and its length in bits;
    /// `None` if `h > 63`.
    #[inline]
    pub fn code_word(&self, h: u32) -> Option<(u32, u32)> {
        let code = self.codes.get(h as usize)?;
        let length = self.lengths.get(h as usize)?;
        Some((*code, u32::from(*length)))
    }

    /// Bits needed to encode keys with this histogram of `h` (code words
    /// plus residuals), excluding first keys and headers.
    pub fn encoded_bits(&self, histogram: &[u64; SYMBOLS]) -> u64 {
        (0u32..)
            .zip(histogram.iter().zip(self.lengths.iter()))
            .map(|(h, (&count, &length))| count * (u64::from(length) + 63 - u64::from(h)))
            .sum()
    }

    /// Decodes one symbol from the top of `window` (left-aligned bits):
    /// returns `(code length, h)`. Never fails for a complete code; `None`
    /// only guards against impossible states without panicking. (The block
    /// decoder inlines this with its own peeking; tests use it directly.)
    #[cfg(test)]
    pub(crate) fn decode(&self, window: u128) -> Option<(u32, u32)> {
        let index = (window >> (128 - LUT_BITS)) as usize;
        // An index of LUT_BITS bits is always inside the table.
        let entry = self.lookup[index];
        if entry != 0 {
            return Some((entry_length(entry), entry_h(entry)));
        }
        self.decode_long(window)
    }

    /// The lookup table, indexed by the next [`LUT_BITS`] bits: packed
    /// entries (see `entry_length`, `entry_h`, `entry_advance`), 0 meaning
    /// the code word is longer (use [`HuffmanCode::decode_long`]).
    #[inline(always)]
    pub(crate) fn lookup_table(&self) -> &[u32; 1 << LUT_BITS] {
        &self.lookup
    }

    /// Canonical decoding of a code word longer than [`LUT_BITS`].
    #[cold]
    pub(crate) fn decode_long(&self, window: u128) -> Option<(u32, u32)> {
        let top = (window >> (128 - MAX_CODE_LEN)) as u32;
        for length in LUT_BITS + 1..=MAX_CODE_LEN {
            let candidate = top >> (MAX_CODE_LEN - length);
            let first = self.first_code.get(length as usize).copied()?;
            let count = self.code_count.get(length as usize).copied()?;
            let offset = candidate.wrapping_sub(first);
            if offset < count {
                let index = self.first_index.get(length as usize).copied()? + offset;
                let symbol = self.symbols_by_code.get(index as usize).copied()?;
                return Some((length, u32::from(symbol)));
            }
        }
        None
    }

    /// Serialized form: a frame (`crate::format`) of kind `CodeBook`,
    /// version 2, around the code length of h = 0, 1, …, 63 (each
    /// 1..=24, one byte each). Version 1 held the same 64 bytes between a
    /// version byte and a 32-bit checksum ([`HuffmanCode::from_v1_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        encode_frame(Kind::CodeBook, CODE_BOOK_VERSION, &self.lengths)
    }

    /// Parses [`HuffmanCode::to_bytes`] output; any damage is a typed error.
    pub fn from_bytes(bytes: &[u8]) -> Result<HuffmanCode, CodecError> {
        let (_, payload) = decode_frame(bytes, Kind::CodeBook, &[CODE_BOOK_VERSION])?;
        Self::from_payload(payload)
    }

    /// Parses a code book of database format 1 (version 1, unframed).
    pub fn from_v1_bytes(bytes: &[u8]) -> Result<HuffmanCode, CodecError> {
        Self::from_payload(legacy::unframe_v1(bytes, Kind::CodeBook)?)
    }

    fn from_payload(payload: &[u8]) -> Result<HuffmanCode, CodecError> {
        let lengths: &[u8; SYMBOLS] = payload.try_into().map_err(|_| {
            CodecError::corrupt(
                WHAT,
                format!("{} code lengths, expected {SYMBOLS}", payload.len()),
            )
        })?;
        HuffmanCode::from_lengths(lengths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skewed_histogram(seed: u64) -> [u64; SYMBOLS] {
        let mut state = seed | 1;
        let mut histogram = [0u64; SYMBOLS];
        for (h, count) in (0u32..).zip(histogram.iter_mut()) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let shift = (h * 7 + u32::try_from(state % 5).unwrap()) % 40;
            *count = (1u64 << shift) + state % 1000;
        }
        histogram
    }

    #[test]
    fn lengths_match_the_library_when_no_capping_is_needed() {
        let mut histogram = [0u64; SYMBOLS];
        for (h, count) in histogram.iter_mut().enumerate() {
            *count = 1000 / (1 + (h as u64).abs_diff(20));
        }
        let code = HuffmanCode::from_histogram(&histogram);
        let expected = library_lengths(&histogram.map(|count| count + 1));
        assert_eq!(code.lengths(), &expected);
    }

    #[test]
    fn extreme_histograms_are_capped_and_complete() {
        let mut fibonacci = [0u64; SYMBOLS];
        let (mut a, mut b) = (1u64, 1u64);
        for count in fibonacci.iter_mut() {
            *count = a;
            (a, b) = (b, a.saturating_add(b));
        }
        for histogram in [
            fibonacci,
            skewed_histogram(7),
            [u64::MAX; SYMBOLS],
            [0; SYMBOLS],
        ] {
            let code = HuffmanCode::from_histogram(&histogram);
            let longest = code.lengths().iter().copied().max().unwrap();
            assert!(u32::from(longest) <= MAX_CODE_LEN);
            assert!(code.lengths().iter().all(|&length| length >= 1));
        }
        // Without the cap the Fibonacci histogram would need ~63-bit codes.
        let uncapped = library_lengths(&fibonacci.map(|count| count.saturating_add(1)));
        assert!(u32::from(uncapped.iter().copied().max().unwrap()) > MAX_CODE_LEN);
    }

    #[test]
    fn fast_decode_agrees_with_code_words() {
        for seed in 1..20 {
            let code = HuffmanCode::from_histogram(&skewed_histogram(seed));
            for h in 0..64u32 {
                let (word, length) = code.code_word(h).unwrap();
                // Put the code word at the top of a window with noise below.
                let window = (u128::from(word) << (128 - length))
                    | (0x5555_5555_5555_5555_5555u128 >> length);
                assert_eq!(code.decode(window), Some((length, h)), "seed {seed} h {h}");
            }
        }
    }

    /// Code words are the canonical ones (the code book stores only the
    /// lengths, so this is part of the format): by length, then symbol,
    /// each the previous plus one, shifted to its length.
    #[test]
    fn code_words_are_canonical() {
        for seed in 1..20 {
            let code = HuffmanCode::from_histogram(&skewed_histogram(seed));
            let mut order: Vec<(u8, u32)> = (0..64u32)
                .map(|h| (code.lengths()[h as usize], h))
                .collect();
            order.sort();
            let (mut next, mut previous_length) = (0u32, 0u32);
            for (length, h) in order {
                next <<= u32::from(length) - previous_length;
                previous_length = u32::from(length);
                assert_eq!(code.code_word(h), Some((next, u32::from(length))));
                next += 1;
            }
        }
    }

    #[test]
    fn code_words_are_prefix_free() {
        let code = HuffmanCode::from_histogram(&skewed_histogram(3));
        for a in 0..64 {
            for b in 0..64 {
                if a == b {
                    continue;
                }
                let (word_a, len_a) = code.code_word(a).unwrap();
                let (word_b, len_b) = code.code_word(b).unwrap();
                if len_a <= len_b {
                    assert_ne!(word_b >> (len_b - len_a), word_a, "{a} prefixes {b}");
                }
            }
        }
    }

    #[test]
    fn bytes_round_trip_and_damage_is_an_error() {
        let code = HuffmanCode::from_histogram(&skewed_histogram(11));
        let bytes = code.to_bytes();
        assert_eq!(bytes.len(), CODE_BOOK_BYTES);
        assert_eq!(HuffmanCode::from_bytes(&bytes).unwrap(), code);
        let v1 = legacy::frame_v1(&code.lengths);
        assert_eq!(v1.len(), 69);
        assert_eq!(HuffmanCode::from_v1_bytes(&v1).unwrap(), code);
        for (bytes, decode) in [
            (bytes, HuffmanCode::from_bytes as fn(&[u8]) -> _),
            (v1, HuffmanCode::from_v1_bytes),
        ] {
            for len in 0..bytes.len() {
                assert!(decode(&bytes[..len]).is_err());
            }
            for bit in 0..bytes.len() * 8 {
                let mut flipped = bytes.clone();
                flipped[bit / 8] ^= 1 << (bit % 8);
                assert!(decode(&flipped).is_err(), "bit {bit}");
            }
        }
    }

    #[test]
    fn incomplete_or_overlong_lengths_are_rejected() {
        assert!(HuffmanCode::from_lengths(&[7; SYMBOLS]).is_err());
        assert!(HuffmanCode::from_lengths(&[5; SYMBOLS]).is_err());
        let mut lengths = [6u8; SYMBOLS];
        lengths[0] = 0;
        assert!(HuffmanCode::from_lengths(&lengths).is_err());
    }
}
