//! Cutting long text into pieces for word segmentation.
//!
//! Segmenting a 100 MB document in one call would hold every token of it in
//! memory at once. Text is cut into chunks of at most a fixed size instead,
//! preferably at a line break, else after sentence punctuation or
//! whitespace, so that a cut almost never splits a word. The cut points
//! depend only on the text, so fingerprints stay deterministic; a document
//! shorter than one chunk is never cut.

/// Calls `each` with consecutive pieces of `text`, each at most `max_bytes`
/// long unless one character is longer, together covering `text` exactly.
pub(crate) fn for_each_chunk(text: &str, max_bytes: usize, mut each: impl FnMut(&str)) {
    let mut rest = text;
    while !rest.is_empty() {
        let cut = cut_point(rest, max_bytes);
        let (chunk, tail) = rest.split_at(cut);
        each(chunk);
        rest = tail;
    }
}

/// Where to end the first chunk of `text`: a byte offset on a character
/// boundary, greater than 0.
fn cut_point(text: &str, max_bytes: usize) -> usize {
    if text.len() <= max_bytes {
        return text.len();
    }
    let mut limit = max_bytes.max(1);
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    if limit == 0 {
        // A single character longer than max_bytes: take it whole.
        return text.chars().next().map_or(text.len(), char::len_utf8);
    }
    let window = text.get(..limit).unwrap_or(text);
    let after = |(i, c): (usize, char)| i + c.len_utf8();
    window
        .char_indices()
        .rev()
        .find(|&(_, c)| c == '\n')
        .or_else(|| {
            window
                .char_indices()
                .rev()
                .find(|&(_, c)| is_sentence_end(c) || c.is_whitespace())
        })
        .map_or(limit, after)
}

fn is_sentence_end(c: char) -> bool {
    matches!(
        c,
        '。' | '！' | '？' | '；' | '，' | '.' | '!' | '?' | ';' | ','
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(text: &str, max: usize) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let cut = cut_point(rest, max);
            out.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        out
    }

    #[test]
    fn short_text_is_one_chunk() {
        assert_eq!(chunks("你好世界", 100), ["你好世界"]);
    }

    #[test]
    fn prefers_line_breaks_then_punctuation() {
        assert_eq!(chunks("ab\ncd ef", 6), ["ab\n", "cd ef"]);
        assert_eq!(chunks("你好。世界", 12), ["你好。", "世界"]);
    }

    #[test]
    fn never_splits_a_character_and_covers_everything() {
        let text = "中文没有空格也能切开".repeat(10);
        for max in 1..20 {
            let pieces = chunks(&text, max);
            assert_eq!(pieces.concat(), text);
            assert!(pieces
                .iter()
                .all(|p| !p.is_empty() && p.len() <= max.max(3)));
        }
    }

    #[test]
    fn for_each_chunk_matches_cut_points() {
        let text = "one two three four five six";
        let mut got = Vec::new();
        for_each_chunk(text, 8, |c| got.push(c.to_string()));
        assert_eq!(got.concat(), text);
        assert_eq!(got, chunks(text, 8));
    }
}
