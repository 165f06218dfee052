//! Block decoding on untrusted bytes, and an encode → decode oracle.
//!
//! The first input byte picks a mode:
//! - 0: the rest is a whole block, decoded as is (mostly stopped by the
//!   header checks or the checksum);
//! - 1: the rest is a payload sealed with a valid header and checksum, so
//!   the key decoder itself meets garbage; decoding it two at a time (with
//!   a block cut from the same bytes) must agree with one at a time;
//! - 2: the rest becomes sorted keys; encoding then decoding (fast and
//!   reference paths, whole block and cut table, early stop) must agree.
#![no_main]

use fpdb_codec::block::reference::{decode_block_reference, encode_block_reference};
use fpdb_codec::{
    seal_block, BlockDecoder, BlockEncoder, BlockHeader, ChecksumPolicy, HuffmanCode, SYMBOLS,
};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// One of a fixed set of codes, from flat to very skewed (building a code
/// per input would dominate the fuzzer's time).
fn code_from(selector: u8) -> &'static HuffmanCode {
    static CODES: OnceLock<Vec<HuffmanCode>> = OnceLock::new();
    let codes = CODES.get_or_init(|| {
        let mut codes = vec![HuffmanCode::uniform()];
        codes.extend((1..16u64).map(skewed_code));
        codes
    });
    &codes[usize::from(selector) % codes.len()]
}

fn skewed_code(seed: u64) -> HuffmanCode {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut histogram = [0u64; SYMBOLS];
    for count in histogram.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *count = state >> (state % 64);
    }
    HuffmanCode::from_histogram(&histogram)
}

fn check_decoded(out: &[u64], count: usize) {
    assert_eq!(out.len(), count);
    assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Some((&selector, rest)) = rest.split_first() else {
        return;
    };
    let code = code_from(selector);
    let mut out = Vec::new();
    match mode % 3 {
        0 => {
            for policy in [ChecksumPolicy::Verify, ChecksumPolicy::Skip] {
                let decoder = BlockDecoder::new(code, policy);
                if decoder.decode(rest, &mut out).is_ok() {
                    let (header, _) = BlockHeader::parse(rest).expect("decoded blocks parse");
                    check_decoded(&out, usize::from(header.count));
                } else {
                    assert!(out.is_empty());
                }
                let _ = decoder.decode_until(rest, u64::MAX / 2, &mut out);
            }
        }
        1 => {
            let [count_high, count_low, padding, payload @ ..] = rest else {
                return;
            };
            let count = u16::from_be_bytes([*count_high, *count_low]).max(1);
            let bits = (payload.len() * 8).saturating_sub(usize::from(*padding % 8));
            let block = seal_block(count, bits, payload);
            let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
            if decoder.decode(&block, &mut out).is_ok() {
                check_decoded(&out, usize::from(count));
                // Whatever decodes must re-encode to the same bytes.
                let again = BlockEncoder::new(code, 1 << 20)
                    .encode_block(&out)
                    .expect("decoded keys ascend");
                assert_eq!(again.bytes(), block.as_slice());
                assert_eq!(
                    decode_block_reference(code, &block).expect("reference agrees"),
                    out
                );
            } else {
                assert!(decode_block_reference(code, &block).is_err());
            }
            // Two at a time (beside a block cut from the same garbage)
            // must give what one at a time gives.
            let half = &payload[..payload.len() / 2];
            let other = seal_block(count / 2 + 1, half.len() * 8, half);
            let (mut one, mut two) = (vec![1], vec![2]);
            let results = decoder.decode_two([&block, &other], [&mut one, &mut two]);
            for (result, (decoded, alone)) in results.iter().zip([(&one, &block), (&two, &other)]) {
                let expected = decoder.decode(alone, &mut out);
                assert_eq!(format!("{result:?}"), format!("{expected:?}"));
                assert_eq!(decoded, &out);
            }
        }
        _ => {
            let [shape, target, body @ ..] = rest else {
                return;
            };
            // Mask low bits away to make long shared prefixes likely.
            let keep_low = u32::from(*shape % 65);
            let mask = if keep_low == 64 {
                u64::MAX
            } else {
                (1u64 << keep_low) - 1
            };
            // The shape byte in every byte of the shared high bits.
            let base = u64::from(*shape) * 0x0101_0101_0101_0101;
            let mut keys: Vec<u64> = body
                .chunks(8)
                .map(|chunk| {
                    let mut bytes = [0u8; 8];
                    bytes[..chunk.len()].copy_from_slice(chunk);
                    (base & !mask) | (u64::from_le_bytes(bytes) & mask)
                })
                .collect();
            if *shape & 1 == 1 {
                keys.extend([0, u64::MAX]);
            }
            keys.sort_unstable();
            keys.dedup();
            if keys.is_empty() {
                return;
            }
            let target_bytes = 8 + usize::from(*target) * 4;
            let encoder = BlockEncoder::new(code, target_bytes);
            let block = encoder.encode_block(&keys).expect("encodes");
            let reference = encode_block_reference(code, &keys).expect("reference encodes");
            assert_eq!(block.bytes(), reference.as_slice());
            let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
            decoder.decode(block.bytes(), &mut out).expect("decodes");
            assert_eq!(out, keys);
            assert_eq!(
                decode_block_reference(code, block.bytes()).expect("decodes"),
                keys
            );
            let bound = keys[keys.len() / 2];
            decoder
                .decode_until(block.bytes(), bound, &mut out)
                .expect("decodes");
            assert_eq!(out, keys[..=keys.len() / 2]);
            let mut joined = Vec::new();
            for piece in encoder.encode_table(&keys).expect("encodes") {
                assert!(piece.bytes().len() <= target_bytes || piece.count() == 1);
                decoder.decode(piece.bytes(), &mut out).expect("decodes");
                joined.extend_from_slice(&out);
            }
            assert_eq!(joined, keys);
        }
    }
});
