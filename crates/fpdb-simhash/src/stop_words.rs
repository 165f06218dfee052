//! Words too common to tell documents apart, in Chinese and English.
//!
//! A near-duplicate detector must weigh what a page is about, not its
//! grammar: particles, pronouns and prepositions appear everywhere and would
//! pull unrelated pages' fingerprints together. The list is short on purpose;
//! rarer words are handled by weighting (tf-idf), not by this list.

use std::sync::LazyLock;

use crate::feature_hash::hash_feature;

const CHINESE: &[&str] = &[
    "的",
    "了",
    "是",
    "在",
    "和",
    "就",
    "都",
    "而",
    "及",
    "与",
    "着",
    "或",
    "之",
    "也",
    "还",
    "但",
    "又",
    "被",
    "把",
    "让",
    "给",
    "从",
    "对",
    "向",
    "于",
    "以",
    "为",
    "则",
    "即",
    "并",
    "很",
    "更",
    "最",
    "再",
    "已",
    "将",
    "能",
    "会",
    "要",
    "得",
    "地",
    "所",
    "其",
    "此",
    "该",
    "这",
    "那",
    "哪",
    "个",
    "些",
    "每",
    "各",
    "我",
    "你",
    "您",
    "他",
    "她",
    "它",
    "们",
    "啊",
    "吗",
    "呢",
    "吧",
    "呀",
    "哦",
    "嗯",
    "么",
    "一个",
    "一些",
    "一种",
    "这个",
    "那个",
    "这些",
    "那些",
    "这样",
    "那样",
    "这种",
    "那种",
    "我们",
    "你们",
    "他们",
    "她们",
    "它们",
    "自己",
    "什么",
    "怎么",
    "怎样",
    "为什么",
    "因为",
    "所以",
    "如果",
    "虽然",
    "但是",
    "然后",
    "而且",
    "并且",
    "或者",
    "还是",
    "就是",
    "可以",
    "没有",
    "不是",
    "已经",
    "以及",
    "其中",
    "之后",
    "之前",
    "以后",
    "以前",
    "通过",
    "进行",
    "对于",
    "关于",
    "由于",
    "这里",
    "那里",
    "如何",
    "等等",
    "的话",
    "一下",
    "一样",
    "一直",
    "只是",
    "只有",
    "不过",
    "而是",
    "以上",
    "以下",
];

const ENGLISH: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had",
    "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in",
    "into", "is", "it", "its", "itself", "just", "may", "me", "might", "more", "most", "must",
    "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our",
    "ours", "out", "over", "own", "same", "shall", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
    "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours",
];

/// Slots of the stop-word table: a power of two, at least twice the
/// number of stop words (a test checks), so that probes stay short.
const TABLE_BITS: u32 = 10;
const TABLE_MASK: usize = (1 << TABLE_BITS) - 1;

/// The stop words by feature hash ([`hash_feature`]), in an open-addressing
/// table with linear probing. A token's feature hash is computed once for
/// its vote anyway, so the lookup costs about one probe and, on a hash
/// match, one string comparison.
static STOP_WORDS: LazyLock<Vec<Option<(u64, &'static str)>>> = LazyLock::new(|| {
    let mut slots = vec![None; TABLE_MASK + 1];
    for word in stop_words() {
        let hash = hash_feature(word);
        let mut slot = home_slot(hash);
        // The table has more slots than words, so a free one is found.
        for _ in 0..=TABLE_MASK {
            match slots.get_mut(slot) {
                Some(free @ None) => {
                    *free = Some((hash, word));
                    break;
                }
                _ => slot = (slot + 1) & TABLE_MASK,
            }
        }
    }
    slots
});

/// Where the probe for `hash` starts: its top bits.
#[inline]
fn home_slot(hash: u64) -> usize {
    usize::try_from(hash >> (64 - TABLE_BITS)).unwrap_or(0)
}

/// Whether `word` (already folded to lower case) is a stop word.
#[inline]
pub fn is_stop_word(word: &str) -> bool {
    is_stop_word_hashed(word, hash_feature(word))
}

/// [`is_stop_word`] for a word whose feature hash is known.
#[inline]
pub(crate) fn is_stop_word_hashed(word: &str, hash: u64) -> bool {
    let mut slot = home_slot(hash);
    while let Some(Some((stored, stop_word))) = STOP_WORDS.get(slot) {
        if *stored == hash && *stop_word == word {
            return true;
        }
        slot = (slot + 1) & TABLE_MASK;
    }
    false
}

/// Every stop word, Chinese first, for building other filters from.
pub fn stop_words() -> impl Iterator<Item = &'static str> {
    CHINESE.iter().chain(ENGLISH).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_both_languages() {
        assert!(is_stop_word("的"));
        assert!(is_stop_word("我们"));
        assert!(is_stop_word("the"));
        assert!(!is_stop_word("指纹"));
        assert!(!is_stop_word("fingerprint"));
    }

    #[test]
    fn list_is_lower_case_without_duplicates() {
        let all: Vec<&str> = stop_words().collect();
        let unique: std::collections::HashSet<&str> = all.iter().copied().collect();
        assert_eq!(all.len(), unique.len());
        assert!(all.iter().all(|w| w.to_lowercase() == *w));
    }

    #[test]
    fn table_holds_every_stop_word_and_nothing_else() {
        let all: Vec<&str> = stop_words().collect();
        assert!(2 * all.len() <= TABLE_MASK + 1, "{} stop words", all.len());
        assert!(all.iter().all(|w| is_stop_word(w)));
        assert_eq!(STOP_WORDS.iter().flatten().count(), all.len());
        for word in ["", "指纹", "fingerprint", "th", "thee", "的的", "我们的"] {
            assert!(!is_stop_word(word), "{word}");
        }
    }
}
