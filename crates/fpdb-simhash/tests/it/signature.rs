//! The confirming signature: persisted bytes pinned by golden vectors, the
//! estimate checked against exact Jaccard resemblance, and its behaviour
//! on any input.
//!
//! After an intended change of the signature definition (which also needs
//! a new database format version), regenerate the golden file with
//! `FPDB_BLESS_GOLDEN=1 cargo test --release -p fpdb-simhash --test it signature::`
//! and say why in the commit.

use std::collections::HashSet;

use crate::common::{data_dir, golden_vectors};
use fpdb_simhash::{
    distinct_shingles, shingle_hash, slot_hash, Signature, SignatureError, SignatureLayout,
    SimhashOptions, Simhasher, Tokenizer, Weighting,
};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn layout(hashes: u16, bits: u8, shingle: u8) -> SignatureLayout {
    SignatureLayout::new(hashes, bits, shingle).unwrap()
}

/// Layouts the golden file pins: the recommended one and every code width.
fn golden_layouts() -> Vec<SignatureLayout> {
    vec![
        SignatureLayout::RECOMMENDED,
        layout(32, 8, 1),
        layout(32, 8, 2),
        layout(64, 4, 3),
        layout(128, 2, 2),
        layout(256, 1, 1),
        layout(16, 16, 1),
    ]
}

const TEXTS: &[(&str, &str)] = &[
    ("chinese", "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。指纹数据库可以快速判断一个新网页是否与已经见过的网页近似重复。"),
    ("english", "A web crawler fetches millions of pages a day. Many of them are near-duplicates: the same article with different ads, dates or counters."),
    ("mixed", "Rust 编写的 fpdb 使用 64 位 simhash 指纹，在 RocksDB 中保存排序后的置换表，查询时只解压一个数据块。"),
    ("single_word", "数据库"),
];

#[derive(Debug, Serialize, Deserialize)]
struct Vector {
    name: String,
    tokenizer: String,
    layout: String,
    hashes: u16,
    bits: u8,
    shingle: u8,
    text: String,
    signature: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn compute_all() -> Vec<Vector> {
    let mut out = Vec::new();
    for tokenizer in [Tokenizer::Jieba, Tokenizer::Words, Tokenizer::Chars(4)] {
        let simhasher = Simhasher::new(SimhashOptions {
            tokenizer,
            weighting: Weighting::Tf,
        });
        for layout in golden_layouts() {
            for (name, text) in TEXTS {
                let signature = simhasher.signature(text, layout).unwrap();
                out.push(Vector {
                    name: (*name).to_string(),
                    tokenizer: tokenizer.to_string(),
                    layout: layout.to_string(),
                    hashes: layout.hashes(),
                    bits: layout.bits(),
                    shingle: layout.shingle(),
                    text: (*text).to_string(),
                    signature: hex(signature.as_bytes()),
                });
            }
        }
    }
    out
}

#[test]
fn signatures_match_golden_vectors() {
    let path = data_dir().join("golden/signature.jsonl");
    let Some(stored) = golden_vectors::<Vector>(&path, compute_all) else {
        return;
    };
    assert_eq!(stored.len(), 3 * golden_layouts().len() * TEXTS.len());
    for v in &stored {
        let simhasher = Simhasher::new(SimhashOptions {
            tokenizer: v.tokenizer.parse().unwrap(),
            weighting: Weighting::Tf,
        });
        let got = simhasher
            .signature(&v.text, layout(v.hashes, v.bits, v.shingle))
            .unwrap();
        assert_eq!(
            hex(got.as_bytes()),
            v.signature,
            "{} {} {}",
            v.name,
            v.tokenizer,
            v.layout
        );
    }
}

/// The definition written out plainly: each slot's minimum over every
/// window, its low bits packed least significant first.
fn reference_bytes(layout: SignatureLayout, features: &[u64]) -> Vec<u8> {
    let width = usize::from(layout.shingle()).min(features.len());
    let shingles: Vec<u64> = features.windows(width).map(shingle_hash).collect();
    let mut bits: Vec<bool> = Vec::new();
    for slot in 0..layout.hashes() {
        let minimum = shingles.iter().map(|&s| slot_hash(slot, s)).min().unwrap();
        for bit in 0..layout.bits() {
            bits.push(minimum >> bit & 1 == 1);
        }
    }
    bits.chunks(8)
        .map(|byte| {
            byte.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &b)| acc | (u8::from(b) << i))
        })
        .collect()
}

#[test]
fn bytes_follow_the_written_definition() {
    let mut rng = SplitMix(7);
    for layout in golden_layouts() {
        for len in [1usize, 2, 3, 4, 5, 6, 7, 8, 9, 50, 400] {
            let features: Vec<u64> = (0..len).map(|_| rng.next()).collect();
            let signature = Signature::from_feature_hashes(layout, &features).unwrap();
            assert_eq!(
                signature.as_bytes(),
                reference_bytes(layout, &features),
                "{layout} {len}"
            );
            assert_eq!(signature.as_bytes().len(), layout.bytes());
        }
    }
}

/// A small deterministic generator for the statistical checks.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Two random sets with `shared` common elements and `only` elements of
/// their own each, and their exact Jaccard resemblance.
fn set_pair(rng: &mut SplitMix, shared: usize, only: usize) -> (Vec<u64>, Vec<u64>, f64) {
    let common: Vec<u64> = (0..shared).map(|_| rng.next()).collect();
    let mut a = common.clone();
    let mut b = common;
    a.extend((0..only).map(|_| rng.next()));
    b.extend((0..only).map(|_| rng.next()));
    let sa: HashSet<u64> = a.iter().copied().collect();
    let sb: HashSet<u64> = b.iter().copied().collect();
    let jaccard = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
    (a, b, jaccard)
}

#[test]
fn estimate_is_within_its_statistical_bound_of_exact_jaccard() {
    let mut rng = SplitMix(0x5eed);
    for layout in [
        SignatureLayout::RECOMMENDED,
        layout(32, 8, 1),
        layout(128, 2, 1),
        layout(256, 1, 1),
        layout(16, 16, 1),
    ] {
        let chance = 0.5f64.powi(i32::from(layout.bits()));
        let hashes = f64::from(layout.hashes());
        let mut total_error = 0.0;
        let trials = 200;
        for trial in 0..trials {
            let shared = 20 + trial * 3;
            let only = 10 + (trial * 7) % 300;
            let (a, b, jaccard) = set_pair(&mut rng, shared, only);
            let x = Signature::from_feature_hashes(layout, &a).unwrap();
            let y = Signature::from_feature_hashes(layout, &b).unwrap();
            let estimate = x.similarity(&y).unwrap();
            // Each slot agrees with probability p = c + (1 − c)·J; the
            // estimate's standard deviation follows from the binomial.
            let p = chance + (1.0 - chance) * jaccard;
            let sd = (p * (1.0 - p) / hashes).sqrt() / (1.0 - chance);
            assert!(
                (estimate - jaccard).abs() <= 5.0 * sd + 1e-9,
                "{layout}: J = {jaccard:.3}, estimate {estimate:.3}, sd {sd:.3}"
            );
            total_error += estimate - jaccard;
        }
        // No bias: the mean error over all trials is far below one sd.
        let mean = total_error / trials as f64;
        assert!(mean.abs() < 0.03, "{layout}: mean error {mean:.4}");
    }
}

#[test]
fn text_without_features_has_no_signature() {
    for tokenizer in [Tokenizer::Jieba, Tokenizer::Words, Tokenizer::Chars(4)] {
        let simhasher = Simhasher::new(SimhashOptions {
            tokenizer,
            weighting: Weighting::Tf,
        });
        for text in ["", "   \n\t", "，。！？…", "<><>"] {
            assert_eq!(
                simhasher.signature(text, SignatureLayout::RECOMMENDED),
                Err(SignatureError::NoFeatures),
                "{tokenizer} {text:?}"
            );
        }
    }
    assert_eq!(
        Signature::from_feature_hashes(SignatureLayout::RECOMMENDED, &[]),
        Err(SignatureError::NoFeatures)
    );
}

#[test]
fn layouts_are_checked() {
    assert_eq!(
        SignatureLayout::new(32, 3, 1),
        Err(SignatureError::CodeBits(3))
    );
    assert!(matches!(
        SignatureLayout::new(0, 8, 1),
        Err(SignatureError::HashCount { .. })
    ));
    assert!(matches!(
        SignatureLayout::new(3, 1, 1),
        Err(SignatureError::HashCount { .. })
    ));
    assert!(matches!(
        SignatureLayout::new(2048, 8, 1),
        Err(SignatureError::HashCount { .. })
    ));
    assert_eq!(
        SignatureLayout::new(32, 8, 0),
        Err(SignatureError::ShingleWidth(0))
    );
    assert_eq!(
        SignatureLayout::new(32, 8, 9),
        Err(SignatureError::ShingleWidth(9))
    );
    assert_eq!(layout(3, 8, 1).bytes(), 3);
    assert_eq!(layout(8, 1, 1).bytes(), 1);
    assert_eq!(
        SignatureLayout::RECOMMENDED.to_string(),
        format!(
            "minhash:{}x{}/shingle:{}",
            SignatureLayout::RECOMMENDED.hashes(),
            SignatureLayout::RECOMMENDED.bits(),
            SignatureLayout::RECOMMENDED.shingle()
        )
    );
}

#[test]
fn stored_bytes_are_checked_and_layouts_must_agree() {
    let a = Signature::from_feature_hashes(layout(32, 8, 1), &[1, 2, 3]).unwrap();
    assert_eq!(
        Signature::from_bytes(layout(32, 8, 1), &a.as_bytes()[1..]),
        Err(SignatureError::Length {
            expected: 32,
            got: 31
        })
    );
    let b = Signature::from_feature_hashes(layout(64, 4, 1), &[1, 2, 3]).unwrap();
    assert_eq!(
        a.similarity(&b),
        Err(SignatureError::LayoutMismatch(
            layout(32, 8, 1),
            layout(64, 4, 1)
        ))
    );
}

#[test]
fn an_edited_copy_is_similar_and_another_text_is_not() {
    let simhasher = Simhasher::new(SimhashOptions::default());
    let original = "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。指纹数据库可以快速判断一个新网页是否与已经见过的网页近似重复。近重复检测让搜索引擎少存储冗余内容，也让用户少看到重复结果。";
    let edited = original
        .replace("许多", "很多")
        .replace("也让用户少看到重复结果。", "");
    let other = "今年秋季的降雨比往年偏多，农民们抓紧晴天收割水稻，合作社的烘干机昼夜运转，粮食收购价格保持稳定。";
    let layout = layout(128, 2, 1);
    let a = simhasher.signature(original, layout).unwrap();
    let b = simhasher.signature(&edited, layout).unwrap();
    let c = simhasher.signature(other, layout).unwrap();
    assert!(
        a.similarity(&b).unwrap() > 0.6,
        "{}",
        a.similarity(&b).unwrap()
    );
    assert!(
        a.similarity(&c).unwrap() < 0.2,
        "{}",
        a.similarity(&c).unwrap()
    );
}

/// The signature is made of the fingerprint's own tokens: with tf weights
/// each token's count is its weight.
#[test]
fn feature_hashes_are_the_fingerprints_tokens() {
    for tokenizer in [Tokenizer::Jieba, Tokenizer::Words, Tokenizer::Chars(3)] {
        let simhasher = Simhasher::new(SimhashOptions {
            tokenizer,
            weighting: Weighting::Tf,
        });
        for (_, text) in TEXTS {
            let mut from_hashes: Vec<u64> = simhasher.feature_hashes(text);
            let mut from_features: Vec<u64> = simhasher
                .features(text)
                .iter()
                .flat_map(|f| std::iter::repeat_n(f.hash, usize::try_from(f.weight).unwrap()))
                .collect();
            from_hashes.sort_unstable();
            from_features.sort_unstable();
            assert_eq!(from_hashes, from_features, "{tokenizer} {text}");
        }
    }
}

proptest! {
    #[test]
    fn similarity_is_symmetric_bounded_and_one_with_itself(
        a in prop::collection::vec(any::<u64>(), 1..80),
        b in prop::collection::vec(any::<u64>(), 1..80),
        which in 0usize..7,
    ) {
        let layout = golden_layouts()[which];
        let x = Signature::from_feature_hashes(layout, &a).unwrap();
        let y = Signature::from_feature_hashes(layout, &b).unwrap();
        let xy = x.similarity(&y).unwrap();
        prop_assert_eq!(xy, y.similarity(&x).unwrap());
        prop_assert!((0.0..=1.0).contains(&xy));
        prop_assert_eq!(x.similarity(&x).unwrap(), 1.0);
        prop_assert_eq!(Signature::from_bytes(layout, x.as_bytes()).unwrap(), x);
    }

    #[test]
    fn single_features_form_a_set(mut a in prop::collection::vec(any::<u64>(), 1..60), seed: u64) {
        // With one feature per shingle, order and repetition do not matter.
        let layout = layout(64, 4, 1);
        let before = Signature::from_feature_hashes(layout, &a).unwrap();
        let mut rng = SplitMix(seed);
        for i in (1..a.len()).rev() {
            let j = usize::try_from(rng.next() % (i as u64 + 1)).unwrap();
            a.swap(i, j);
        }
        a.push(a[0]);
        prop_assert_eq!(Signature::from_feature_hashes(layout, &a).unwrap(), before);
    }

    #[test]
    fn any_text_signs_or_says_it_has_no_features(text in "\\PC{0,200}") {
        let simhasher = Simhasher::new(SimhashOptions::default());
        match simhasher.signature(&text, SignatureLayout::RECOMMENDED) {
            Ok(s) => prop_assert_eq!(s.as_bytes().len(), SignatureLayout::RECOMMENDED.bytes()),
            Err(e) => {
                prop_assert_eq!(e, SignatureError::NoFeatures);
                prop_assert!(simhasher.feature_hashes(&text).is_empty());
            }
        }
    }

    #[test]
    fn stored_bytes_read_back_only_at_the_layouts_length(
        bytes in prop::collection::vec(any::<u8>(), 0..80),
        which in 0usize..7,
    ) {
        let layout = golden_layouts()[which];
        match Signature::from_bytes(layout, &bytes) {
            Ok(s) => {
                prop_assert_eq!(bytes.len(), layout.bytes());
                prop_assert_eq!(s.as_bytes(), &bytes[..]);
                prop_assert_eq!(s.similarity(&s).unwrap(), 1.0);
            }
            Err(e) => {
                prop_assert_ne!(bytes.len(), layout.bytes());
                prop_assert_eq!(e, SignatureError::Length { expected: layout.bytes(), got: bytes.len() });
            }
        }
    }
}

#[test]
fn distinct_shingles_count_each_once_and_short_texts_as_one() {
    let pairs = SignatureLayout::new(64, 4, 2).unwrap();
    assert_eq!(distinct_shingles(pairs, &[]), 0);
    assert_eq!(distinct_shingles(pairs, &[7]), 1);
    assert_eq!(distinct_shingles(pairs, &[1, 2, 1, 2]), 2);
    assert_eq!(distinct_shingles(pairs, &[1, 2, 3, 4]), 3);
    let words = SignatureLayout::new(64, 4, 1).unwrap();
    assert_eq!(distinct_shingles(words, &[1, 2, 1, 2]), 2);
}
