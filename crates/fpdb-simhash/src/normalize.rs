//! Text normalisation applied before tokenising.
//!
//! Pages that differ only in letter case or in full-width versus half-width
//! forms (common on Chinese sites: `ＡＢＣ１２３` versus `ABC123`) must
//! produce the same features, so every tokenizer sees folded text.

/// Folds one character: full-width ASCII forms to ASCII, the ideographic
/// space to a space, then lower case. Calls `emit` once per output character
/// (lower-casing may yield more than one).
#[inline]
pub(crate) fn fold_char(c: char, mut emit: impl FnMut(char)) {
    let c = match u32::from(c) {
        // FULLWIDTH EXCLAMATION MARK ..= FULLWIDTH TILDE map onto '!' ..= '~'.
        code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    };
    if c.is_ascii() {
        emit(c.to_ascii_lowercase());
    } else if is_caseless_cjk(c) {
        // Most of a Chinese page: skip the case tables.
        emit(c);
    } else {
        c.to_lowercase().for_each(emit);
    }
}

/// CJK punctuation, kana, CJK extension A and unified ideographs: no
/// character here has a lower-case form (checked by a test over the range).
#[inline]
fn is_caseless_cjk(c: char) -> bool {
    matches!(u32::from(c), 0x3000..=0x9FFF)
}

/// Appends the folded form of `text` to `out`.
pub(crate) fn fold_into(text: &str, out: &mut String) {
    out.reserve(text.len());
    if text.is_ascii() {
        // Fast path: most of the web's Latin text.
        out.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        text.chars().for_each(|c| fold_char(c, |f| out.push(f)));
    }
}

/// Whether a token carries meaning: it has at least one letter or digit.
/// Punctuation, symbols and whitespace are dropped.
#[inline]
pub(crate) fn has_alphanumeric(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

/// Whether a token is a word feature: it has a letter or digit and is not
/// a bare number (one pass for [`has_alphanumeric`] and [`is_number`]).
#[inline]
pub(crate) fn is_meaningful_word(token: &str) -> bool {
    let mut alphanumeric = false;
    let mut number_like = true;
    for c in token.chars() {
        if is_caseless_cjk(c) && u32::from(c) >= 0x3400 {
            // An ideograph: a letter, not part of a number.
            return true;
        }
        if c.is_alphanumeric() {
            alphanumeric = true;
            number_like &= c.is_numeric();
        } else {
            number_like &= matches!(c, '.' | ',' | ':' | '-' | '/' | '%');
        }
    }
    alphanumeric && !number_like
}

/// Whether a token is only a number, such as a date part, a counter or a
/// price. Those are what changes between two copies of the same page
/// (`阅读 1523 次`, `2024-04-29`), so tokenizers that drop them keep such copies
/// together.
#[inline]
pub(crate) fn is_number(token: &str) -> bool {
    let mut digits = 0usize;
    for c in token.chars() {
        if c.is_numeric() {
            digits += 1;
        } else if !matches!(c, '.' | ',' | ':' | '-' | '/' | '%') {
            return false;
        }
    }
    digits > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(text: &str) -> String {
        let mut out = String::new();
        fold_into(text, &mut out);
        out
    }

    #[test]
    fn folds_full_width_and_case() {
        assert_eq!(fold("ＡＢＣ１２３　Hello"), "abc123 hello");
        assert_eq!(fold("中文ÄÖ"), "中文äö");
        assert_eq!(fold("PLAIN ascii"), "plain ascii");
    }

    #[test]
    fn cjk_range_has_no_lower_case() {
        for code in 0x3000..=0x9FFFu32 {
            if let Some(c) = char::from_u32(code) {
                assert_eq!(
                    c.to_lowercase().collect::<String>(),
                    c.to_string(),
                    "U+{code:04X}"
                );
            }
        }
    }

    #[test]
    fn one_pass_classification_agrees_with_the_two_checks() {
        for token in [
            "",
            "a",
            "中",
            "中文",
            "2024",
            "4.3",
            "2024-04-29",
            "１２",
            "mp3",
            "--",
            "年",
            "，",
            "x,y",
            "12%",
            "a1",
            "〇",
            "ⅻ",
            "½",
            "3中",
            " ",
            "ü",
        ] {
            assert_eq!(
                is_meaningful_word(token),
                has_alphanumeric(token) && !is_number(token),
                "{token:?}"
            );
        }
    }

    #[test]
    fn classifies_tokens() {
        assert!(has_alphanumeric("a"));
        assert!(has_alphanumeric("中"));
        assert!(!has_alphanumeric("，。！ \t"));
        assert!(is_number("2024"));
        assert!(is_number("4.3"));
        assert!(is_number("2024-04-29"));
        assert!(is_number("１２"));
        assert!(!is_number("mp3"));
        assert!(!is_number("--"));
        assert!(!is_number("年"));
    }
}
