//! The text of an HTML document: its main content, or all visible text.

use std::collections::HashSet;
use std::sync::LazyLock;

use dom_query::{Document, Matcher, Selection};
use dom_smoothie::{Config, Readability, TextMode};

/// Elements whose text is never shown.
const INVISIBLE: &str = "head, script, style, noscript, template, svg, iframe, object";
/// Headings, left out of the main content's text.
const HEADINGS: &str = "h1, h2, h3, h4, h5, h6";

// Selectors compiled once per process: parsing one took about 2 % of a
// page's extraction. (`None` cannot happen, a test says so; the text
// selector is used then.)
static INVISIBLE_MATCHER: LazyLock<Option<Matcher>> =
    LazyLock::new(|| Matcher::new(INVISIBLE).ok());
static HEADINGS_MATCHER: LazyLock<Option<Matcher>> = LazyLock::new(|| Matcher::new(HEADINGS).ok());

/// The elements of `document` that `css` selects, through its compiled
/// `matcher` when there is one.
fn select<'d>(document: &'d Document, css: &str, matcher: &Option<Matcher>) -> Selection<'d> {
    match matcher {
        Some(matcher) => document.select_matcher(matcher),
        None => document.select(css),
    }
}
/// Main content shorter than this (in characters) is not trusted: the
/// extractor found a caption or a teaser, not the article.
const MIN_MAIN_CHARS: usize = 40;

/// The main content's text, or `None` when the extractor finds none
/// worth trusting.
pub fn main_text(html: &str) -> Option<String> {
    let config = Config {
        max_elements_to_parse: crate::MAX_ELEMENTS,
        text_mode: TextMode::Formatted,
        // A short Chinese article is well below readability.js's 500
        // characters of English.
        char_threshold: 200,
        ..Config::default()
    };
    let document = Document::from(html);
    // Headings are not body text: one template shows the headline inside
    // the article, another above it, and the extractor keeps it only in
    // the first case (11 bits apart on data/golden/html's tea pages).
    let headings: HashSet<String> = select(&document, HEADINGS, &HEADINGS_MATCHER)
        .iter()
        .map(|heading| heading.text().trim().to_string())
        .filter(|heading| !heading.is_empty())
        .collect();
    let mut readability = Readability::with_document(document, None, Some(config)).ok()?;
    let article = readability.parse().ok()?;
    let body: Vec<&str> = article
        .text_content
        .lines()
        .filter(|line| !headings.contains(line.trim()))
        .collect();
    let text = normalize(&body.join("\n"));
    (text.chars().count() >= MIN_MAIN_CHARS).then_some(text)
}

/// All visible text of the body, one block per line.
pub fn visible_text(html: &str) -> String {
    let document = Document::from(html);
    select(&document, INVISIBLE, &INVISIBLE_MATCHER).remove();
    normalize(&document.formatted_text())
}

/// Trims every line and drops empty ones.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selectors_compile() {
        assert!(INVISIBLE_MATCHER.is_some());
        assert!(HEADINGS_MATCHER.is_some());
    }
}
