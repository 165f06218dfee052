//! Numbers in a confirming signature.
//!
//! Bare numbers are never features: dates, counters and prices are what
//! changes between two copies of one page. On a page that is mostly
//! numbers (a price list, a table of statistics, a listing of phone
//! numbers) they are the content, and two such pages of one site share
//! every other word. A confirmation may count them in the signature of a
//! text whose digits reach a share of its letters and digits.

/// Digits per thousand of `text`'s letters and digits (0 for a text with
/// neither). Chinese characters are letters, one each.
pub fn digit_permille(text: &str) -> u16 {
    let (mut digits, mut alphanumeric) = (0u64, 0u64);
    for c in text.chars() {
        match class(c) {
            Class::Digit => {
                digits += 1;
                alphanumeric += 1;
            }
            Class::Letter => alphanumeric += 1,
            Class::Other => {}
        }
    }
    if alphanumeric == 0 {
        return 0;
    }
    // At most 1000.
    u16::try_from(digits * 1000 / alphanumeric).unwrap_or(1000)
}

/// What [`digit_permille`] counts a character as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Numeric (`char::is_numeric`).
    Digit,
    /// Alphabetic and not numeric.
    Letter,
    /// Neither.
    Other,
}

/// The CJK Unified Ideographs and their Extension A: every one is a
/// letter (tested against the standard library), and they are most of a
/// Chinese text, for which the library's lookups search its tables.
const IDEOGRAPHS: [std::ops::RangeInclusive<char>; 2] =
    ['\u{4E00}'..='\u{9FFF}', '\u{3400}'..='\u{4DBF}'];

fn class(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_digit() {
            Class::Digit
        } else if c.is_ascii_alphabetic() {
            Class::Letter
        } else {
            Class::Other
        };
    }
    if IDEOGRAPHS.iter().any(|range| range.contains(&c)) {
        return Class::Letter;
    }
    if c.is_numeric() {
        Class::Digit
    } else if c.is_alphabetic() {
        Class::Letter
    } else {
        Class::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_digits_among_letters_and_digits() {
        assert_eq!(digit_permille(""), 0);
        assert_eq!(digit_permille("，。 !"), 0);
        assert_eq!(digit_permille("abc"), 0);
        assert_eq!(digit_permille("a1"), 500);
        assert_eq!(digit_permille("电话 13812345678"), 846);
        assert_eq!(digit_permille("2024-04-29"), 1000);
        assert_eq!(
            digit_permille("１２ab"),
            500,
            "full-width digits are digits"
        );
    }

    /// The classes as the standard library gives them, for every
    /// character: what the fast paths must equal.
    #[test]
    fn classes_equal_the_standard_library_for_every_character() {
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            let want = if c.is_numeric() {
                Class::Digit
            } else if c.is_alphanumeric() {
                Class::Letter
            } else {
                Class::Other
            };
            assert_eq!(class(c), want, "U+{:04X}", u32::from(c));
        }
    }
}
