//! The differences between two copies of one page that a crawler meets, as
//! functions that plant them into a text.

use crate::articles::is_han;
use crate::rng::Rng;

/// One kind of edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// About 1% of the characters replaced by other Chinese characters.
    Chars1Percent,
    /// A site header (navigation) before and a footer (editor, source,
    /// share links) after the text.
    HeaderFooter,
    /// Dates and counters: every number changed, and a publication date with
    /// a view counter added.
    DatesCounters,
    /// One sentence removed.
    DropSentence,
}

impl EditKind {
    /// Every kind, in report order.
    pub const ALL: [EditKind; 4] = [
        EditKind::Chars1Percent,
        EditKind::HeaderFooter,
        EditKind::DatesCounters,
        EditKind::DropSentence,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Chars1Percent => "1% chars",
            EditKind::HeaderFooter => "header+footer",
            EditKind::DatesCounters => "dates+counters",
            EditKind::DropSentence => "drop sentence",
        }
    }

    /// `text` with this edit planted.
    pub fn apply(self, text: &str, rng: &mut Rng) -> String {
        match self {
            EditKind::Chars1Percent => replace_chars(text, 0.01, rng),
            EditKind::HeaderFooter => wrap_header_footer(text, rng),
            EditKind::DatesCounters => change_dates_counters(text, rng),
            EditKind::DropSentence => drop_sentence(text, rng),
        }
    }
}

/// Chinese characters to substitute with: common, meaning-bearing ones.
const REPLACEMENT_CHARS: &str = "天地人山水火木金土日月风云雨雪花草树林田石江河湖海东西南北前后左右上下高低大小长短新旧明暗红黄蓝绿白黑春夏秋冬年时分秒";

/// Replaces `fraction` of the Chinese characters (at least one).
pub fn replace_chars(text: &str, fraction: f64, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let positions: Vec<usize> = (0..chars.len()).filter(|&i| is_han(chars[i])).collect();
    if positions.is_empty() {
        return text.to_string();
    }
    let replacements: Vec<char> = REPLACEMENT_CHARS.chars().collect();
    let count = ((chars.len() as f64 * fraction).round() as usize).max(1);
    for _ in 0..count {
        let at = positions[rng.below(positions.len())];
        let mut with = *rng.pick(&replacements).unwrap_or(&'天');
        while with == chars[at] {
            with = *rng.pick(&replacements).unwrap_or(&'地');
        }
        chars[at] = with;
    }
    chars.into_iter().collect()
}

const SITES: &[&str] = &[
    "科技日报",
    "新浪科技",
    "网易新闻",
    "技术博客园",
    "开发者社区",
];
const SECTIONS: &[&str] = &["科技频道", "互联网", "数据技术", "算法专栏", "前沿资讯"];
const EDITORS: &[&str] = &["王磊", "李娜", "张伟", "刘洋", "陈静"];

/// A navigation header and a footer around the text, as a site template
/// adds them.
pub fn wrap_header_footer(text: &str, rng: &mut Rng) -> String {
    let site = rng.pick(SITES).copied().unwrap_or("网站");
    let section = rng.pick(SECTIONS).copied().unwrap_or("频道");
    let editor = rng.pick(EDITORS).copied().unwrap_or("编辑");
    format!(
        "首页 > {section} > 正文\n{text}\n责任编辑：{editor}　来源：{site}　分享到：微博 微信 QQ空间"
    )
}

/// Every run of digits replaced by other digits, and a date line with a
/// view counter appended.
pub fn change_dates_counters(text: &str, rng: &mut Rng) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        if c.is_ascii_digit() {
            out.push(char::from(b'0' + (rng.below(10) as u8)));
        } else {
            out.push(c);
        }
    }
    let year = 2015 + rng.below(10);
    let month = 1 + rng.below(12);
    let day = 1 + rng.below(28);
    let views = rng.below(100_000);
    out.push_str(&format!(
        "\n发布时间：{year}年{month}月{day}日 {:02}:{:02}　阅读 {views} 次",
        rng.below(24),
        rng.below(60)
    ));
    out
}

/// The text without one of its sentences (a clause when it has only one
/// sentence).
pub fn drop_sentence(text: &str, rng: &mut Rng) -> String {
    for ends in [
        &['。', '！', '？', '；', '.', '!', '?'][..],
        &['，', ','][..],
    ] {
        let pieces = split_after(text, ends);
        if pieces.len() >= 2 {
            let skip = rng.below(pieces.len());
            return pieces
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, p)| *p)
                .collect();
        }
    }
    text.to_string()
}

/// Splits after each of `ends`, keeping the delimiter with its piece and
/// dropping empty trailing pieces.
fn split_after<'a>(text: &'a str, ends: &[char]) -> Vec<&'a str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if ends.contains(&c) {
            let end = i + c.len_utf8();
            pieces.push(&text[start..end]);
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        pieces.push(&text[start..]);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "第一句话在这里。第二句话在这里！第三句话，还有逗号？";

    #[test]
    fn replace_changes_about_the_fraction() {
        let text = "汉".repeat(300);
        let edited = replace_chars(&text, 0.01, &mut Rng::new(1));
        let changed = text
            .chars()
            .zip(edited.chars())
            .filter(|(a, b)| a != b)
            .count();
        assert!((1..=3).contains(&changed), "{changed}");
        assert_eq!(edited.chars().count(), 300);
    }

    #[test]
    fn drop_sentence_removes_exactly_one() {
        let edited = drop_sentence(TEXT, &mut Rng::new(7));
        assert_eq!(split_after(&edited, &['。', '！', '？']).len(), 2);
        assert!(edited.len() < TEXT.len());
    }

    #[test]
    fn dates_change_digits_and_add_a_line() {
        let edited = change_dates_counters("版本2024发布", &mut Rng::new(3));
        assert!(edited.starts_with("版本"));
        assert!(edited.contains("阅读"));
    }

    #[test]
    fn wrap_keeps_text() {
        let edited = wrap_header_footer(TEXT, &mut Rng::new(3));
        assert!(edited.contains(TEXT) && edited.len() > TEXT.len());
    }
}
