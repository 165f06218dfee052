//! The crawl's common features: learned exactly, frozen, named by their
//! contents, and left out of signatures so a shared template stops making
//! different pages look alike.

use fpdb_simhash::{
    CommonFeatures, SignatureError, SignatureLayout, SimhashOptions, Simhasher, Tokenizer,
    Weighting,
};
use proptest::prelude::*;

fn learn(docs: &[Vec<u64>], percent: u8) -> CommonFeatures {
    CommonFeatures::learn(docs.iter().map(Vec::as_slice), percent).unwrap()
}

#[test]
fn a_feature_is_common_above_the_share_not_at_it() {
    // Ten documents: feature 1 in all, 2 in three, 3 in two (exactly 20%),
    // 4 in one; repeats inside a document count once.
    let mut docs: Vec<Vec<u64>> = (0..10).map(|_| vec![1, 1]).collect();
    docs[0].extend([2, 2, 3, 4]);
    docs[1].extend([2, 3]);
    docs[2].push(2);
    let common = learn(&docs, 20);
    assert_eq!(common.hashes(), &[1, 2]);
    assert!(common.contains(2) && !common.contains(3));
    assert_eq!(learn(&docs, 100).hashes(), &[] as &[u64]);
    assert_eq!(learn(&docs, 1).hashes(), &[1, 2, 3, 4]);
}

#[test]
fn shares_outside_1_to_100_are_refused() {
    for bad in [0u8, 101, 255] {
        assert_eq!(
            CommonFeatures::learn(std::iter::empty::<&[u64]>(), bad),
            Err(SignatureError::CommonPercent(bad))
        );
    }
}

#[test]
fn the_digest_names_the_contents() {
    let a = CommonFeatures::from_hashes(vec![3, 1, 2, 2]);
    let b = CommonFeatures::from_hashes(vec![1, 2, 3]);
    let c = CommonFeatures::from_hashes(vec![1, 2, 4]);
    assert_eq!(a, b);
    assert_eq!(a.digest(), b.digest());
    assert_ne!(a.digest(), c.digest());
    assert_ne!(CommonFeatures::default().digest(), a.digest());
    assert_eq!(CommonFeatures::from_hashes(a.hashes().to_vec()), a);
}

#[test]
fn removing_keeps_the_order_of_the_rest() {
    let common = CommonFeatures::from_hashes(vec![5, 7]);
    assert_eq!(common.remove_from(&[9, 5, 1, 7, 9, 3]), vec![9, 1, 9, 3]);
}

/// Two different short paragraphs under one site's navigation and footer
/// look alike to a plain signature; without the crawl's common features
/// they do not, while a copy of one still matches it.
#[test]
fn a_shared_template_stops_counting() {
    let simhasher = Simhasher::new(SimhashOptions {
        tokenizer: Tokenizer::Jieba,
        weighting: Weighting::Tf,
    });
    let header = "Home | News | Politics | World | Business | Technology | Science | Health | Sports | Opinion | Travel | Video You are here: Home > World > Article";
    let footer = "Share this article on Facebook Twitter Email Print. Related: subscribe to our newsletter, contact the editors, advertise with us, privacy policy, terms of service.";
    let bodies = [
        "The committee approved the harbour budget after a long debate about dredging the northern channel.",
        "Farmers in the valley reported an early frost that damaged most of the apple orchards this spring.",
        "The orchestra announced a winter season of chamber concerts in the restored railway station hall.",
        "Engineers finished testing the new bridge cables and expect the crossing to reopen next month.",
        "Teachers asked the council for more reading rooms in the libraries of the eastern districts.",
    ];
    let pages: Vec<String> = bodies
        .iter()
        .map(|b| format!("{header}\n{b}\n{footer}"))
        .collect();
    let crawl: Vec<Vec<u64>> = pages.iter().map(|p| simhasher.feature_hashes(p)).collect();
    let common = learn(&crawl, 50);
    let layout = SignatureLayout::new(256, 1, 2).unwrap();
    let plain = |t: &str| simhasher.signature(t, layout).unwrap();
    let rare = |t: &str| {
        simhasher
            .signature_without_common(t, layout, &common)
            .unwrap()
    };
    let other_pages = plain(&pages[0]).similarity(&plain(&pages[1])).unwrap();
    let other_pages_rare = rare(&pages[0]).similarity(&rare(&pages[1])).unwrap();
    assert!(other_pages > 0.4, "plain: {other_pages}");
    assert!(other_pages_rare < 0.2, "without common: {other_pages_rare}");
    // The bare body is a copy of its page.
    let copy = rare(bodies[0]).similarity(&rare(&pages[0])).unwrap();
    assert!(copy > 0.8, "copy: {copy}");
    // A page of nothing but template has nothing left to sign.
    assert_eq!(
        simhasher.signature_without_common(&format!("{header}\n{footer}"), layout, &common),
        Err(SignatureError::NoFeatures)
    );
}

proptest! {
    #[test]
    fn learning_agrees_with_counting_by_hand(
        docs in prop::collection::vec(prop::collection::vec(0u64..40, 0..30), 0..25),
        percent in 1u8..=100,
    ) {
        let common = learn(&docs, percent);
        for feature in 0u64..40 {
            let documents = docs.iter().filter(|d| d.contains(&feature)).count();
            let expected = documents * 100 > usize::from(percent) * docs.len();
            prop_assert_eq!(common.contains(feature), expected, "feature {} in {} of {}", feature, documents, docs.len());
        }
    }
}
