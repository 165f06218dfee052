//! `MemIndex` answers exactly what a brute-force scan answers.

use fpdb_codec::{CodecError, MemIndex, TableDesign, MAX_RADIUS};
use fpdb_fingerprint::{Fingerprint, WeakBits};
use proptest::prelude::*;

fn brute_query(stored: &[Fingerprint], query: Fingerprint, k: u32) -> Vec<(Fingerprint, u32)> {
    let mut unique = stored.to_vec();
    unique.sort_unstable();
    unique.dedup();
    let mut hits: Vec<_> = unique
        .into_iter()
        .map(|fp| (fp, fp.distance(query)))
        .filter(|&(_, distance)| distance <= k)
        .collect();
    hits.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
    hits
}

fn brute_pairs(stored: &[Fingerprint], k: u32) -> Vec<(Fingerprint, Fingerprint, u32)> {
    let mut unique = stored.to_vec();
    unique.sort_unstable();
    unique.dedup();
    let mut pairs = Vec::new();
    for (i, &a) in unique.iter().enumerate() {
        for &b in &unique[i + 1..] {
            let distance = a.distance(b);
            if distance <= k {
                pairs.push((a, b, distance));
            }
        }
    }
    pairs
}

fn designs() -> Vec<TableDesign> {
    vec![
        TableDesign::levels(0, &[1]).unwrap(),
        TableDesign::levels(1, &[2]).unwrap(),
        TableDesign::levels(2, &[3, 3]).unwrap(),
        TableDesign::levels(3, &[4]).unwrap(),
        TableDesign::levels(3, &[4, 4]).unwrap(),
        TableDesign::levels(3, &[6]).unwrap(),
        TableDesign::split(3, &[30, 10, 10, 14]).unwrap(),
        TableDesign::levels(4, &[5]).unwrap(),
        TableDesign::levels(7, &[8]).unwrap(),
    ]
}

/// A few bases, each with planted near-duplicates at distance 0..=8 and
/// neighbours sharing long prefixes, plus uniform noise and the extremes.
fn fingerprint_sets() -> impl Strategy<Value = Vec<Fingerprint>> {
    (
        proptest::collection::vec(any::<u64>(), 1..12),
        proptest::collection::vec(any::<u64>(), 0..200),
        proptest::collection::vec(
            (any::<prop::sample::Index>(), any::<u64>(), 0u32..=8),
            0..120,
        ),
        proptest::collection::vec(
            (any::<prop::sample::Index>(), 1u32..30, any::<u64>()),
            0..80,
        ),
        any::<bool>(),
    )
        .prop_map(|(bases, noise, planted, shared_prefix, extremes)| {
            let mut set: Vec<u64> = bases.clone();
            set.extend(noise);
            for (base, seed, distance) in planted {
                let mut value = *base.get(&bases);
                let mut state = seed | 1;
                let mut flipped = 0u64;
                while flipped.count_ones() < distance {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    flipped |= 1 << (state % 64);
                }
                value ^= flipped;
                set.push(value);
            }
            for (base, low_bits, noise) in shared_prefix {
                let mask = (1u64 << low_bits) - 1;
                set.push((*base.get(&bases) & !mask) | (noise & mask));
            }
            if extremes {
                set.extend([0, u64::MAX, 1, u64::MAX - 1]);
            }
            // Duplicates on purpose.
            let again: Vec<u64> = set.iter().step_by(7).copied().collect();
            set.extend(again);
            set.into_iter().map(Fingerprint).collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn query_equals_brute_force(
        stored in fingerprint_sets(),
        design_index in 0usize..9,
        block_bytes in prop_oneof![Just(24usize), 40usize..300, Just(1024)],
        extra_queries in proptest::collection::vec(any::<u64>(), 0..8),
        flips in any::<u64>(),
    ) {
        let design = designs().swap_remove(design_index);
        let max_k = design.k();
        let index = MemIndex::build(design, &stored, block_bytes).unwrap();
        let mut unique = stored.clone();
        unique.sort_unstable();
        unique.dedup();
        prop_assert_eq!(index.len(), unique.len());
        let mut queries: Vec<Fingerprint> = stored.iter().step_by(5).copied().collect();
        queries.extend(stored.iter().step_by(3).map(|fp| Fingerprint(fp.0 ^ (flips & flips.rotate_left(17)))));
        queries.extend(extra_queries.into_iter().map(Fingerprint));
        for k in 0..=max_k {
            let batch = index.query_batch(&queries, k).unwrap();
            prop_assert_eq!(batch.len(), queries.len());
            for (&query, answer) in queries.iter().zip(batch) {
                let expected = brute_query(&stored, query, k);
                prop_assert_eq!(&index.query(query, k).unwrap(), &expected, "k = {}", k);
                // The sorted batch walk answers each query as a probe does.
                prop_assert_eq!(answer, expected, "batch, k = {}", k);
            }
        }
    }

    /// Radii above the design's k probe the tables' neighbouring prefixes
    /// and still answer exactly.
    #[test]
    fn wide_queries_equal_brute_force(
        stored in fingerprint_sets(),
        design_index in 0usize..9,
        block_bytes in prop_oneof![Just(24usize), 40usize..300, Just(1024)],
        flips in any::<u64>(),
        radius_above in 1u32..=MAX_RADIUS,
    ) {
        let design = designs().swap_remove(design_index);
        let radius = (design.k() + radius_above).min(MAX_RADIUS);
        let index = MemIndex::build(design, &stored, block_bytes).unwrap();
        let mut queries: Vec<Fingerprint> = stored.iter().step_by(4).copied().collect();
        queries.extend(stored.iter().step_by(3).map(|fp| Fingerprint(fp.0 ^ (flips & flips.rotate_left(29)))));
        for query in queries {
            prop_assert_eq!(
                index.query(query, radius).unwrap(),
                brute_query(&stored, query, radius),
                "radius {}", radius
            );
        }
    }

    /// A query's weakest bits flipped first reach exactly the stored
    /// fingerprints within the radius that one of some table's flip sets
    /// reaches, each once; with the query's own prefix alone and the
    /// design's k, that is every fingerprint within k.
    #[test]
    fn flip_queries_equal_brute_force(
        stored in fingerprint_sets(),
        design_index in 0usize..9,
        block_bytes in prop_oneof![Just(24usize), 40usize..300, Just(1024)],
        flips in any::<u64>(),
        votes in proptest::collection::vec(0u64..1_000, 64),
        budget in 1usize..40,
        radius in 0u32..=24,
    ) {
        let design = designs().swap_remove(design_index);
        let k = design.k();
        let index = MemIndex::build(design.clone(), &stored, block_bytes).unwrap();
        let vote_sizes: [u64; 64] = votes.try_into().unwrap();
        let sets = fpdb_codec::engine::table_flips(&design, &vote_sizes, budget);
        let mut queries: Vec<Fingerprint> = stored.iter().step_by(4).copied().collect();
        queries.extend(stored.iter().step_by(3).map(|fp| Fingerprint(fp.0 ^ (flips & flips.rotate_left(11)))));
        for query in queries {
            let expected: Vec<(Fingerprint, u32)> = brute_query(&stored, query, radius)
                .into_iter()
                .filter(|&(fp, _)| {
                    fpdb_codec::engine::reaching_table(&design, &sets, fp.0 ^ query.0).is_some()
                })
                .collect();
            prop_assert_eq!(index.query_flips(query, &vote_sizes, budget, radius).unwrap(), expected);
            prop_assert_eq!(
                index.query_flips(query, &vote_sizes, 1, k).unwrap(),
                brute_query(&stored, query, k)
            );
        }
    }

    /// A query probing its weak bits reaches exactly the stored
    /// fingerprints within the radius that differ, in some quarter, only
    /// in its weak bits (at most so many of them, or any), on every design
    /// keyed by quarters, alone or in a batch; other designs say they
    /// cannot.
    #[test]
    fn weak_bit_queries_equal_brute_force(
        stored in fingerprint_sets(),
        design_index in 0usize..9,
        block_bytes in prop_oneof![Just(24usize), 40usize..300, Just(1024)],
        flips in any::<u64>(),
        weak in any::<u64>(),
        sparse in any::<u64>(),
        radius in 0u32..=24,
        quartered in any::<bool>(),
        most_flipped in prop_oneof![Just(fpdb_fingerprint::EVERY_SUBSET), 0u32..=3],
    ) {
        // Half the cases on split-4, the one design here keyed by quarters.
        let design = if quartered {
            TableDesign::levels(3, &[4]).unwrap()
        } else {
            designs().swap_remove(design_index)
        };
        let quarters = fpdb_codec::engine::probes_weak_bits(&design);
        let index = MemIndex::build(design, &stored, block_bytes).unwrap();
        // About a quarter of the bits weak, and copies differing in them.
        let weak = WeakBits(weak & sparse);
        let mut queries: Vec<Fingerprint> = stored.iter().step_by(4).copied().collect();
        queries.extend(stored.iter().step_by(3).map(|fp| Fingerprint(fp.0 ^ (flips & flips.rotate_left(11)))));
        queries.extend(stored.iter().step_by(5).map(|fp| Fingerprint(fp.0 ^ (weak.0 & flips))));
        // The batch gives every other query other weak bits.
        let weaks: Vec<WeakBits> = (0..queries.len())
            .map(|i| if i % 2 == 0 { weak } else { WeakBits(weak.0.rotate_left(7)) })
            .collect();
        let batch = index
            .query_weak_bits_batch(&queries, &weaks, most_flipped, radius)
            .unwrap();
        prop_assert_eq!(batch.is_some(), quarters);
        for (i, (&query, &weak)) in queries.iter().zip(&weaks).enumerate() {
            let answer = index.query_weak_bits(query, weak, most_flipped, radius).unwrap();
            if !quarters {
                prop_assert!(answer.is_none());
                continue;
            }
            let expected: Vec<(Fingerprint, u32)> = brute_query(&stored, query, radius)
                .into_iter()
                .filter(|&(fp, _)| weak.reaches(fp.0 ^ query.0, most_flipped))
                .collect();
            prop_assert_eq!(batch.as_ref().map(|b| &b[i]), Some(&expected));
            prop_assert_eq!(answer, Some(expected));
        }
    }

    #[test]
    fn near_pairs_equal_brute_force(
        stored in fingerprint_sets(),
        design_index in 0usize..9,
        block_bytes in prop_oneof![Just(24usize), 40usize..300, Just(1024)],
    ) {
        let design = designs().swap_remove(design_index);
        let max_k = design.k();
        let index = MemIndex::build(design, &stored, block_bytes).unwrap();
        // Past the design's k, the wide pair scan of neighbouring prefixes.
        for k in (0..=max_k).chain([max_k + 1, 9, 12, MAX_RADIUS]) {
            prop_assert_eq!(index.near_pairs(k).unwrap(), brute_pairs(&stored, k), "k = {}", k);
        }
    }
}

#[test]
fn distance_above_the_design_is_an_error() {
    let index = MemIndex::build(
        TableDesign::levels(3, &[4]).unwrap(),
        &[Fingerprint(1)],
        1024,
    )
    .unwrap();
    // A single query and a pair scan may go past the design's k (its
    // tables' neighbouring prefixes are probed), up to the widest radius;
    // batches may not.
    assert_eq!(
        index.query(Fingerprint(1), 4),
        Ok(vec![(Fingerprint(1), 0)])
    );
    assert_eq!(
        index.query(Fingerprint(1), MAX_RADIUS + 1),
        Err(CodecError::RadiusTooLarge {
            radius: MAX_RADIUS + 1,
            max: MAX_RADIUS
        })
    );
    assert_eq!(index.near_pairs(4), Ok(Vec::new()));
    assert_eq!(
        index.near_pairs(MAX_RADIUS + 1),
        Err(CodecError::RadiusTooLarge {
            radius: MAX_RADIUS + 1,
            max: MAX_RADIUS
        })
    );
    assert!(index.query_batch(&[Fingerprint(1)], 4).is_err());
}

#[test]
fn empty_index_answers_nothing() {
    let index = MemIndex::build(TableDesign::auto(3, 0).unwrap(), &[], 1024).unwrap();
    assert!(index.is_empty());
    assert!(index.query(Fingerprint(123), 3).unwrap().is_empty());
    assert!(index.near_pairs(3).unwrap().is_empty());
    assert_eq!(
        index
            .query_batch(&[Fingerprint(1), Fingerprint(2)], 3)
            .unwrap(),
        vec![Vec::new(), Vec::new()]
    );
}

/// Many fingerprints in one prefix group of every table (all differ only
/// in the low 8 bits) must still be compared pairwise correctly, across
/// many small blocks.
#[test]
fn one_huge_prefix_group() {
    let stored: Vec<Fingerprint> = (0..256u64)
        .map(|low| Fingerprint(0xabcd_ef00_0000_0000 | low))
        .collect();
    let design = TableDesign::levels(3, &[4]).unwrap();
    let index = MemIndex::build(design, &stored, 32).unwrap();
    assert_eq!(index.near_pairs(3).unwrap(), brute_pairs(&stored, 3));
    assert_eq!(
        index.query(stored[17], 2).unwrap(),
        brute_query(&stored, stored[17], 2)
    );
}

/// A set sparse enough under `split-4` (p = 16) and large enough that the
/// tables keep prefix bitmaps: queries must still find everything, from
/// tables probed and tables skipped alike.
#[test]
fn tables_with_prefix_bitmaps_answer_like_brute_force() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let stored: Vec<Fingerprint> = (0..20_000).map(|_| Fingerprint(next())).collect();
    let design = TableDesign::from_name(3, "4x16").unwrap();
    let index = MemIndex::build(design, &stored, 1024).unwrap();
    assert_eq!(index.prefix_bitmap_bytes(), 4 * (1 << 16) / 8);
    let mut queries: Vec<Fingerprint> = (0..2_000).map(|_| Fingerprint(next())).collect();
    for (i, fp) in stored.iter().step_by(10).enumerate() {
        let flips = next() & next() & next() & next();
        queries.push(Fingerprint(fp.0 ^ (flips >> (i % 40))));
    }
    let mut found = 0;
    for query in queries {
        for k in 0..=3 {
            let answer = index.query(query, k).unwrap();
            assert_eq!(answer, brute_query(&stored, query, k), "{query:?} k = {k}");
            found += answer.len();
        }
    }
    // Planted queries do find their neighbours.
    assert!(found > 2_000, "{found}");
}

/// Wide radii on tables with prefix bitmaps: the neighbouring prefixes a
/// bitmap rules out are skipped, and nothing within the radius is missed.
#[test]
fn wide_radii_with_prefix_bitmaps_answer_like_brute_force() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut stored: Vec<Fingerprint> = (0..20_000).map(|_| Fingerprint(next())).collect();
    // Near copies of some stored fingerprints, at 4 to 12 bits.
    for i in 0..2_000usize {
        let base = stored[i * 7].0;
        let mut flips = 0u64;
        while flips.count_ones() < 4 + (i % 9) as u32 {
            flips |= 1 << (next() % 64);
        }
        stored.push(Fingerprint(base ^ flips));
    }
    let design = TableDesign::from_name(3, "4x16").unwrap();
    let index = MemIndex::build(design, &stored, 1024).unwrap();
    assert!(index.prefix_bitmap_bytes() > 0);
    let mut found = 0;
    for query in stored.iter().step_by(97) {
        for radius in [4, 7, 8, 11, 12] {
            let answer = index.query(*query, radius).unwrap();
            assert_eq!(
                answer,
                brute_query(&stored, *query, radius),
                "{query:?} radius {radius}"
            );
            found += answer.iter().filter(|&&(_, d)| d > 3).count();
        }
    }
    // The planted copies beyond k = 3 are found.
    assert!(found > 50, "{found}");
}
