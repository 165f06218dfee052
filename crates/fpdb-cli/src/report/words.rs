//! Two texts with the words that differ marked, as HTML.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};
use unicode_segmentation::UnicodeSegmentation;

use super::escape;

/// Tokens shown of each text; the rest is summarised by a count.
const SHOWN_TOKENS: usize = 4000;
/// Longest a pair's diff may take: past it the diff is coarser (whole
/// stretches marked), never wrong about what is equal.
const DIFF_TIME: Duration = Duration::from_millis(300);

/// The two texts as HTML, with what only one of them has in `<mark>`.
#[derive(Debug)]
pub struct MarkedPair {
    pub a: String,
    pub b: String,
    /// Words (tokens with a letter or digit) marked in `a` and in `b`.
    pub changed_words: [usize; 2],
}

/// Marks the words of `a` and `b` that the other lacks. Words are
/// Unicode word boundaries (UAX #29), so Chinese splits into characters
/// and English into words, with spaces and punctuation as tokens of
/// their own.
pub fn mark(a: &str, b: &str) -> MarkedPair {
    let old: Vec<&str> = a.split_word_bounds().collect();
    let new: Vec<&str> = b.split_word_bounds().collect();
    let deadline = Instant::now() + DIFF_TIME;
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
    let mut changed_old = vec![false; old.len()];
    let mut changed_new = vec![false; new.len()];
    for op in ops {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => set(&mut changed_old, old_index, old_len),
            DiffOp::Insert {
                new_index, new_len, ..
            } => set(&mut changed_new, new_index, new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                set(&mut changed_old, old_index, old_len);
                set(&mut changed_new, new_index, new_len);
            }
        }
    }
    MarkedPair {
        a: render(&old, &changed_old),
        b: render(&new, &changed_new),
        changed_words: [count(&old, &changed_old), count(&new, &changed_new)],
    }
}

fn set(flags: &mut [bool], start: usize, len: usize) {
    if let Some(range) = flags.get_mut(start..start + len) {
        range.fill(true);
    }
}

fn is_word(token: &str) -> bool {
    token.chars().any(char::is_alphanumeric)
}

fn count(tokens: &[&str], changed: &[bool]) -> usize {
    tokens
        .iter()
        .zip(changed)
        .filter(|(token, changed)| **changed && is_word(token))
        .count()
}

/// The tokens as HTML, each run of changed ones in one `<mark>`.
fn render(tokens: &[&str], changed: &[bool]) -> String {
    let mut html = String::new();
    let mut open = false;
    for (token, &is_changed) in tokens.iter().zip(changed).take(SHOWN_TOKENS) {
        // Spaces between two changed words stay inside the mark; a run
        // starts and ends on a word.
        let marks = is_changed && (open || is_word(token));
        if marks && !open {
            html.push_str("<mark>");
            open = true;
        } else if !marks && open {
            html.push_str("</mark>");
            open = false;
        }
        html.push_str(&escape(token));
    }
    if open {
        html.push_str("</mark>");
    }
    if tokens.len() > SHOWN_TOKENS {
        let rest = tokens.iter().skip(SHOWN_TOKENS).filter(|t| is_word(t));
        html.push_str(&format!(
            r#" <span class="more">… {} more words</span>"#,
            rest.count()
        ));
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_what_differs() {
        let marked = mark("the quick brown fox", "the slow brown fox jumps");
        assert_eq!(marked.a, "the <mark>quick</mark> brown fox");
        assert_eq!(
            marked.b,
            "the <mark>slow</mark> brown fox <mark>jumps</mark>"
        );
        assert_eq!(marked.changed_words, [1, 2]);
    }

    #[test]
    fn chinese_differs_by_character() {
        let marked = mark("今天天气很好", "今天天气不好");
        assert_eq!(marked.changed_words, [1, 1]);
        assert!(marked.a.contains("<mark>很</mark>"), "{}", marked.a);
    }

    #[test]
    fn escapes_what_it_shows() {
        let marked = mark("<b>a</b>", "<b>a</b>");
        assert_eq!(marked.a, "&lt;b&gt;a&lt;/b&gt;");
        assert_eq!(marked.changed_words, [0, 0]);
    }
}
