//! A linear look at markup before it is parsed: how many elements and how
//! deeply nested. DOM walks (the readability extractor's scoring, the
//! visible-text walk) cost time quadratic in the nesting depth, so a
//! hostile page of 100,000 nested `<div>`s would stall a crawler for
//! minutes; such pages are read by [`stripped_text`] instead.

/// Deepest nesting the DOM paths accept; real pages stay far below.
pub const MAX_DEPTH: usize = 512;
/// Most elements the DOM paths accept.
pub const MAX_ELEMENTS: usize = 50_000;

/// Elements whose content is not text.
const RAW: [&str; 6] = ["script", "style", "noscript", "template", "svg", "head"];

/// Elements that never have an end tag.
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Whether the DOM paths can read `html` in bounded time. The depth is an
/// upper bound of the real one (implied end tags are not inferred), so a
/// sloppy but harmless page may be read the linear way too.
pub fn fits_dom(html: &str) -> bool {
    let mut elements = 0usize;
    let mut depth = 0usize;
    for tag in tags(html) {
        match tag {
            Tag::Start(name, self_closing) => {
                elements += 1;
                if !self_closing && !VOID.iter().any(|v| name.eq_ignore_ascii_case(v)) {
                    depth += 1;
                }
                if elements > MAX_ELEMENTS || depth > MAX_DEPTH {
                    return false;
                }
            }
            Tag::End => depth = depth.saturating_sub(1),
        }
    }
    true
}

/// The text between tags, without comments and the content of scripts,
/// styles and the head; a few common entities decoded. Linear in the
/// input: the reading of pages too deep or too large for a DOM.
pub fn stripped_text(html: &str) -> String {
    let mut out = String::new();
    let mut skip_until: Option<&str> = None;
    for piece in pieces(html) {
        match piece {
            Piece::Text(text) if skip_until.is_none() => push_text(&mut out, text),
            Piece::Text(_) => {}
            Piece::Tag(tag) => {
                let name = tag_name(tag);
                let closing = tag.starts_with("</");
                match skip_until {
                    Some(raw) if closing && name.eq_ignore_ascii_case(raw) => skip_until = None,
                    Some(_) => {}
                    None => {
                        if !closing {
                            skip_until = RAW
                                .iter()
                                .copied()
                                .find(|raw| name.eq_ignore_ascii_case(raw));
                        }
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}

fn push_text(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        let (before, after) = rest.split_at(amp);
        out.push_str(before);
        // Byte offsets of ASCII characters found by `find`: boundaries.
        let end = after.find(';').filter(|&end| end <= 10);
        match end.and_then(|end| entity(after.get(1..end)?).map(|c| (c, end))) {
            Some((c, end)) => {
                out.push(c);
                // Cannot panic: after[end] is the ';' found there, one byte.
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                // Cannot panic: after begins with the '&' found there, one byte.
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
}

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

enum Tag<'a> {
    /// A start tag's name, and whether it ends in `/>`.
    Start(&'a str, bool),
    End,
}

/// Start and end tags in order (comments and declarations skipped).
fn tags(html: &str) -> impl Iterator<Item = Tag<'_>> {
    pieces(html).filter_map(|piece| {
        let Piece::Tag(tag) = piece else {
            return None;
        };
        let name = tag_name(tag);
        if name.is_empty() {
            None
        } else if tag.starts_with("</") {
            Some(Tag::End)
        } else {
            Some(Tag::Start(name, tag.ends_with("/>")))
        }
    })
}

/// Markup cut into text and tags (`<…>`), comments left out.
enum Piece<'a> {
    Text(&'a str),
    Tag(&'a str),
}

fn pieces(html: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = html;
    std::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        // memchr's SIMD search: `str::find` took most of this scan's time.
        let Some(open) = memchr::memchr(b'<', rest.as_bytes()) else {
            return Some(Piece::Text(std::mem::take(&mut rest)));
        };
        if open > 0 {
            let (text, after) = rest.split_at(open);
            rest = after;
            return Some(Piece::Text(text));
        }
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = after_comment(comment);
            continue;
        }
        let close = memchr::memchr(b'>', rest.as_bytes()).map_or(rest.len(), |end| end + 1);
        let (tag, after) = rest.split_at(close);
        rest = after;
        return Some(Piece::Tag(tag));
    })
}

/// What follows the `-->` ending a comment (nothing if it never ends).
fn after_comment(comment: &str) -> &str {
    // `-->` is ASCII: the byte past it is a character boundary.
    memchr::memmem::find(comment.as_bytes(), b"-->").map_or("", |end| &comment[end + 3..])
}

/// The name of a tag such as `<div class=x>` or `</p>` ("" for `<!…>`,
/// `<?…>` and stray `<`).
fn tag_name(tag: &str) -> &str {
    let inner = tag.trim_start_matches('<').trim_start_matches('/');
    let end = inner
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(inner.len());
    inner.split_at(end).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_or_huge_markup_does_not_fit() {
        assert!(fits_dom(
            "<html><body><div><p>a<br>b</p><img src=x></div></body></html>"
        ));
        assert!(!fits_dom(&"<div>".repeat(MAX_DEPTH + 1)));
        assert!(fits_dom(&"<div></div>".repeat(1000)));
        assert!(!fits_dom(&"<br>".repeat(MAX_ELEMENTS + 1)));
    }

    #[test]
    fn stripping_keeps_text_and_drops_code() {
        let html = "<html><head><title>t</title></head><body><p>中文&amp;English&#x4e2d;</p>\
                    <script>var x = '<p>';</script><!-- <p>hidden</p> --><style>p{}</style>尾</body></html>";
        let text = stripped_text(html);
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(words, ["中文&English中", "尾"]);
    }
}
