//! Real text: paragraphs of Chinese articles, by default those written for
//! the project in `data/text/` (nothing outside the repository is read
//! unless a directory is named). Markdown front matter, headings, code and
//! list debris are skipped; consecutive prose lines are joined until a
//! paragraph is long enough.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The repository's articles (`data/text/`).
pub fn default_articles_dir() -> PathBuf {
    manifest_dir().join("../data/text")
}

/// Every `.txt` file under `dir`, sorted by name, with its content.
pub fn read_articles(dir: &Path) -> io::Result<Vec<(PathBuf, String)>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| fs::read_to_string(&p).map(|text| (p, text)))
        .collect()
}

/// Paragraphs of prose between `min_chars` and `max_chars` characters long.
pub fn paragraphs(article: &str, min_chars: usize, max_chars: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_code = false;
    let mut in_front_matter = false;
    for (number, line) in article.lines().enumerate() {
        let line = line.trim();
        if line == "+++" || (number == 0 && line == "---") {
            in_front_matter = !in_front_matter;
            continue;
        }
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || in_front_matter || !is_prose(line) {
            flush(&mut current, &mut out, min_chars, max_chars);
            continue;
        }
        current.push_str(line);
        if current.chars().count() >= min_chars {
            flush(&mut current, &mut out, min_chars, max_chars);
        }
    }
    flush(&mut current, &mut out, min_chars, max_chars);
    out
}

/// A line is prose when it is not a heading and at least half of its
/// characters are Chinese.
fn is_prose(line: &str) -> bool {
    if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
        return false;
    }
    let total = line.chars().count();
    let han = line.chars().filter(|&c| is_han(c)).count();
    han * 2 >= total && han >= 10
}

/// CJK unified ideographs.
pub fn is_han(c: char) -> bool {
    matches!(u32::from(c), 0x4E00..=0x9FFF | 0x3400..=0x4DBF)
}

/// Moves `current` into `out` if it is long enough (cut at `max_chars`,
/// preferably at a sentence end), else drops it.
fn flush(current: &mut String, out: &mut Vec<String>, min_chars: usize, max_chars: usize) {
    let chars: Vec<char> = current.chars().collect();
    current.clear();
    if chars.len() < min_chars {
        return;
    }
    if chars.len() <= max_chars {
        out.push(chars.into_iter().collect());
        return;
    }
    let window = &chars[..max_chars];
    let cut = window
        .iter()
        .rposition(|c| matches!(c, '。' | '！' | '？' | '；'))
        .map_or(max_chars, |i| i + 1);
    if cut >= min_chars {
        out.push(chars[..cut].iter().collect());
    }
}

/// Every paragraph of every seed article, in a fixed order.
pub fn article_paragraphs(
    dir: &Path,
    min_chars: usize,
    max_chars: usize,
) -> io::Result<Vec<String>> {
    Ok(read_articles(dir)?
        .iter()
        .flat_map(|(_, text)| paragraphs(text, min_chars, max_chars))
        .collect())
}

/// This crate's directory. Cargo sets it when it runs the binary; the
/// compile-time value can name another checkout when a shared target
/// directory hands over a binary built there.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_front_matter_code_and_headings() {
        let text = "+++\ntitle = '标题标题标题标题标题标题'\n+++\n# 一个标题一个标题一个标题一个标题\n```\n代码代码代码代码代码代码代码代码代码代码\n```\n这是一段足够长的中文正文，用来测试段落的提取是否正确。\n";
        assert_eq!(
            paragraphs(text, 10, 100),
            ["这是一段足够长的中文正文，用来测试段落的提取是否正确。"]
        );
    }

    #[test]
    fn joins_lines_and_cuts_at_sentence_ends() {
        let text = "第一行中文内容第一行中文内容。\n第二行中文内容第二行中文内容。\n";
        assert_eq!(
            paragraphs(text, 20, 100),
            ["第一行中文内容第一行中文内容。第二行中文内容第二行中文内容。"]
        );
        assert_eq!(
            paragraphs(text, 10, 20),
            [
                "第一行中文内容第一行中文内容。",
                "第二行中文内容第二行中文内容。"
            ]
        );
    }
}
