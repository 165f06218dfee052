//! The block codec: fast paths against the bit-by-bit reference, block
//! cutting, early-stopping decode and behaviour on damaged bytes.

use fpdb_codec::block::reference::{decode_block_reference, encode_block_reference};
use fpdb_codec::{
    block_first_key, seal_block, BlockDecoder, BlockEncoder, BlockHeader, ChecksumPolicy,
    CodecError, HuffmanCode, SyncPoints, DEFAULT_BLOCK_BYTES, SYMBOLS,
};
use proptest::prelude::*;

/// Sorted unique keys from several shapes: uniform, clustered under shared
/// prefixes (long runs of small `h`… and large `h`), and the extremes.
fn key_sets() -> impl Strategy<Value = Vec<u64>> {
    let uniform = proptest::collection::vec(any::<u64>(), 1..600);
    let clustered = (
        any::<u64>(),
        0u32..64,
        proptest::collection::vec(any::<u64>(), 1..600),
    )
        .prop_map(|(base, free_bits, noise)| {
            let mask = if free_bits == 0 {
                0
            } else {
                u64::MAX >> (64 - free_bits)
            };
            noise
                .into_iter()
                .map(|n| (base & !mask) | (n & mask))
                .collect()
        });
    let dense = (any::<u64>(), 1usize..600)
        .prop_map(|(start, len)| (0..len as u64).map(|i| start.wrapping_add(i)).collect());
    (
        prop_oneof![uniform, clustered, dense],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut keys, with_zero, with_max)| {
            if with_zero {
                keys.push(0);
            }
            if with_max {
                keys.push(u64::MAX);
            }
            keys.sort_unstable();
            keys.dedup();
            keys
        })
}

/// Either the keys' own code or an unrelated skewed one: any code must
/// encode any key set, since later inserts reuse a table's code.
fn code_for(keys: &[u64], foreign: Option<u64>) -> HuffmanCode {
    match foreign {
        None => HuffmanCode::for_sorted_keys(keys),
        Some(seed) => {
            let mut histogram = [0u64; SYMBOLS];
            let mut state = seed | 1;
            for count in histogram.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *count = state >> (state % 64);
            }
            HuffmanCode::from_histogram(&histogram)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fast_paths_match_the_reference(keys in key_sets(), foreign in proptest::option::of(any::<u64>())) {
        let code = code_for(&keys, foreign);
        let fast = BlockEncoder::new(&code, DEFAULT_BLOCK_BYTES).encode_block(&keys).unwrap();
        let reference = encode_block_reference(&code, &keys).unwrap();
        prop_assert_eq!(fast.bytes(), reference.as_slice());
        prop_assert_eq!(decode_block_reference(&code, &reference).unwrap(), keys.clone());
        let mut decoded = Vec::new();
        BlockDecoder::new(&code, ChecksumPolicy::Verify).decode(fast.bytes(), &mut decoded).unwrap();
        prop_assert_eq!(&decoded, &keys);
        prop_assert_eq!(fast.first_key(), keys[0]);
        prop_assert_eq!(fast.last_key(), *keys.last().unwrap());
        prop_assert_eq!(fast.count() as usize, keys.len());
        prop_assert_eq!(block_first_key(fast.bytes()).unwrap(), keys[0]);
    }

    #[test]
    fn tables_cut_into_blocks_within_target(keys in key_sets(), target in 16usize..400) {
        let code = HuffmanCode::for_sorted_keys(&keys);
        let blocks = BlockEncoder::new(&code, target).encode_table(&keys).unwrap();
        let decoder = BlockDecoder::new(&code, ChecksumPolicy::Verify);
        let mut all = Vec::new();
        let mut buffer = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            // Over target only when a single key cannot fit anyway.
            prop_assert!(block.bytes().len() <= target || block.count() == 1);
            decoder.decode(block.bytes(), &mut buffer).unwrap();
            prop_assert_eq!(buffer.first().copied(), Some(block.first_key()));
            prop_assert_eq!(buffer.last().copied(), Some(block.last_key()));
            // A block is cut only when the next key would not fit.
            if let Some(next) = blocks.get(index + 1) {
                let mut grown = buffer.clone();
                grown.push(next.first_key());
                let bigger = BlockEncoder::new(&code, target).encode_block(&grown).unwrap();
                prop_assert!(bigger.bytes().len() > target);
            }
            all.extend_from_slice(&buffer);
        }
        prop_assert_eq!(all, keys);
    }

    #[test]
    fn tables_cut_at_prefix_groups(keys in key_sets(), target in 16usize..400, prefix_bits in 1u32..64) {
        let code = HuffmanCode::for_sorted_keys(&keys);
        let encoder = BlockEncoder::new(&code, target);
        let blocks = encoder.cut_at_groups(prefix_bits).encode_table(&keys).unwrap();
        let budget_bits = (target.saturating_sub(BlockHeader::LEN) * 8) as u64;
        let group = |key: u64| key >> (64 - prefix_bits);
        let payload_bits = |bytes: &[u8]| {
            let (header, payload) = BlockHeader::parse(bytes).unwrap();
            header.payload_bits(payload.len()) as u64
        };
        let decoder = BlockDecoder::new(&code, ChecksumPolicy::Verify);
        let mut all = Vec::new();
        let mut buffer = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            decoder.decode(block.bytes(), &mut buffer).unwrap();
            // A block cut back to a group start is, byte for byte, the
            // block of its keys alone (zero padding, checksum, last key).
            prop_assert_eq!(&encoder.encode_block(&buffer).unwrap(), block);
            prop_assert!(block.bytes().len() <= target || block.count() == 1);
            if let Some(next) = blocks.get(index + 1) {
                let mut grown = buffer.clone();
                grown.push(next.first_key());
                let full = encoder.encode_block(&grown).unwrap().bytes().len() > target;
                if group(next.first_key()) == group(block.last_key()) {
                    // Cut inside a group: only when full, and only when no
                    // group starts in the block's second half.
                    prop_assert!(full);
                    for start in 1..buffer.len() {
                        if group(buffer[start]) != group(buffer[start - 1]) {
                            let before = encoder.encode_block(&buffer[..start]).unwrap();
                            prop_assert!(payload_bits(before.bytes()) * 2 < budget_bits);
                        }
                    }
                } else {
                    // Cut at a group start: when full, or cut back there
                    // with at least half the block kept.
                    prop_assert!(full || payload_bits(block.bytes()) * 2 >= budget_bits);
                }
            }
            all.extend_from_slice(&buffer);
        }
        prop_assert_eq!(all, keys);
    }

    #[test]
    fn decode_until_stops_at_the_bound(keys in key_sets(), bound in any::<u64>(), pick in any::<prop::sample::Index>()) {
        let code = HuffmanCode::for_sorted_keys(&keys);
        let block = BlockEncoder::new(&code, DEFAULT_BLOCK_BYTES).encode_block(&keys).unwrap();
        let decoder = BlockDecoder::new(&code, ChecksumPolicy::Skip);
        let mut out = vec![42];
        for upper in [bound, keys[pick.index(keys.len())], keys[0].wrapping_sub(1)] {
            decoder.decode_until(block.bytes(), upper, &mut out).unwrap();
            let expected: Vec<u64> = keys.iter().copied().take_while(|&key| key <= upper).collect();
            prop_assert_eq!(&out, &expected);
        }
    }

    /// A range walk from the block's sync points finds what a filter over
    /// all keys finds, with any code, and says when it passed `hi`.
    #[test]
    fn range_walks_from_sync_points_match_a_filter(
        keys in key_sets(),
        foreign in proptest::option::of(any::<u64>()),
        bounds in proptest::collection::vec((any::<u64>(), 0u32..64, any::<prop::sample::Index>()), 1..20),
    ) {
        let code = code_for(&keys, foreign);
        let block = BlockEncoder::new(&code, 4096).encode_block(&keys).unwrap();
        let sync = SyncPoints::for_block_keys(&keys, &code);
        for (random, width, pick) in bounds {
            let lo = if random % 2 == 0 { keys[pick.index(keys.len())] } else { random };
            let lo = lo & !((1u64 << width) - 1);
            let hi = lo | ((1u64 << width) - 1);
            let expected: Vec<u64> = keys.iter().copied().filter(|&key| key >= lo && key <= hi).collect();
            let past_hi = keys.iter().any(|&key| key > hi);
            for (points, checksums) in [
                (&sync, ChecksumPolicy::Verify),
                (&sync, ChecksumPolicy::Skip),
                (&SyncPoints::NONE, ChecksumPolicy::Verify),
            ] {
                let mut found = Vec::new();
                let stopped = BlockDecoder::new(&code, checksums)
                    .for_each_in_range(block.bytes(), points, lo, hi, &mut |key| found.push(key))
                    .unwrap();
                prop_assert_eq!(&found, &expected, "lo {:#x} hi {:#x}", lo, hi);
                prop_assert_eq!(stopped, past_hi);
            }
        }
    }

    /// Two blocks decoded in one interleaved loop come out exactly as two
    /// single decodes, keys and errors alike, intact or with a byte of
    /// either one changed (checksums skipped, so the decoder meets it).
    #[test]
    fn decoding_two_blocks_at_once_matches_two_decodes(
        first in key_sets(),
        second in key_sets(),
        foreign in proptest::option::of(any::<u64>()),
        damage in proptest::option::of((any::<bool>(), any::<prop::sample::Index>(), 1u8..=255)),
    ) {
        let code = code_for(&first, foreign);
        let encoder = BlockEncoder::new(&code, 8192);
        let mut blocks = [
            encoder.encode_block(&first).unwrap().into_bytes(),
            encoder.encode_block(&second).unwrap().into_bytes(),
        ];
        if let Some((which, at, flip)) = damage {
            let block = &mut blocks[usize::from(which)];
            let at = at.index(block.len());
            block[at] ^= flip;
        }
        for checksums in [ChecksumPolicy::Skip, ChecksumPolicy::Verify] {
            let decoder = BlockDecoder::new(&code, checksums);
            let (mut one, mut two) = (vec![7], vec![7, 7]);
            let results = decoder.decode_two([&blocks[0], &blocks[1]], [&mut one, &mut two]);
            for (index, (result, out)) in results.iter().zip([&one, &two]).enumerate() {
                let mut alone = Vec::new();
                let expected = decoder.decode(&blocks[index], &mut alone);
                prop_assert_eq!(format!("{result:?}"), format!("{expected:?}"));
                prop_assert_eq!(out, &alone);
            }
            if damage.is_none() {
                prop_assert_eq!(&one, &first);
                prop_assert_eq!(&two, &second);
            }
        }
    }

    #[test]
    fn garbage_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..300), count in any::<u16>(), bits in any::<u32>(), seed in any::<u64>()) {
        let code = code_for(&[], Some(seed));
        let mut out = Vec::new();
        let decoder = BlockDecoder::new(&code, ChecksumPolicy::Verify);
        // Header consistent with the payload length, checksum valid: only
        // the decoder's own checks stand between garbage and a panic.
        let payload_bits = (payload.len() * 8).saturating_sub(bits as usize % 8);
        let count = 1 + (count as usize % payload_bits.saturating_sub(63).clamp(1, 65535)) as u16;
        let block = seal_block(count, payload_bits, &payload);
        let result = decoder.decode(&block, &mut out);
        prop_assert!(out.len() <= count as usize);
        if result.is_ok() {
            prop_assert_eq!(out.len(), count as usize);
            prop_assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
        }
        let mut other = Vec::new();
        let _ = decoder.decode_two([&block, &block], [&mut out, &mut other]);
        // Fully arbitrary bytes too.
        let _ = decoder.decode(&payload, &mut out);
        let _ = decoder.decode_two([&payload, &block], [&mut out, &mut other]);
        let _ = BlockHeader::parse(&payload);
    }
}

fn sample_block() -> (HuffmanCode, Vec<u8>) {
    let mut state = 7u64;
    let mut keys: Vec<u64> = (0..150)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        })
        .collect();
    keys.sort_unstable();
    let code = HuffmanCode::for_sorted_keys(&keys);
    let block = BlockEncoder::new(&code, 4096).encode_block(&keys).unwrap();
    (code, block.into_bytes())
}

#[test]
fn every_truncation_is_an_error() {
    let (code, block) = sample_block();
    let mut out = Vec::new();
    for policy in [ChecksumPolicy::Verify, ChecksumPolicy::Skip] {
        let decoder = BlockDecoder::new(&code, policy);
        for len in 0..block.len() {
            assert!(
                decoder.decode(&block[..len], &mut out).is_err(),
                "length {len}"
            );
            assert!(out.is_empty());
        }
    }
}

#[test]
fn every_bit_flip_is_an_error_with_checksums_and_harmless_without() {
    let (code, block) = sample_block();
    let mut out = Vec::new();
    let verify = BlockDecoder::new(&code, ChecksumPolicy::Verify);
    let skip = BlockDecoder::new(&code, ChecksumPolicy::Skip);
    let mut caught_without_checksum = 0;
    for bit in 0..block.len() * 8 {
        let mut flipped = block.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(verify.decode(&flipped, &mut out).is_err(), "bit {bit}");
        let unchecked = skip.decode(&flipped, &mut out);
        // Without the checksum, structure checks alone catch every flip in
        // the version, count and bit-length fields: the keys would no
        // longer end exactly at the payload's end.
        if bit < 4 * 8 {
            assert!(unchecked.is_err(), "header bit {bit}");
        }
        caught_without_checksum += usize::from(unchecked.is_err());
    }
    println!(
        "{caught_without_checksum} of {} flips caught without checksum",
        block.len() * 8
    );
}

#[test]
fn errors_are_typed() {
    let (code, block) = sample_block();
    let decoder = BlockDecoder::new(&code, ChecksumPolicy::Verify);
    let mut out = Vec::new();
    let mut wrong_version = block.clone();
    wrong_version[0] = 9;
    assert!(matches!(
        decoder.decode(&wrong_version, &mut out),
        Err(CodecError::Version {
            expected: 1,
            got: 9,
            ..
        })
    ));
    let mut wrong_payload = block.clone();
    *wrong_payload.last_mut().unwrap() ^= 0x80;
    assert!(matches!(
        decoder.decode(&wrong_payload, &mut out),
        Err(CodecError::ChecksumMismatch { .. })
    ));
    assert!(matches!(
        decoder.decode(&block[..5], &mut out),
        Err(CodecError::Truncated {
            what: "block",
            needed: 8,
            found: 5
        })
    ));
}

#[test]
fn encoders_reject_bad_input() {
    let code = HuffmanCode::uniform();
    let encoder = BlockEncoder::new(&code, DEFAULT_BLOCK_BYTES);
    assert_eq!(encoder.encode_block(&[]), Err(CodecError::EmptyBlock));
    assert_eq!(
        encoder.encode_block(&[1, 5, 5]),
        Err(CodecError::NotStrictlyAscending { index: 2 })
    );
    assert_eq!(
        encoder.encode_table(&[9, 3]),
        Err(CodecError::NotStrictlyAscending { index: 1 })
    );
    assert!(encoder.encode_table(&[]).unwrap().is_empty());
    for keys in [[2, 1], [2, 2]] {
        assert_eq!(
            encode_block_reference(&code, &keys),
            Err(CodecError::NotStrictlyAscending { index: 1 })
        );
    }
}

#[test]
fn keys_that_do_not_ascend_get_no_sync_points() {
    let code = HuffmanCode::uniform();
    let ascending: Vec<u64> = (0..200u64).map(|i| i << 40).collect();
    assert_ne!(
        SyncPoints::for_block_keys(&ascending, &code),
        SyncPoints::NONE
    );
    for at in [1, 100, 199] {
        let mut keys = ascending.clone();
        keys[at] = keys[at - 1];
        assert_eq!(SyncPoints::for_block_keys(&keys, &code), SyncPoints::NONE);
    }
}

/// Groups of about 60 % of a block: cut by size, most groups would span
/// two blocks; cut at groups, every block holds exactly one.
#[test]
fn groups_smaller_than_a_block_get_a_block_each() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut keys = Vec::new();
    for group in 0..200u64 {
        for _ in 0..100 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            keys.push((group << 48) | (state >> 16));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let code = HuffmanCode::for_sorted_keys(&keys);
    let encoder = BlockEncoder::new(&code, DEFAULT_BLOCK_BYTES);
    let by_size = encoder.encode_table(&keys).unwrap();
    let in_groups = encoder.cut_at_groups(16).encode_table(&keys).unwrap();
    let spanning = |blocks: &[fpdb_codec::EncodedBlock]| {
        blocks
            .windows(2)
            .filter(|pair| pair[0].last_key() >> 48 == pair[1].first_key() >> 48)
            .count()
    };
    assert!(spanning(&by_size) > 100, "{}", spanning(&by_size));
    assert_eq!(spanning(&in_groups), 0);
    assert_eq!(in_groups.len(), 200);
}
