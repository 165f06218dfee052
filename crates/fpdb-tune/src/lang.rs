//! The two kinds of script the edits know: Chinese (Han characters, no
//! spaces between words) and space-separated text, and where sentences
//! end in each.

/// A text's script, as the edits treat it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Han characters: typos replace characters, sentences end at `。！？`.
    Zh,
    /// Space-separated words: typos change letters, sentences end at `.!?`.
    En,
}

impl Lang {
    /// The language's name in a report.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Zh => "Chinese",
            Lang::En => "English",
        }
    }

    /// A short code (`zh`, `en`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    /// The script of `text`: Chinese when at least a fifth of its letters
    /// are Han characters (a Chinese page keeps some Latin words and
    /// digits), else space-separated.
    pub fn of(text: &str) -> Lang {
        let (mut han, mut letters) = (0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphanumeric()) {
            letters += 1;
            han += usize::from(is_han(c));
        }
        if han * 5 >= letters && han > 0 {
            Lang::Zh
        } else {
            Lang::En
        }
    }
}

/// Whether `c` is a common Han character (the CJK Unified Ideographs and
/// their first extension).
pub fn is_han(c: char) -> bool {
    matches!(u32::from(c), 0x4E00..=0x9FFF | 0x3400..=0x4DBF)
}

const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "no", "vs", "gen", "gov", "sen", "rep", "messrs",
    "u.s", "hon", "col", "capt", "lt", "co", "inc", "etc", "i.e", "e.g", "jan", "feb", "aug",
    "sept", "oct", "nov", "dec",
];

/// The sentences of `text`, each with its end mark, closing quotes and
/// trailing whitespace, so that they concatenate back to the text.
#[expect(
    clippy::indexing_slicing,
    reason = "i and j stay below chars.len(), and every slice of text is cut at a char boundary from chars"
)]
pub fn sentences(text: &str, lang: Lang) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        let ends = match lang {
            Lang::Zh => matches!(c, '。' | '！' | '？' | '!' | '?' | '；'),
            Lang::En => matches!(c, '.' | '!' | '?'),
        };
        if !ends {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | '”' | '’' | ')' | '）' | '」')
        {
            j += 1;
        }
        let boundary = match lang {
            Lang::Zh => true,
            Lang::En => {
                let next_is_space = j < chars.len() && chars[j].1.is_whitespace();
                let after = chars[j..]
                    .iter()
                    .map(|&(_, c)| c)
                    .find(|c| !c.is_whitespace());
                let starts_sentence = after
                    .is_none_or(|c| c.is_uppercase() || c.is_ascii_digit() || "\"“'(".contains(c));
                let word = text[start..chars[i].0]
                    .rsplit(|c: char| c.is_whitespace())
                    .next()
                    .unwrap_or("")
                    .trim_start_matches(['"', '(', '“'])
                    .to_lowercase();
                let abbreviation = c == '.'
                    && (ABBREVIATIONS.contains(&word.as_str())
                        || (word.chars().count() == 1 && word.chars().all(char::is_alphabetic)));
                (next_is_space || j == chars.len()) && starts_sentence && !abbreviation
            }
        };
        if boundary {
            while j < chars.len() && chars[j].1.is_whitespace() {
                j += 1;
            }
            let end = chars.get(j).map_or(text.len(), |&(at, _)| at);
            pieces.push(&text[start..end]);
            start = end;
        }
        i = j.max(i + 1);
    }
    if !text[start..].trim().is_empty() {
        pieces.push(&text[start..]);
    } else if let Some(last) = pieces.last_mut() {
        *last = &text[start - last.len()..];
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_sentences_skip_abbreviations_and_rejoin() {
        let text = "Mr. Speaker, the U.S. Navy grew. It cost $3.5 billion! \"Why?\" he asked. Done";
        let pieces = sentences(text, Lang::En);
        assert_eq!(pieces.concat(), text);
        assert_eq!(
            pieces,
            [
                "Mr. Speaker, the U.S. Navy grew. ",
                "It cost $3.5 billion! ",
                "\"Why?\" he asked. ",
                "Done"
            ]
        );
    }

    #[test]
    fn chinese_sentences_keep_closing_quotes() {
        let text = "他说：“走吧。”我们走了！还有";
        assert_eq!(
            sentences(text, Lang::Zh),
            ["他说：“走吧。”", "我们走了！", "还有"]
        );
    }

    #[test]
    fn script_is_chinese_when_han_characters_are_a_fifth_of_the_letters() {
        assert_eq!(Lang::of("近重复网页检测 simhash 2007"), Lang::Zh);
        assert_eq!(
            Lang::of("Near-duplicate detection for web crawling"),
            Lang::En
        );
        assert_eq!(Lang::of("A page about fpdb, 指纹 once"), Lang::En);
        assert_eq!(Lang::of("12345"), Lang::En);
    }
}
