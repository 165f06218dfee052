//! The differences between two copies of one page that a crawler meets,
//! planted into real text, in Chinese or in English.
//!
//! (`benches/src/edits.rs` keeps the older Chinese-only edits unchanged:
//! `make_corpus` generates the demo corpus in `data/` from them, and that
//! file must not change.)

use fpdb_rng::Rng;

use crate::lang::{is_han, sentences, Lang};

/// One kind of difference between a page and its copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    /// Chinese: 1% of the Chinese characters replaced by other common
    /// characters. English: 1% of the words (at least one) get one typo —
    /// two letters swapped, one dropped, doubled or replaced by a
    /// neighbour on the keyboard.
    Typos,
    /// A portal's navigation and breadcrumb before the text, its editor,
    /// source, share links and copyright after it.
    HeaderFooter,
    /// Every digit changed, and a publication date with view and comment
    /// counters added.
    DatesCounters,
    /// One sentence removed (a clause when there is one sentence).
    DropSentence,
    /// A mirror: a sentence dropped, typos, new dates and counters, and
    /// the mirror site's header and footer, all at once.
    Mirror,
}

impl EditKind {
    /// Every kind, in the order reports show them.
    pub const ALL: [EditKind; 5] = [
        EditKind::Typos,
        EditKind::HeaderFooter,
        EditKind::DatesCounters,
        EditKind::DropSentence,
        EditKind::Mirror,
    ];

    /// The kind's name in a report.
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Typos => "1% typos",
            EditKind::HeaderFooter => "header+footer",
            EditKind::DatesCounters => "dates+counters",
            EditKind::DropSentence => "drop sentence",
            EditKind::Mirror => "mirror",
        }
    }

    /// A copy of `text` with this kind of edit, drawn from `rng`.
    pub fn apply(self, text: &str, lang: Lang, rng: &mut Rng) -> String {
        match self {
            EditKind::Typos => typos(text, lang, rng),
            EditKind::HeaderFooter => header_footer(text, lang, rng),
            EditKind::DatesCounters => dates_counters(text, lang, rng),
            EditKind::DropSentence => drop_sentence(text, lang, rng),
            EditKind::Mirror => {
                let text = drop_sentence(text, lang, rng);
                let text = typos(&text, lang, rng);
                let text = dates_counters(&text, lang, rng);
                header_footer(&text, lang, rng)
            }
        }
    }
}

/// Common, meaning-bearing characters to substitute with.
const HAN_REPLACEMENTS: &str = "天地人山水火木金土日月风云雨雪花草树林田石江河湖海东西南北前后左右上下高低大小长短新旧明暗红黄蓝绿白黑春夏秋冬年时分秒";

fn typos(text: &str, lang: Lang, rng: &mut Rng) -> String {
    match lang {
        Lang::Zh => han_typos(text, rng),
        Lang::En => word_typos(text, rng),
    }
}

#[expect(
    clippy::indexing_slicing,
    reason = "positions index chars, and the replacements are not empty"
)]
fn han_typos(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let positions: Vec<usize> = (0..chars.len()).filter(|&i| is_han(chars[i])).collect();
    if positions.is_empty() {
        return text.to_string();
    }
    let replacements: Vec<char> = HAN_REPLACEMENTS.chars().collect();
    let count = ((positions.len() as f64 * 0.01).round() as usize).max(1);
    for _ in 0..count {
        let at = *rng.pick(&positions).expect("a non-empty list");
        let mut with = *rng.pick(&replacements).expect("a non-empty list");
        while with == chars[at] {
            with = *rng.pick(&replacements).expect("a non-empty list");
        }
        chars[at] = with;
    }
    chars.into_iter().collect()
}

/// Letters next to each letter on a QWERTY keyboard.
#[expect(
    clippy::indexing_slicing,
    reason = "j is a neighbour of i inside the row"
)]
fn keyboard_neighbour(c: char, rng: &mut Rng) -> char {
    const ROWS: [&str; 3] = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
    let lower = c.to_ascii_lowercase();
    for row in ROWS {
        if let Some(i) = row.find(lower) {
            let row = row.as_bytes();
            let j = if i == 0 {
                1
            } else if i + 1 == row.len() || rng.below(2) == 0 {
                i - 1
            } else {
                i + 1
            };
            let n = char::from(row[j]);
            return if c.is_ascii_uppercase() {
                n.to_ascii_uppercase()
            } else {
                n
            };
        }
    }
    c
}

#[expect(
    clippy::indexing_slicing,
    reason = "words are byte ranges of text at char boundaries, in order; i indexes the word's letters"
)]
fn word_typos(text: &str, rng: &mut Rng) -> String {
    // Byte ranges of the words of three or more ASCII letters.
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= 3 {
                    words.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if words.is_empty() {
        return text.to_string();
    }
    let all_words = text.split_whitespace().count();
    let count = ((all_words as f64 * 0.01).round() as usize).max(1);
    let mut chosen: Vec<usize> = (0..count).map(|_| rng.below(words.len())).collect();
    chosen.sort_unstable();
    chosen.dedup();
    let mut out = String::with_capacity(text.len() + count);
    let mut at = 0;
    for w in chosen {
        let (s, e) = words[w];
        out.push_str(&text[at..s]);
        let mut letters: Vec<char> = text[s..e].chars().collect();
        let i = rng.below(letters.len());
        match rng.below(4) {
            0 if i + 1 < letters.len() && letters[i] != letters[i + 1] => letters.swap(i, i + 1),
            1 => {
                letters.remove(i);
            }
            2 => letters.insert(i, letters[i]),
            _ => letters[i] = keyboard_neighbour(letters[i], rng),
        }
        out.extend(letters);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

struct Portal {
    sections: &'static [&'static str],
    sites: &'static [&'static str],
    editors: &'static [&'static str],
}

const ZH_PORTAL: Portal = Portal {
    sections: &[
        "首页", "新闻", "国内", "国际", "财经", "科技", "体育", "娱乐", "汽车", "房产", "教育",
        "健康", "旅游", "视频",
    ],
    sites: &[
        "新浪网",
        "网易新闻",
        "搜狐新闻",
        "凤凰网",
        "腾讯新闻",
        "中华网",
    ],
    editors: &["王磊", "李娜", "张伟", "刘洋", "陈静", "赵敏"],
};

const EN_PORTAL: Portal = Portal {
    sections: &[
        "Home",
        "News",
        "Politics",
        "World",
        "Business",
        "Technology",
        "Science",
        "Health",
        "Sports",
        "Opinion",
        "Arts",
        "Travel",
        "Video",
        "Podcasts",
    ],
    sites: &[
        "The Daily Record",
        "National Herald",
        "Capitol Wire",
        "Evening Post",
        "News Today",
        "The Observer",
    ],
    editors: &[
        "Jane Miller",
        "David Brown",
        "Sarah Wilson",
        "Michael Lee",
        "Emily Clark",
        "Robert Hall",
    ],
};

#[expect(
    clippy::indexing_slicing,
    reason = "every portal has more than one section"
)]
fn header_footer(text: &str, lang: Lang, rng: &mut Rng) -> String {
    let portal = match lang {
        Lang::Zh => &ZH_PORTAL,
        Lang::En => &EN_PORTAL,
    };
    let nav: Vec<&str> = portal
        .sections
        .iter()
        .copied()
        .filter(|_| rng.below(3) > 0)
        .collect();
    let section = *rng.pick(&portal.sections[1..]).expect("a non-empty list");
    let site = *rng.pick(portal.sites).expect("a non-empty list");
    let editor = *rng.pick(portal.editors).expect("a non-empty list");
    let year = 2015 + rng.below(10);
    match lang {
        Lang::Zh => format!(
            "{}\n当前位置：首页 > {section} > 正文\n{text}\n责任编辑：{editor}　来源：{site}\n分享到：微博 微信 QQ空间 豆瓣\n关于我们 | 联系我们 | 广告服务 | 网站地图 | 版权声明\n版权所有 © {year} {site} 保留所有权利",
            nav.join(" | ")
        ),
        Lang::En => format!(
            "{}\nYou are here: Home > {section} > Article\n{text}\nEdited by {editor}. Source: {site}.\nShare this article: Facebook Twitter LinkedIn Email\nAbout us | Contact | Advertise | Site map | Terms of use | Privacy policy\nCopyright © {year} {site}. All rights reserved.",
            nav.join(" | ")
        ),
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

#[expect(clippy::indexing_slicing, reason = "the month is drawn below 12")]
fn dates_counters(text: &str, lang: Lang, rng: &mut Rng) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_digit() {
                char::from(b'0' + rng.below(10) as u8)
            } else {
                c
            }
        })
        .collect();
    let year = 2015 + rng.below(10);
    let month = rng.below(12);
    let day = 1 + rng.below(28);
    let (hour, minute) = (rng.below(24), rng.below(60));
    let views = rng.below(100_000);
    let comments = rng.below(1000);
    match lang {
        Lang::Zh => out.push_str(&format!(
            "\n发布时间：{year}年{}月{day}日 {hour:02}:{minute:02}　阅读 {views} 次　评论 {comments}",
            month + 1
        )),
        Lang::En => out.push_str(&format!(
            "\nPublished {} {day}, {year} at {hour:02}:{minute:02}. {views} views, {comments} comments",
            MONTHS[month]
        )),
    }
    out
}

fn drop_sentence(text: &str, lang: Lang, rng: &mut Rng) -> String {
    let pieces = sentences(text, lang);
    if pieces.len() >= 2 {
        return without_one(&pieces, rng);
    }
    // One sentence: drop a clause.
    let clauses: Vec<&str> = text.split_inclusive([',', '，']).collect();
    if clauses.len() >= 2 {
        return without_one(&clauses, rng);
    }
    text.to_string()
}

/// `pieces` joined, less one picked at random.
fn without_one(pieces: &[&str], rng: &mut Rng) -> String {
    let skip = rng.below(pieces.len());
    pieces
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != skip)
        .map(|(_, p)| *p)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn han_typos_change_one_percent() {
        let text = "汉".repeat(300);
        let edited = typos(&text, Lang::Zh, &mut Rng::new(1));
        let changed = text
            .chars()
            .zip(edited.chars())
            .filter(|(a, b)| a != b)
            .count();
        assert!((1..=3).contains(&changed), "{changed}");
    }

    #[test]
    fn word_typos_touch_about_one_word_in_a_hundred() {
        let text = "government ".repeat(300);
        let edited = typos(&text, Lang::En, &mut Rng::new(2));
        let changed = text
            .split_whitespace()
            .zip(edited.split_whitespace())
            .filter(|(a, b)| a != b)
            .count();
        assert!((1..=3).contains(&changed), "{changed}: {edited}");
    }

    #[test]
    fn mirror_keeps_most_of_the_text() {
        let text = "The first sentence is here. The second one follows. A third closes it.";
        let edited = EditKind::Mirror.apply(text, Lang::En, &mut Rng::new(3));
        assert!(edited.contains("Copyright") && edited.contains("Published"));
        assert!(edited.len() > text.len());
    }

    #[test]
    fn drop_sentence_removes_one() {
        let text = "第一句话在这里。第二句话在这里！第三句话，还有逗号？";
        let edited = drop_sentence(text, Lang::Zh, &mut Rng::new(7));
        assert_eq!(sentences(&edited, Lang::Zh).len(), 2);
    }
}
