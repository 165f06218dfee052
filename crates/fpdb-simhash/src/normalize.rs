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
    } else {
        c.to_lowercase().for_each(emit);
    }
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
