//! Inputs found by `cargo fuzz run block_decoder`, replayed with the same
//! oracle: whatever the decoder accepts must be the canonical encoding of
//! the keys it returns (re-encoding gives the same bytes), and the
//! reference decoder must agree.

use fpdb_codec::block::reference::decode_block_reference;
use fpdb_codec::{seal_block, BlockDecoder, BlockEncoder, ChecksumPolicy, HuffmanCode};

/// Mode 1 of the fuzz target: `[count (u16), padding, payload…]` sealed with
/// a valid header and checksum, decoded with `code`.
fn replay_sealed_payload(code: &HuffmanCode, input: &[u8]) {
    let [count_high, count_low, padding, payload @ ..] = input else {
        panic!("input too short");
    };
    let count = u16::from_be_bytes([*count_high, *count_low]).max(1);
    let bits = (payload.len() * 8).saturating_sub(usize::from(*padding % 8));
    let block = seal_block(count, bits, payload);
    let mut out = Vec::new();
    let decoded = BlockDecoder::new(code, ChecksumPolicy::Verify).decode(&block, &mut out);
    let reference = decode_block_reference(code, &block);
    match decoded {
        Ok(()) => {
            let again = BlockEncoder::new(code, 1 << 20).encode_block(&out).unwrap();
            assert_eq!(
                again.bytes(),
                block.as_slice(),
                "accepted a non-canonical block"
            );
            assert_eq!(reference.unwrap(), out);
        }
        Err(_) => assert!(
            reference.is_err(),
            "reference accepts what the fast decoder rejects"
        ),
    }
}

/// crash-b35f3346f2ee5ec0116f6ddbd438e94344343835 (uniform code): a key's
/// code word named a bit `h` that its predecessor already had set. The
/// decoder built an ascending key anyway, so it accepted a stream that is
/// not the encoding of the keys it returned. Fixed by requiring the
/// predecessor's bit `h` to be 0.
#[test]
fn predecessor_bit_h_already_set() {
    let input = [
        0x00, 0x03, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x0a, 0x40, 0x00, 0x00,
        0x20, 0x23, 0x0a, 0x00, 0x40, 0x00, 0x00, 0x00, 0x23, 0x0a, 0x00, 0x00, 0xf4,
    ];
    replay_sealed_payload(&HuffmanCode::uniform(), &input);
}
