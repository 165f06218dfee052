//! Reading a Rust source file as far as module references go: comments,
//! string and character literals blanked out (so `crate::x` in a doc
//! comment or a message is not a reference), and `#[cfg(test)]` items
//! removed (test code does not make a layering cycle).

/// `text` with comments and literals replaced by spaces; line breaks are
/// kept, so line numbers stay right.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while let Some(&c) = chars.get(i) {
                if c == '\n' {
                    break;
                }
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while let Some(&c) = chars.get(i) {
                let next = chars.get(i + 1).copied();
                if c == '/' && next == Some('*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c == '*' && next == Some('/') {
                    depth = depth.saturating_sub(1);
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c));
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !is_ident(chars.get(i.wrapping_sub(1)))
        {
            // A raw string: r"…" or r#"…"#.
            let hashes = chars
                .get(i + 1..)
                .map_or(0, |rest| rest.iter().take_while(|&&c| c == '#').count());
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push_str(&" ".repeat(2 + hashes));
            i += 2 + hashes;
            while let Some(&c) = chars.get(i) {
                let closes = c == '"' && (1..=hashes).all(|h| chars.get(i + h) == Some(&'#'));
                if closes {
                    out.push_str(&" ".repeat(1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(c));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while let Some(&c) = chars.get(i) {
                if c == '\\' {
                    out.push(' ');
                    if let Some(&escaped) = chars.get(i + 1) {
                        out.push(blank(escaped));
                    }
                    i += 2;
                    continue;
                }
                out.push(blank(c));
                i += 1;
                if c == '"' {
                    break;
                }
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime.
            let end = match (next, chars.get(i + 2)) {
                (Some('\\'), _) => chars
                    .get(i + 2..)
                    .and_then(|rest| rest.iter().position(|&c| c == '\''))
                    .map(|p| i + 2 + p),
                (Some(_), Some('\'')) => Some(i + 2),
                _ => None,
            };
            match end {
                Some(end) => {
                    out.push_str(&" ".repeat(end + 1 - i));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// `code` (already through [`code_only`]) with every item marked
/// `#[cfg(test)]` blanked out, and the names of the `mod name;`
/// declarations so marked (their files are test code too).
pub fn without_test_items(code: &str) -> (String, Vec<String>) {
    let mut out: Vec<char> = code.chars().collect();
    let mut test_modules = Vec::new();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= out.len() {
        if out.get(i..i + marker.len()) != Some(&marker[..]) {
            i += 1;
            continue;
        }
        // The item runs to its first `;` at depth 0 or its first `{ … }`.
        let mut j = i + marker.len();
        let mut end = None;
        while let Some(&c) = out.get(j) {
            if c == ';' {
                end = Some(j);
                break;
            }
            if c == '{' {
                end = matching_brace(&out, j);
                break;
            }
            j += 1;
        }
        let end = end.unwrap_or(out.len().saturating_sub(1));
        let item: String = out
            .get(i..=end)
            .map(|s| s.iter().collect())
            .unwrap_or_default();
        if let Some(name) = declared_module(&item) {
            test_modules.push(name);
        }
        for c in out.iter_mut().take(end + 1).skip(i) {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end + 1;
    }
    (out.into_iter().collect(), test_modules)
}

/// The index of the `}` closing the `{` at `open`.
fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, &c) in chars.get(open..)?.iter().enumerate() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(open + offset);
                }
            }
            _ => {}
        }
    }
    None
}

/// `name` of an item `… mod name;`.
fn declared_module(item: &str) -> Option<String> {
    let words: Vec<&str> = item
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|&w| w == "mod")?;
    let name = words.get(at + 1)?;
    item.trim_end().ends_with(';').then(|| (*name).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_literals_are_blanked_lines_kept() {
        let text = "use crate::a; // crate::b\n/* crate::c\n */ let s = \"crate::d\";\nlet r = r#\"crate::e\"#; let c = '\"'; fn f<'a>() {}\n";
        let code = code_only(text);
        assert!(code.contains("use crate::a;"));
        for hidden in ["crate::b", "crate::c", "crate::d", "crate::e"] {
            assert!(!code.contains(hidden), "{hidden} in {code}");
        }
        assert!(code.contains("fn f<'a>()"));
        assert_eq!(code.lines().count(), text.lines().count());
    }

    #[test]
    fn test_items_are_removed_and_test_module_files_named() {
        let code = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n#[cfg(test)]\nmod helpers;\nfn f() {}\n";
        let (kept, test_modules) = without_test_items(code);
        assert!(kept.contains("crate::a") && kept.contains("fn f()"));
        assert!(!kept.contains("crate::b"));
        assert_eq!(test_modules, ["helpers"]);
        assert_eq!(kept.lines().count(), code.lines().count());
    }
}
