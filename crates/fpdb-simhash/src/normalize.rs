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
        // Fast path: most of the web's Latin text, lowered in place.
        let start = out.len();
        out.push_str(text);
        if let Some(added) = out.get_mut(start..) {
            added.make_ascii_lowercase();
        }
        return;
    }
    // Runs of characters that fold to themselves (most of a Chinese page)
    // are copied whole; only the others go through `fold_char`. The scan
    // reads lead bytes only: 0xE3..=0xE9 starts a three-byte character in
    // U+3000..=U+9FFF, caseless CJK, of which only U+3000 (E3 80 80) folds.
    let bytes = text.as_bytes();
    let mut run_start = 0;
    let mut i = 0;
    while let Some(&lead) = bytes.get(i) {
        let unchanged = match lead {
            0..=0x7F => !lead.is_ascii_uppercase(),
            0xE3..=0xE9 => lead != 0xE3 || bytes.get(i + 1..i + 3) != Some(&[0x80, 0x80][..]),
            _ => false,
        };
        if unchanged {
            i += if lead < 0x80 { 1 } else { 3 };
            continue;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        // Cannot panic: run_start <= i, both character boundaries the scan stepped to.
        out.push_str(&text[run_start..i]);
        fold_char(c, |f| out.push(f));
        i += c.len_utf8();
        run_start = i;
    }
    // Cannot panic: run_start is a character boundary the scan stepped to.
    out.push_str(&text[run_start..]);
}

/// Whether a token carries meaning: it has at least one letter or digit.
/// Punctuation, symbols and whitespace are dropped. (The plain definition
/// [`is_meaningful_word`] is tested against.)
#[cfg(test)]
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
        if is_common_punctuation(c) {
            // Neither a letter or digit nor part of a number; the test
            // below would say so too, through the Unicode tables.
            number_like = false;
        } else if c.is_alphanumeric() {
            alphanumeric = true;
            number_like &= c.is_numeric();
        } else {
            number_like &= matches!(c, '.' | ',' | ':' | '-' | '/' | '%');
        }
    }
    alphanumeric && !number_like
}

/// General punctuation (dashes, quotes, ellipsis) and the CJK punctuation
/// of U+3000..=U+303F (、。《》「」【】): no letter or digit among them (a
/// test checks), so Chinese punctuation tokens skip the Unicode tables.
#[inline]
fn is_common_punctuation(c: char) -> bool {
    matches!(
        u32::from(c),
        0x2000..=0x206F | 0x3000..=0x3004 | 0x3008..=0x3020 | 0x3030 | 0x303D..=0x303F
    )
}

/// Whether a token is only a number, such as a date part, a counter or a
/// price. Those are what changes between two copies of the same page
/// (`阅读 1523 次`, `2024-04-29`), so tokenizers that drop them keep such copies
/// together. (The plain definition [`is_meaningful_word`] is tested
/// against.)
#[cfg(test)]
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

    fn fold_one_by_one(text: &str) -> String {
        let mut out = String::new();
        text.chars().for_each(|c| fold_char(c, |f| out.push(f)));
        out
    }

    #[test]
    fn run_copying_folds_every_character_like_fold_char() {
        let all: String = (0..=0x10_FFFFu32)
            .filter_map(char::from_u32)
            .flat_map(|c| [c, '中', c, c, 'a'])
            .collect();
        assert_eq!(fold(&all), fold_one_by_one(&all));
    }

    #[test]
    fn run_copying_folds_like_one_character_at_a_time() {
        for text in [
            "",
            "中文ＡＢＣ１２３　Hello",
            "ÄÖ中文İ",
            "abc中",
            "　",
            "ＡＢ",
            "中文没有大写",
            "Mixed ａｂｃ Σ ß ǅ 中文。",
        ] {
            assert_eq!(fold(text), fold_one_by_one(text), "{text:?}");
        }
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
    fn common_punctuation_has_no_letter_or_digit() {
        for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
            if is_common_punctuation(c) {
                assert!(!c.is_alphanumeric(), "U+{:04X}", u32::from(c));
            }
        }
        assert!(is_common_punctuation('。') && is_common_punctuation('…'));
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
            "。",
            "、a",
            "——",
            "〇〇",
            "1…",
            "“x”",
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
