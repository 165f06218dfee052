//! The two-stage report (`--two-stage`): for every set of documents, every
//! candidate fingerprint and every confirming signature, recall, precision
//! and false matches per query at each retrieval radius with the best θ,
//! then the settings that meet the most targets on every set at once (a
//! database has one θ and one radius).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{bail, Result};
use fpdb_html::{page_text, Extract};
use fpdb_simhash::{
    CommonFeatures, Signature, SignatureLayout, SimhashOptions, Simhasher, Tokenizer, Weighting,
};
use rayon::prelude::*;

use crate::confirm::{Confirm, Confirmer};
use crate::corpus::Corpus;
use crate::growth::Rule;
use crate::two_stage::{near_pairs, score, Point, Scored, SigSpec, Similarity, Truth, RADII};
use crate::{eval, html, load_average, parse_configs, parse_proto, pct, pct2, Args, Method};
use fpdb_tune::EditKind;
use fpdb_tune::{recall_against_false_matches, Curve, CurvePoint, Lang};

/// Candidate fingerprints measured by default: the default options, plain
/// tf over jieba words, tf × the registry's IDF², tf × crawl-IDF at powers
/// 1, 2 and 3 (the last capped at ln 100), and fpdb-simhash's learned
/// weights (tf × capped crawl-IDF³ on one tokenizer for every language, as
/// a database has it).
pub const CANDIDATES: &str =
    "jieba/tfidf:8,jieba/tf,wordfreq^2,crawl^1,crawl^2,crawl^3~0.01,learned@jieba,learned@words";
/// Settings shown on every set side by side: (candidates, signature, θ in
/// hundredths), at the radii of [`SETTING_RADII`].
const SETTINGS: [(&str, &str, usize); 9] = [
    ("learned@jieba", "minhash:64x4/w2/df20", 50),
    ("learned@words", "minhash:64x4/w2/df20", 50),
    ("crawl^3~0.01", "minhash:64x4/w2/df20", 50),
    ("crawl^2", "minhash:64x4/w2/df20", 50),
    ("crawl^1", "minhash:64x4/w2/df20", 50),
    ("wordfreq^2", "minhash:64x4/w2/df20", 50),
    ("wordfreq^2", "minhash:64x4/w3", 55),
    ("jieba/tf", "minhash:64x4/w3", 55),
    ("jieba/tf", "minhash:64x4/w2", 60),
];
const SETTING_RADII: [u32; 3] = [7, 10, 12];
/// Signatures measured by default: 32 bytes in four shapes over single
/// words and 2- and 3-word shingles, 16 bytes, and a 256-bit simhash.
pub const SIGNATURES: &str = "minhash:32x8/w1,minhash:32x8/w2,minhash:32x8/w3,\
minhash:64x4/w1,minhash:64x4/w2,minhash:64x4/w3,minhash:128x2/w2,minhash:256x1/w2,\
minhash:16x8/w2,simhash:256,minhash:32x8/w2/df20,minhash:64x4/w2/df20,minhash:64x4/w3/df20";

/// The widest radius a database is expected to answer at acceptable cost;
/// settings are ranked only up to it.
const R_AFFORDABLE: u32 = 12;

/// A set's target: recall at precision ≥ 99% for text; for pages, found
/// with no pair of different articles reported.
#[derive(Debug, Clone, Copy)]
enum Target {
    Text { recall: f64 },
    Pages { found: f64 },
    None,
}

fn target(set: &str) -> Target {
    match set {
        "zh-articles" => Target::Text { recall: 0.95 },
        "zh-paragraphs" => Target::Text { recall: 0.85 },
        "en-articles" => Target::Text { recall: 0.90 },
        "zh-pages" | "en-pages" => Target::Pages { found: 0.99 },
        // No recall target, but a setting must not drown it in false pairs.
        "en-paragraphs" => Target::Text { recall: 0.0 },
        _ => Target::None,
    }
}

fn meets(target: Target, p: &Point) -> bool {
    match target {
        Target::Text { recall } => p.recall >= recall && p.precision >= 0.99,
        Target::Pages { found } => p.recall >= found && p.false_pairs == 0,
        Target::None => true,
    }
}

/// One measured combination.
struct Row {
    set: String,
    candidate: String,
    signature: Confirm,
    scored: Scored,
}

/// The tokens every signature is made of: the default tokenizer's (jieba,
/// which also keeps Latin words whole), as the database would compute them
/// beside the default fingerprint.
pub fn feature_hashes(texts: &[String]) -> Vec<Vec<u64>> {
    let simhasher = feature_simhasher();
    texts
        .par_iter()
        .map(|t| simhasher.feature_hashes(t))
        .collect()
}

/// The tokens signatures are made of: jieba's words, counted plainly.
pub fn feature_simhasher() -> Simhasher {
    Simhasher::new(SimhashOptions {
        tokenizer: Tokenizer::Jieba,
        weighting: Weighting::Tf,
    })
}

/// What the recommended signature costs beside the default fingerprint,
/// on one core, over the first 2,000 documents of the set: from the text
/// (tokenization included), and from tokens already hashed (what it adds
/// where the fingerprint's tokens are at hand).
fn print_costs(texts: &[String], features: &[Vec<u64>]) {
    let sample = &texts[..texts.len().min(2000)];
    let default = Simhasher::new(SimhashOptions::default());
    // Loads jieba's dictionary and IDF table before anything is timed.
    let _ = default.fingerprint(&sample.concat());
    let per_document = |f: &dyn Fn(&str)| {
        let start = Instant::now();
        for t in sample {
            f(t);
        }
        start.elapsed().as_secs_f64() * 1e6 / sample.len().max(1) as f64
    };
    let fingerprint = per_document(&|t| {
        std::hint::black_box(default.fingerprint(t));
    });
    let signature = per_document(&|t| {
        let _ = std::hint::black_box(default.signature(t, SignatureLayout::RECOMMENDED));
    });
    let start = Instant::now();
    for f in &features[..sample.len()] {
        let _ = std::hint::black_box(Signature::from_feature_hashes(
            SignatureLayout::RECOMMENDED,
            f,
        ));
    }
    let from_tokens = start.elapsed().as_secs_f64() * 1e6 / sample.len().max(1) as f64;
    println!(
        "One core, mean of {} documents: default fingerprint {fingerprint:.0} µs; recommended signature ({}) from the text {signature:.0} µs, from hashed tokens {from_tokens:.0} µs.\n",
        sample.len(),
        SignatureLayout::RECOMMENDED
    );
}

pub fn candidate_method(spec: &str, lang: Lang) -> Result<Method> {
    if let Some(tokenizer) = spec.strip_prefix("learned@") {
        Ok(Method::Learned(tokenizer.parse()?))
    } else if spec.contains('/') {
        Ok(Method::Real(parse_configs(spec)?[0]))
    } else {
        Ok(Method::Proto(parse_proto(spec, lang)?))
    }
}

pub fn run(args: &Args, corpora: &[Corpus], started: Instant, load_start: &str) -> Result<()> {
    // The report scores every candidate within r bits; a rule that asks
    // for weak bits would be printed as if it had been applied.
    if args.settings.iter().any(|rule| rule.weak_bits.is_some()) {
        bail!("--settings takes rules without weak bits (--all-pairs and --probes model them)");
    }
    println!("# Two-stage matching on real text\n");
    println!(
        "Pairs within r bits of the candidate fingerprint, confirmed when the signature's estimated similarity is ≥ θ; \
each cell is recall / precision / false matches per query at the θ (in hundredths) with the best recall at precision ≥ 99% \
(pages: found / false pairs, best θ with no false pair).\n"
    );
    let mut rows: Vec<Row> = Vec::new();
    let mut detail = String::new();
    for c in corpora {
        let prefix = c.lang.code();
        for (set, originals, seed) in [
            ("articles", &c.articles, 0xa271_c1e5),
            ("paragraphs", &c.paragraphs, 0x9a7a_9a9b),
        ] {
            let name = format!("{prefix}-{set}");
            if !args.wants(&name) {
                continue;
            }
            let phase = Instant::now();
            let texts = eval::plant(originals, c.lang, seed);
            let truth = text_truth(texts.len());
            measure(args, c, &name, &texts, &truth, &mut rows, &mut detail)?;
            println!("({name}: {:.1} s)\n", phase.elapsed().as_secs_f64());
        }
        let name = format!("{prefix}-pages");
        if !args.wants(&name) {
            continue;
        }
        let phase = Instant::now();
        let pages = html::pages(&c.articles, c.lang);
        let texts: Vec<String> = pages
            .iter()
            .flat_map(|site| {
                site.par_iter()
                    .map(|bytes| {
                        page_text(bytes, Some("text/html"), Extract::Main)
                            .map(|p| p.text)
                            .unwrap_or_default()
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let truth = page_truth(c.articles.len());
        measure(args, c, &name, &texts, &truth, &mut rows, &mut detail)?;
        println!("({name}: {:.1} s)\n", phase.elapsed().as_secs_f64());
    }
    if args.settings.is_empty() {
        print_fixed_settings(&rows);
    } else {
        print_rules(&rows, &args.settings);
    }
    print_settings(&rows);
    println!(
        "Run: {:.0} s; load average {} at the start, {} at the end.",
        started.elapsed().as_secs_f64(),
        load_start,
        load_average()
    );
    if let Some(path) = &args.detail {
        std::fs::write(path, detail)?;
        println!("Every (r, θ): {}", path.display());
    }
    if let Some(dir) = &args.figures {
        write_figures(&rows, dir)?;
        println!("Figures: {}/<set>.svg", dir.display());
    }
    Ok(())
}

/// The lines of each set's figure: the default and the learned weights,
/// each by distance alone (θ = 0) and confirmed by the recommended
/// signature at θ = 0.50, as `fpdb tune` draws a user's sample.
const FIGURE_LINES: [(&str, &str, usize, &str); 4] = [
    ("jieba/tfidf:8", "minhash:64x4/w2/df20", 0, "tfidf:8"),
    (
        "jieba/tfidf:8",
        "minhash:64x4/w2/df20",
        50,
        "tfidf:8+confirm",
    ),
    ("learned@jieba", "minhash:64x4/w2/df20", 0, "learned"),
    (
        "learned@jieba",
        "minhash:64x4/w2/df20",
        50,
        "learned+confirm",
    ),
];

/// Each set's recall against false matches per query, drawn by
/// `fpdb-tune` as `fpdb tune` draws it, into `dir/<set>.svg`.
fn write_figures(rows: &[Row], dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    for set in sets {
        let mut curves = Vec::new();
        for (candidate, signature, theta, name) in FIGURE_LINES {
            let spec = Confirm::parse(signature)?;
            let Some(row) = rows
                .iter()
                .find(|r| r.set == set && r.candidate == candidate && r.signature == spec)
            else {
                continue;
            };
            let points = RADII
                .iter()
                .filter(|&&r| r <= R_AFFORDABLE)
                .map(|&r| {
                    let p = row.scored.at(r, theta);
                    CurvePoint {
                        radius: r,
                        recall: p.recall,
                        false_per_query: p.false_per_query,
                    }
                })
                .collect();
            curves.push(Curve {
                name: name.to_string(),
                points,
            });
        }
        if curves.is_empty() {
            continue;
        }
        let title = format!("{set}: recall against false matches");
        let svg = recall_against_false_matches(&title, &curves)?;
        std::fs::write(dir.join(format!("{set}.svg")), svg)?;
    }
    Ok(())
}

/// Planted texts: a group per original, its copies planted against it.
pub fn text_truth(documents: usize) -> Truth {
    let kinds = EditKind::ALL.len();
    Truth {
        group: (0..documents).map(|i| (i / eval::GROUP) as u32).collect(),
        planted: (0..documents / eval::GROUP)
            .flat_map(|g| {
                (0..kinds).map(move |k| {
                    (
                        (g * eval::GROUP) as u32,
                        (g * eval::GROUP + 1 + k) as u32,
                        k,
                    )
                })
            })
            .collect(),
        kinds,
    }
}

/// Pages: site one's `n` pages, then site two's; article i is page i and
/// page n + i.
fn page_truth(n: usize) -> Truth {
    Truth {
        group: (0..2 * n).map(|i| (i % n) as u32).collect(),
        planted: (0..n).map(|i| (i as u32, (n + i) as u32, 0)).collect(),
        kinds: 1,
    }
}

fn measure(
    args: &Args,
    c: &Corpus,
    set: &str,
    texts: &[String],
    truth: &Truth,
    rows: &mut Vec<Row>,
    detail: &mut String,
) -> Result<()> {
    let features = feature_hashes(texts);
    let crawl = feature_hashes(&c.learn_crawled);
    let empty = features.iter().filter(|f| f.is_empty()).count();
    let signatures: Vec<(&Confirm, Confirmer)> = args
        .signatures
        .iter()
        .map(|spec| (spec, Confirmer::new(spec, texts, &features, &crawl)))
        .collect();
    let pages = matches!(target(set), Target::Pages { .. });
    println!(
        "## {set}: {} documents{}\n",
        texts.len(),
        if empty > 0 {
            format!(" ({empty} without features)")
        } else {
            String::new()
        }
    );
    print_costs(texts, &features);
    // How big a database's frozen table of common features would be.
    let mut shares: Vec<u8> = args
        .signatures
        .iter()
        .filter_map(|s| match s.sig {
            SigSpec::MinHashRare { max_df, .. } => Some(max_df),
            _ => None,
        })
        .collect();
    shares.sort_unstable();
    shares.dedup();
    for share in shares {
        let common = CommonFeatures::learn(crawl.iter().map(Vec::as_slice), share)?;
        println!(
            "Common features (in more than {share}% of the {} crawl documents): {}.\n",
            crawl.len(),
            common.hashes().len()
        );
    }
    for spec_text in &args.candidates {
        let method = candidate_method(spec_text, c.lang)?;
        let fps = crate::fingerprints(&method, texts, c);
        let pairs = near_pairs(&fps);
        println!(
            "### candidates `{}` ({} pairs within {} bits)\n",
            method.name(),
            pairs.len(),
            crate::two_stage::R_MAX
        );
        print!("| signature | bytes |");
        for r in RADII {
            print!(" r = {r} |");
        }
        println!("\n|---|---|{}", "---|".repeat(RADII.len()));
        let mut first = true;
        for (spec, sigs) in &signatures {
            let scored = score(&fps, &pairs, sigs, truth);
            if first {
                // Distance alone, for comparison: θ = 0 confirms every pair.
                print!("| none (distance alone) | 0 |");
                for r in RADII {
                    let p = scored.at(r, 0);
                    if pages {
                        print!(" {} / {} |", pct(p.recall), p.false_pairs);
                    } else {
                        print!(
                            " {} / {} / {:.4} |",
                            pct(p.recall),
                            pct2(p.precision),
                            p.false_per_query
                        );
                    }
                }
                println!();
                first = false;
            }
            print!("| {} | {} |", spec.name(), spec.bytes());
            for r in RADII {
                let best = if pages {
                    scored.best_at(r, 0.0, Some(0))
                } else {
                    scored.best_at(r, 0.99, None)
                };
                match best {
                    Some(p) if pages => print!(" {} / 0 @{} |", pct(p.recall), p.theta),
                    Some(p) => print!(
                        " {} / {} / {:.4} @{} |",
                        pct(p.recall),
                        pct2(p.precision),
                        p.false_per_query,
                        p.theta
                    ),
                    None => print!(" – |"),
                }
            }
            println!();
            if args.show_false.as_deref()
                == Some(&*format!("{}+{}", spec_name(spec), method.name()))
            {
                show_false(texts, &pairs, sigs, truth);
            }
            write_detail(detail, set, &method.name(), spec, &scored, truth.kinds);
            rows.push(Row {
                set: set.to_string(),
                // The spec, not the name: a prototype's name says its
                // tokenizer, which differs by language.
                candidate: spec_text.clone(),
                signature: (*spec).clone(),
                scored,
            });
        }
        println!();
    }
    Ok(())
}

fn write_detail(
    out: &mut String,
    set: &str,
    candidate: &str,
    spec: &Confirm,
    scored: &Scored,
    kinds: usize,
) {
    let _ = writeln!(out, "## {set}, `{candidate}`, {}\n", spec.name());
    let _ = write!(
        out,
        "| r | θ | recall | precision | false pairs | false/query |"
    );
    if kinds > 1 {
        for kind in EditKind::ALL {
            let _ = write!(out, " {} |", kind.name());
        }
    }
    let _ = writeln!(
        out,
        "\n|---|---|---|---|---|---|{}",
        "---|".repeat(kinds.min(EditKind::ALL.len()).max(1) * usize::from(kinds > 1))
    );
    for r in RADII {
        for theta in (0..=90).step_by(5) {
            let p = scored.at(r, theta);
            let _ = write!(
                out,
                "| {r} | {:.2} | {} | {} | {} | {:.5} |",
                theta as f64 / 100.0,
                pct(p.recall),
                pct2(p.precision),
                p.false_pairs,
                p.false_per_query
            );
            if kinds > 1 {
                for kind in 0..kinds {
                    let _ = write!(out, " {} |", pct(scored.kind_recall(kind, r, theta)));
                }
            }
            let _ = writeln!(out);
        }
    }
    let _ = writeln!(out);
}

/// The chosen settings on every set, side by side.
fn print_fixed_settings(rows: &[Row]) {
    let sets = side_by_side_header(rows, "Chosen settings on every set", "signature");
    for (candidate, signature, theta) in SETTINGS {
        let Ok(spec) = Confirm::parse(signature) else {
            continue;
        };
        for r in SETTING_RADII {
            let mut cells = String::new();
            let mut any = false;
            for set in &sets {
                match rows.iter().find(|row| {
                    row.set == *set && row.candidate == candidate && row.signature == spec
                }) {
                    Some(row) => {
                        any = true;
                        cells.push_str(&cell(set, &row.scored.at(r, theta)));
                    }
                    None => cells.push_str(" |"),
                }
            }
            if any {
                println!(
                    "| {candidate} | {} | {r} | {:.2} |{cells}",
                    spec.name(),
                    theta as f64 / 100.0
                );
            }
        }
    }
    println!();
}

/// The named rules on every set, side by side: recall / precision /
/// false matches per query (pages: found / false pairs).
fn print_rules(rows: &[Row], rules: &[Rule]) {
    let sets = side_by_side_header(rows, "The named rules on every set", "confirmation");
    for rule in rules {
        let Some(confirm) = &rule.signature else {
            continue;
        };
        let theta = (rule.theta * 100.0).round() as usize;
        print!(
            "| {} | {} | {} | {:.2} |",
            rule.candidate,
            confirm.name(),
            rule.r,
            rule.theta
        );
        for set in &sets {
            match rows.iter().find(|row| {
                row.set == *set && row.candidate == rule.candidate && row.signature == *confirm
            }) {
                Some(row) => print!("{}", cell(set, &row.scored.at(rule.r, theta))),
                None => print!(" – |"),
            }
        }
        println!();
    }
    println!();
}

/// Prints the title and the header of a table with a column per set of
/// `rows` (the second column named `second`); returns the sets.
fn side_by_side_header<'a>(rows: &'a [Row], title: &str, second: &str) -> Vec<&'a str> {
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    println!("## {title}\n");
    print!("| candidates | {second} | r | θ |");
    for set in &sets {
        print!(" {set} |");
    }
    println!("\n|---|---|---|---|{}", "---|".repeat(sets.len()));
    sets
}

/// One set's cell: recall / precision / false matches per query (pages:
/// found / false pairs).
fn cell(set: &str, p: &Point) -> String {
    if matches!(target(set), Target::Pages { .. }) {
        format!(" {} / {} |", pct(p.recall), p.false_pairs)
    } else {
        format!(
            " {} / {} / {:.4} |",
            pct(p.recall),
            pct2(p.precision),
            p.false_per_query
        )
    }
}

/// Settings (candidate, signature, r, θ) ranked by how many sets' targets
/// they meet, then by their worst recall over the sets with a target.
fn print_settings(rows: &[Row]) {
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    let mut combos: Vec<(&str, &Confirm)> = Vec::new();
    for row in rows {
        if !combos
            .iter()
            .any(|(c, s)| *c == row.candidate && **s == row.signature)
        {
            combos.push((&row.candidate, &row.signature));
        }
    }
    let mut ranked = Vec::new();
    for (candidate, signature) in combos {
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| r.candidate == candidate && r.signature == *signature)
            .collect();
        for r in RADII.into_iter().filter(|&r| r <= R_AFFORDABLE) {
            for theta in 0..=100 {
                let points: Vec<(&str, Point)> = mine
                    .iter()
                    .map(|row| (row.set.as_str(), row.scored.at(r, theta)))
                    .collect();
                let met = points
                    .iter()
                    .filter(|(set, p)| {
                        !matches!(target(set), Target::None) && meets(target(set), p)
                    })
                    .count();
                let worst = points
                    .iter()
                    .filter(|(set, _)| match target(set) {
                        Target::Text { recall } => recall > 0.0,
                        Target::Pages { .. } => true,
                        Target::None => false,
                    })
                    .map(|(_, p)| p.recall)
                    .fold(1.0f64, f64::min);
                let false_pairs: usize = points.iter().map(|(_, p)| p.false_pairs).sum();
                ranked.push((
                    met,
                    worst,
                    false_pairs,
                    candidate,
                    signature,
                    r,
                    theta,
                    points,
                ));
            }
        }
    }
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(b.6.cmp(&a.6))
    });
    println!("## Settings on every set at once, r ≤ {R_AFFORDABLE} (best 10 of each candidate fingerprint)\n");
    println!("Each cell: recall / precision / false matches per query (pages: found / false pairs); targets met counted over the sets with one.\n");
    print!("| candidates | signature | r | θ | targets met |");
    for set in &sets {
        print!(" {set} |");
    }
    println!("\n|---|---|---|---|---|{}", "---|".repeat(sets.len()));
    // The best settings of each candidate fingerprint, so a candidate that
    // loses overall still shows what it does.
    let mut shown: HashMap<&str, usize> = HashMap::new();
    let best = ranked.iter().filter(|row| {
        let n = shown.entry(row.3).or_insert(0);
        *n += 1;
        *n <= 10
    });
    for (met, _, _, candidate, signature, r, theta, points) in best {
        print!(
            "| {candidate} | {} | {r} | {:.2} | {met} |",
            signature.name(),
            *theta as f64 / 100.0
        );
        for set in &sets {
            match points.iter().find(|(s, _)| s == set) {
                Some((s, p)) if matches!(target(s), Target::Pages { .. }) => {
                    print!(" {} / {} |", pct(p.recall), p.false_pairs)
                }
                Some((_, p)) => print!(
                    " {} / {} / {:.4} |",
                    pct(p.recall),
                    pct2(p.precision),
                    p.false_per_query
                ),
                None => print!(" |"),
            }
        }
        println!();
    }
    println!();
}

fn spec_name(spec: &Confirm) -> String {
    spec.name()
}

/// The false pairs that look most alike to the signature, with the start
/// of each text and its place in its group (0 the original).
fn show_false(texts: &[String], pairs: &[(u32, u32, u8)], sigs: &Confirmer, truth: &Truth) {
    let mut false_pairs: Vec<(f64, u32, u32, u8)> = pairs
        .iter()
        .filter(|(a, b, _)| truth.group[*a as usize] != truth.group[*b as usize])
        .map(|&(a, b, d)| (sigs.similarity(a as usize, b as usize), a, b, d))
        .collect();
    false_pairs.sort_by(|x, y| y.0.total_cmp(&x.0));
    let start = |i: u32| {
        texts[i as usize]
            .chars()
            .take(90)
            .collect::<String>()
            .replace('\n', " ")
    };
    for (s, a, b, d) in false_pairs.iter().take(12) {
        println!(
            "false pair: similarity {s:.2}, {d} bits, documents {a} ({}) and {b} ({}):\n  {}\n  {}",
            a % eval::GROUP as u32,
            b % eval::GROUP as u32,
            start(*a),
            start(*b)
        );
    }
}
