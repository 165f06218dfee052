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
        if c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric()) {
            digits += 1;
            alphanumeric += 1;
        } else if c.is_alphanumeric() {
            alphanumeric += 1;
        }
    }
    if alphanumeric == 0 {
        return 0;
    }
    // At most 1000.
    u16::try_from(digits * 1000 / alphanumeric).unwrap_or(1000)
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
}
