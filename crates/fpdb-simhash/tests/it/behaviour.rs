//! What fingerprints are for: near-duplicates land close, unrelated texts
//! land about 32 bits apart, and every input is handled.

use crate::common::data_dir;
use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher, Tokenizer, Weighting};
use proptest::prelude::*;

/// The Chinese articles written for the project's tests (data/text/).
fn repository_text() -> String {
    let dir = data_dir().join("text");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .concat()
}

/// The body (title left out) of the longest article in data/text.
fn longest_article_body() -> String {
    let dir = data_dir().join("text");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .map(|text| text.lines().skip(1).collect::<String>())
        .max_by_key(String::len)
        .unwrap()
}

/// Lines of the articles that are mostly Chinese prose.
fn chinese_lines(min_chars: usize) -> Vec<String> {
    repository_text()
        .lines()
        .filter(|line| {
            let total = line.chars().count();
            let han = line
                .chars()
                .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
                .count();
            total >= min_chars && han * 2 >= total
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn seed_example_pair_is_a_near_duplicate() {
    let a = "你妈妈喊你回家吃饭哦，回家罗回家罗";
    let b = "你妈妈叫你回家吃饭啦，回家罗回家罗";
    // The default tf-idf keywords skip single characters and stop words:
    // both texts have exactly the keywords 妈妈, 回家 (three times) and 吃饭,
    // so their fingerprints are equal.
    let default = Simhasher::default();
    assert_eq!(default.fingerprint(a).distance(default.fingerprint(b)), 0);

    // With term frequencies every word votes: of the 9 unit votes
    // (妈妈, 喊, 回家×3, 吃饭, 罗×2 and 你/哦 dropped as stop words) one
    // word differs (喊/叫) and one is added (啦), so only bits whose margin
    // is at most 3 of 9 votes can flip; that is far fewer than the 32 of
    // unrelated texts.
    let tf = Simhasher::new(SimhashOptions {
        tokenizer: Tokenizer::Jieba,
        weighting: Weighting::Tf,
    });
    let d = tf.fingerprint(a).distance(tf.fingerprint(b));
    assert!(d <= 16, "tf distance {d}");
}

/// One changed character in a 2 KB Chinese paragraph stays within k = 3.
///
/// Not for every position, and no simhash can promise that: a bit flips
/// when the changed word's weight exceeds that bit's vote margin, and with
/// 64 margins spread around zero some edit always finds a small one. What
/// holds, and what this checks at 100 positions spread over the text, is
/// that almost every such edit stays within 3 bits and the typical one
/// moves no bit at all (the quality report in benches/ measures this over
/// all paragraphs).
#[test]
fn one_changed_character_in_2kb_stays_within_3_bits() {
    // The longest article's body: one topic, as a real page would have.
    let paragraph = longest_article_body();
    assert!(paragraph.len() >= 2048, "data/text has no 2 KB article");
    let simhasher = Simhasher::default();
    let original = simhasher.fingerprint(&paragraph);
    let chars: Vec<char> = paragraph.chars().collect();
    let positions: Vec<usize> = (0..chars.len())
        .filter(|&i| ('\u{4e00}'..='\u{9fff}').contains(&chars[i]))
        .collect();
    let mut distances: Vec<u32> = (0..100)
        .map(|step| {
            let at = positions[step * positions.len() / 100];
            let mut edited = chars.clone();
            edited[at] = if edited[at] == '天' { '地' } else { '天' };
            let edited: String = edited.into_iter().collect();
            original.distance(simhasher.fingerprint(&edited))
        })
        .collect();
    distances.sort_unstable();
    let within = distances.iter().filter(|&&d| d <= 3).count();
    assert!(
        within >= 95,
        "only {within} of 100 edits within 3 bits: {distances:?}"
    );
    assert!(
        distances[50] <= 1,
        "median distance {}: {distances:?}",
        distances[50]
    );
}

#[test]
fn unrelated_texts_are_about_32_bits_apart() {
    let lines = chinese_lines(60);
    assert!(lines.len() >= 30, "only {} lines in data/text", lines.len());
    for options in [
        SimhashOptions::default(),
        SimhashOptions {
            tokenizer: Tokenizer::Jieba,
            weighting: Weighting::Tf,
        },
        SimhashOptions {
            tokenizer: Tokenizer::Chars(4),
            weighting: Weighting::Tf,
        },
    ] {
        let simhasher = Simhasher::new(options);
        let fps: Vec<Fingerprint> = lines.iter().map(|l| simhasher.fingerprint(l)).collect();
        let mut total = 0u64;
        let mut pairs = 0u64;
        for i in 0..fps.len() {
            for j in i + 1..fps.len() {
                total += u64::from(fps[i].distance(fps[j]));
                pairs += 1;
            }
        }
        let mean = total as f64 / pairs as f64;
        assert!(pairs >= 300, "{pairs} pairs");
        assert!(
            (24.0..=40.0).contains(&mean),
            "{options}: mean distance {mean:.1}"
        );
    }
}

#[test]
fn invalid_utf8_is_decoded_lossily() {
    let simhasher = Simhasher::default();
    let clean = simhasher.fingerprint("指纹数据库 检测 近似重复 网页");
    let broken = simhasher.fingerprint_bytes(b"\xe6\x8c\x87\xe7\xba\xb9\xe6\x95\xb0\xe6\x8d\xae\xe5\xba\x93 \xff\xfe \xe6\xa3\x80\xe6\xb5\x8b \xe8\xbf\x91\xe4\xbc\xbc\xe9\x87\x8d\xe5\xa4\x8d \xc3 \xe7\xbd\x91\xe9\xa1\xb5");
    assert_eq!(clean, broken);
    assert_eq!(simhasher.fingerprint_bytes(&[0xff; 1000]), Fingerprint(0));
}

#[test]
fn a_100_mb_document_is_fingerprinted_in_chunks() {
    // One line, no punctuation: the worst case for cutting into chunks.
    let unit = "网页指纹数据库近似重复检测爬虫";
    let text = unit.repeat(100 * 1024 * 1024 / unit.len());
    assert!(text.len() >= 100 * 1000 * 1000);
    for options in [
        SimhashOptions::default(),
        SimhashOptions {
            tokenizer: Tokenizer::Chars(4),
            weighting: Weighting::Tf,
        },
    ] {
        let simhasher = Simhasher::new(options);
        let whole = simhasher.fingerprint(&text);
        // The same words repeated: the fingerprint equals that of a short
        // stretch of the same text, whatever the chunk boundaries.
        let short = simhasher.fingerprint(&unit.repeat(50));
        assert!(whole.distance(short) <= 3, "{options}: {whole} vs {short}");
    }
}

proptest! {
    #[test]
    fn distance_is_a_metric(a: u64, b: u64, c: u64) {
        let (a, b, c) = (Fingerprint(a), Fingerprint(b), Fingerprint(c));
        prop_assert_eq!(a.distance(b), b.distance(a));
        prop_assert_eq!(a.distance(b) == 0, a == b);
        prop_assert!(a.distance(c) <= a.distance(b) + b.distance(c));
        prop_assert!(a.distance(b) <= 64);
    }

    #[test]
    fn display_and_parse_round_trip(value: u64) {
        let fp = Fingerprint(value);
        prop_assert_eq!(fp.to_string().parse::<Fingerprint>(), Ok(fp));
        prop_assert_eq!(fp.to_string().len(), 16);
    }

    #[test]
    fn any_text_fingerprints_without_panic(text in "\\PC{0,200}") {
        for options in [SimhashOptions::default(), SimhashOptions { tokenizer: Tokenizer::Words, weighting: Weighting::Tf }] {
            let simhasher = Simhasher::new(options);
            prop_assert_eq!(simhasher.fingerprint(&text), simhasher.fingerprint(&text));
        }
    }
}
