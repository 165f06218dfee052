//! Bit-level writing and reading, most significant bit first.
//!
//! Blocks are bit streams: bit 0 of the stream is the most significant bit of
//! byte 0. The writer packs through a 128-bit accumulator so that a Huffman
//! code word and a residual of up to 64 bits go in with a couple of shifts;
//! the reader loads a 128-bit big-endian window at any bit position so that a
//! code word (≤ 24 bits) and its residual (≤ 63 bits) come out of one load.

/// Appends bit fields to a byte vector, MSB first.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    /// Pending bits, right-aligned: the lowest `pending_bits` bits are valid.
    accumulator: u128,
    pending_bits: u32,
}

impl BitWriter {
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        BitWriter {
            bytes: Vec::with_capacity(bytes),
            accumulator: 0,
            pending_bits: 0,
        }
    }

    /// Appends the lowest `width` bits of `value` (width ≤ 64), MSB first.
    /// Bits of `value` above `width` must be zero.
    #[inline]
    pub(crate) fn write(&mut self, value: u64, width: u32) {
        debug_assert!(width <= 64);
        debug_assert!(width == 64 || value >> width == 0);
        if width == 0 {
            return;
        }
        self.accumulator = (self.accumulator << width) | u128::from(value);
        self.pending_bits += width;
        // At most 63 + 64 bits are pending, which fits 128; flush whole
        // 64-bit words so the next write also fits.
        if self.pending_bits >= 64 {
            let spare = self.pending_bits - 64;
            #[expect(
                clippy::cast_possible_truncation,
                reason = "the accumulator holds only its `pending_bits` bits, so the top 64 of them fit"
            )]
            let word = (self.accumulator >> spare) as u64;
            self.bytes.extend_from_slice(&word.to_be_bytes());
            self.pending_bits = spare;
            self.accumulator &= (1u128 << spare) - 1;
        }
    }

    /// Bits written so far.
    pub(crate) fn bit_len(&self) -> u64 {
        self.bytes.len() as u64 * 8 + u64::from(self.pending_bits)
    }

    /// Pads the last byte with zero bits and returns the bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let mut remaining = self.pending_bits;
        while remaining >= 8 {
            remaining -= 8;
            self.bytes.push(low_byte(self.accumulator >> remaining));
        }
        if remaining > 0 {
            self.bytes
                .push(low_byte(self.accumulator << (8 - remaining)));
        }
        self.bytes
    }
}

/// The 128 bits starting at bit `bit_pos` of `bytes`, left-aligned; bits past
/// the end of `bytes` read as zero, so the caller bounds-checks positions
/// against the real bit length instead of every load.
#[inline(always)]
pub(crate) fn window_at(bytes: &[u8], bit_pos: usize) -> u128 {
    bytes_at(bytes, bit_pos >> 3) << (bit_pos & 7)
}

/// The 16 bytes starting at byte `byte_pos`, big-endian; zero past the end.
#[inline(always)]
pub(crate) fn bytes_at(bytes: &[u8], byte_pos: usize) -> u128 {
    match bytes.get(byte_pos..byte_pos.wrapping_add(16)) {
        Some(chunk) => {
            let mut array = [0u8; 16];
            array.copy_from_slice(chunk);
            u128::from_be_bytes(array)
        }
        None => load_padded(bytes, byte_pos),
    }
}

/// Slow path of [`window_at`] near the end of the buffer.
#[cold]
fn load_padded(bytes: &[u8], byte_pos: usize) -> u128 {
    // Bytes from `byte_pos` up to the end (none if it is past the end),
    // the rest of the window staying zero.
    let mut array = [0u8; 16];
    for (slot, &byte) in array.iter_mut().zip(bytes.iter().skip(byte_pos)) {
        *slot = byte;
    }
    u128::from_be_bytes(array)
}

/// Reads `width` (≤ 64) bits at `bit_pos`, MSB first; zero past the end.
#[inline]
pub(crate) fn read_bits(bytes: &[u8], bit_pos: usize, width: u32) -> u64 {
    debug_assert!(width <= 64);
    if width == 0 {
        return 0;
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the top `width` ≤ 64 bits of the window fit"
    )]
    let bits = (window_at(bytes, bit_pos) >> (128 - width)) as u64;
    bits
}

/// The low 8 bits of `value` (a deliberate truncation).
#[inline]
const fn low_byte(value: u128) -> u8 {
    let [.., byte] = value.to_be_bytes();
    byte
}

/// The low 32 bits of `value`: the stored checksums are the low half of
/// an xxh3-64 hash.
#[inline]
pub(crate) const fn low_u32(value: u64) -> u32 {
    let [.., a, b, c, d] = value.to_be_bytes();
    u32::from_be_bytes([a, b, c, d])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_and_reader_agree_on_mixed_widths() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut fields = Vec::new();
        let mut writer = BitWriter::default();
        for _ in 0..5000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let width = (state % 65) as u32;
            let value = if width == 64 {
                state
            } else {
                state & ((1u64 << width) - 1)
            };
            writer.write(value, width);
            fields.push((value, width));
        }
        let total = writer.bit_len();
        let bytes = writer.finish();
        assert_eq!(bytes.len() as u64, total.div_ceil(8));
        let mut pos = 0usize;
        for (value, width) in fields {
            assert_eq!(read_bits(&bytes, pos, width), value, "at bit {pos}");
            pos += width as usize;
        }
    }

    /// The checksums in every stored format keep the low 32 bits.
    #[test]
    fn truncations_keep_the_low_bits() {
        assert_eq!(low_u32(0x0123_4567_89ab_cdef), 0x89ab_cdef);
        assert_eq!(low_u32(u64::MAX), u32::MAX);
        assert_eq!(low_byte(0x0123_4567_89ab_cdef_0011_2233_4455_6677), 0x77);
    }

    #[test]
    fn reading_past_the_end_gives_zeros() {
        let bytes = [0xFFu8; 3];
        assert_eq!(read_bits(&bytes, 20, 8), 0b1111_0000);
        assert_eq!(read_bits(&bytes, 1000, 64), 0);
        assert_eq!(read_bits(&[], 0, 64), 0);
    }
}
