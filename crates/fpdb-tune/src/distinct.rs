//! Texts that are not reposts of one another, judged by their own words
//! rather than by any fingerprint: a text is a repost of an earlier one
//! when a fifth of its shingles are that text's. A sample measured for
//! near-duplicates must hold none of its own, or every setting would be
//! blamed for pairs that are real.

use std::collections::HashMap;

use fpdb_simhash::hash_feature;

use crate::lang::Lang;

/// The share of a text's shingles that, found in one earlier text, make it
/// a repost of that text.
pub const REPOST_SHARE: f64 = 0.2;

/// Shingles that identify reposts: 8 characters (Chinese) or 5 words
/// (space-separated) of letters and digits, hashed, sorted and distinct.
pub fn shingles(text: &str, lang: Lang) -> Vec<u64> {
    let mut out = Vec::new();
    match lang {
        Lang::Zh => {
            let chars: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).collect();
            for window in chars.windows(8) {
                out.push(hash_feature(&window.iter().collect::<String>()));
            }
        }
        Lang::En => {
            let words: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            for window in words.windows(5) {
                out.push(hash_feature(&window.join(" ")));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The texts admitted so far, by their shingles.
#[derive(Debug, Default)]
pub struct Distinct {
    /// The first admitted text each shingle was seen in.
    owner: HashMap<u64, u32>,
    admitted: u32,
}

impl Distinct {
    /// Admits `text` unless it shares [`REPOST_SHARE`] of its shingles with
    /// one text admitted before; returns whether it was admitted.
    pub fn admit(&mut self, text: &str, lang: Lang) -> bool {
        let shingles = shingles(text, lang);
        let mut shared: HashMap<u32, usize> = HashMap::new();
        for s in &shingles {
            if let Some(&o) = self.owner.get(s) {
                *shared.entry(o).or_insert(0) += 1;
            }
        }
        let most = shared.values().copied().max().unwrap_or(0);
        if most as f64 >= REPOST_SHARE * shingles.len().max(1) as f64 {
            return false;
        }
        for s in shingles {
            self.owner.entry(s).or_insert(self.admitted);
        }
        self.admitted += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reposts_are_refused_and_different_texts_admitted() {
        let a = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥".repeat(3);
        let b = format!("{a}另外加上一句话");
        let c = "完全不同的一段文字内容用来测试是否保留下来了吗".repeat(3);
        let mut distinct = Distinct::default();
        assert!(distinct.admit(&a, Lang::Zh));
        assert!(!distinct.admit(&b, Lang::Zh));
        assert!(distinct.admit(&c, Lang::Zh));
        let en = "the river rose over the old stone bridge before dawn on monday";
        assert!(distinct.admit(en, Lang::En));
        assert!(!distinct.admit(&format!("Breaking: {en}!"), Lang::En));
    }

    #[test]
    fn english_shingles_are_five_lowercased_words() {
        assert_eq!(shingles("One two three four", Lang::En), Vec::<u64>::new());
        assert_eq!(
            shingles("One two, THREE four five", Lang::En),
            vec![hash_feature("one two three four five")]
        );
    }
}
