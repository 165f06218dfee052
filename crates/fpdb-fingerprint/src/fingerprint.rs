//! The 64-bit simhash fingerprint and its Hamming distance.

use std::fmt;
use std::str::FromStr;

/// A 64-bit simhash fingerprint.
///
/// Two documents are near-duplicates when their fingerprints differ in at most
/// `k` bits ([`Fingerprint::distance`]). Displayed and parsed as exactly
/// 16 hexadecimal digits (lower case when displayed), the form used in every
/// fpdb file format and in the CLI.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint as a plain integer.
    #[inline]
    pub const fn to_u64(self) -> u64 {
        self.0
    }

    /// Number of bit positions in which the two fingerprints differ
    /// (popcount of the XOR); a metric on fingerprints.
    #[inline]
    pub const fn distance(self, other: Fingerprint) -> u32 {
        (self.0 ^ other.0).count_ones()
    }
}

impl From<u64> for Fingerprint {
    fn from(value: u64) -> Self {
        Fingerprint(value)
    }
}

impl From<Fingerprint> for u64 {
    fn from(fp: Fingerprint) -> Self {
        fp.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({:016x})", self.0)
    }
}

/// Why a string is not a fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseFingerprintError {
    /// The text (after an optional `0x`) is not exactly 16 characters long.
    #[error("a fingerprint is exactly 16 hex digits, got {len} characters")]
    Length {
        /// Number of characters found after the optional `0x` prefix.
        len: usize,
    },
    /// A character is not a hexadecimal digit.
    #[error("invalid hex digit {found:?} at position {position} of a fingerprint")]
    Digit {
        /// The offending character.
        found: char,
        /// Its character position, counted after the optional `0x` prefix.
        position: usize,
    },
}

impl FromStr for Fingerprint {
    type Err = ParseFingerprintError;

    /// Parses 16 hex digits, upper or lower case, with an optional `0x`/`0X`
    /// prefix. Signs, spaces and underscores are rejected, unlike
    /// `u64::from_str_radix`, so that a file means one thing only.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        // The usual case, 16 ASCII hex digits, is read a byte at a time
        // (bulk loads parse millions); anything else is read as characters
        // to say what is wrong.
        if let Ok(bytes) = <&[u8; 16]>::try_from(digits.as_bytes()) {
            let mut value = 0u64;
            let mut valid = true;
            for &byte in bytes {
                let nibble = hex_digit(byte);
                valid &= nibble < 16;
                value = (value << 4) | u64::from(nibble & 15);
            }
            if valid {
                return Ok(Fingerprint(value));
            }
        }
        let len = digits.chars().count();
        if len != 16 {
            return Err(ParseFingerprintError::Length { len });
        }
        let mut value = 0u64;
        for (position, found) in digits.chars().enumerate() {
            let nibble = found
                .to_digit(16)
                .ok_or(ParseFingerprintError::Digit { found, position })?;
            value = (value << 4) | u64::from(nibble);
        }
        Ok(Fingerprint(value))
    }
}

/// The value of each byte as an ASCII hex digit, or `u8::MAX`: a table,
/// since branches on digit or letter mispredict on random hex.
const HEX_DIGITS: [u8; 256] = {
    let mut table = [u8::MAX; 256];
    let mut byte = 0;
    while byte < 256 {
        #[expect(clippy::cast_possible_truncation, reason = "byte < 256")]
        let digit = match byte as u8 {
            b @ b'0'..=b'9' => b - b'0',
            b @ b'a'..=b'f' => b - b'a' + 10,
            b @ b'A'..=b'F' => b - b'A' + 10,
            _ => u8::MAX,
        };
        #[expect(clippy::indexing_slicing, reason = "byte < 256, the table's length")]
        {
            table[byte] = digit;
        }
        byte += 1;
    }
    table
};

/// The value of an ASCII hex digit, or 16 or more for any other byte.
#[inline]
fn hex_digit(byte: u8) -> u8 {
    #[expect(clippy::indexing_slicing, reason = "a u8 indexes a 256-entry table")]
    HEX_DIGITS[usize::from(byte)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_16_lowercase_hex_digits() {
        assert_eq!(Fingerprint(0xAB).to_string(), "00000000000000ab");
        assert_eq!(Fingerprint(u64::MAX).to_string(), "ffffffffffffffff");
    }

    #[test]
    fn parse_accepts_upper_case_and_0x() {
        let want = Fingerprint(0x0123_4567_89ab_cdef);
        assert_eq!("0123456789abcdef".parse(), Ok(want));
        assert_eq!("0123456789ABCDEF".parse(), Ok(want));
        assert_eq!("0x0123456789abcdef".parse(), Ok(want));
        assert_eq!("0X0123456789abcdef".parse(), Ok(want));
    }

    #[test]
    fn parse_rejects_everything_else() {
        for bad in [
            "",
            "0x",
            "123",
            "0123456789abcdef0",
            "+123456789abcdef",
            " 123456789abcdef",
            "0123456789abcdeg",
            "0123456789abcdé",
            "0123_56789abcdef",
            "xx0123456789abcdef",
        ] {
            assert!(bad.parse::<Fingerprint>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(
            "0123456789abcdeg".parse::<Fingerprint>(),
            Err(ParseFingerprintError::Digit {
                found: 'g',
                position: 15
            })
        );
    }

    #[test]
    fn every_byte_in_every_position_parses_as_char_to_digit_says() {
        let digits = *b"0123456789abcdef";
        for position in 0..16 {
            for byte in 0..=u8::MAX {
                let mut text = digits;
                text[position] = byte;
                let Ok(text) = std::str::from_utf8(&text) else {
                    continue;
                };
                if text.starts_with("0x") || text.starts_with("0X") {
                    continue; // a prefix, then too few digits
                }
                let parsed = text.parse::<Fingerprint>();
                match char::from(byte).to_digit(16) {
                    Some(_) => assert_eq!(
                        parsed,
                        Ok(Fingerprint(u64::from_str_radix(text, 16).unwrap())),
                        "{text:?}"
                    ),
                    None => assert_eq!(
                        parsed,
                        Err(ParseFingerprintError::Digit {
                            found: char::from(byte),
                            position
                        }),
                        "{text:?}"
                    ),
                }
            }
        }
    }

    #[test]
    fn distance_counts_differing_bits() {
        assert_eq!(Fingerprint(0).distance(Fingerprint(u64::MAX)), 64);
        assert_eq!(Fingerprint(0b1011).distance(Fingerprint(0b0001)), 2);
        assert_eq!(Fingerprint(7).distance(Fingerprint(7)), 0);
    }
}
