//! Detection-quality report on real text: how many planted
//! near-duplicates each tokenizer/weighting finds at k = 3..7, how many of
//! the pairs it reports are real, and whether one article under two site
//! templates is found while different articles on one site are not.
//!
//! Usage: `make quality`, or after `python3 benches/scripts/quality_corpus.py DIR`:
//! `cargo run --release -p fpdb-quality -- [--data DIR] [--articles N] [--paragraphs N] [--sets zh-articles,en-pages,...] [--configs jieba/tf,chars:4/tf,...] [--protos SPEC,...] [--no-protos] [--detail FILE] [--show-false CONFIG] [--warc FILE]`
//! `... --two-stage [--candidates SPEC,...] [--signatures minhash:HxB/wS[/dfP],simhash:BITS,...] [--figures DIR]`
//! (two-stage matching, `two_stage_report.rs`) or `... --growth 'CANDIDATES|SIGNATURE|R|THETA;...'`
//! (false matches per query against a growing background, `growth.rs`) or
//! `... --all-pairs RULES` (the same rules on every pair of planted and
//! background texts, `all_pairs.rs`; `--sets en-paragraphs` keeps one
//! language);
//! `--settings` in the growth rules' syntax names the rules the two-stage
//! report shows on every set side by side (their candidates and signatures
//! are measured too). A signature may carry gates on each document's own
//! content, `minhash:64x4/w2/df20+shared7` (`confirm.rs`), or weigh its
//! shingles by rarity, `+idf2` (`weighted.rs`).
//! `--export DIR` writes the planted sets the probe report measures as
//! files (`export.rs`) for `benches/scripts/dedup_quality.py` to score
//! whole `fpdb dedup` processes on.
//! `--eval-sources en-foldoc,...` measures the named other sources
//! (`corpus::OTHER_SOURCES`) instead of the news and the addresses, only
//! the languages named.
//!
//! For each language there are `--articles` article-length originals and
//! `--paragraphs` paragraph-length ones (150–600 characters), each planted
//! with one copy per edit kind (`edits.rs`). Recall per kind is the share of
//! (original, copy) pairs within k bits; precision is over every pair of
//! documents (originals and copies), a pair being false when its two
//! documents come from different originals. The articles are also laid
//! out as pages of two sites (`html.rs`) and extracted by fpdb-html, main
//! content and all visible text. Configurations marked `*` are prototypes
//! of this harness (`proto.rs`), not options of fpdb-simhash.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "report code: a broken setup should panic loudly"
)]

mod all_pairs;
mod confirm;
mod corpus;
mod eval;
mod export;
mod growth;
mod html;
mod probes;
mod proto;
mod rare;
mod two_stage;
mod two_stage_report;
mod warc;
mod weighted;
use fpdb_rng as rng;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fpdb_html::{page_text, Extract};
use fpdb_simhash::{LearnedIdf, SimhashOptions, Simhasher, Tokenizer, Weighting};
use rayon::prelude::*;

use corpus::{Corpus, Original};
use eval::{AtK, PagesAtK, KS};
use fpdb_tune::{EditKind, Lang};
use proto::{Base, Idf, Proto, Tokenized};

/// One configuration in the report.
#[derive(Debug, Clone, Copy)]
enum Method {
    Real(SimhashOptions),
    Proto(Proto),
    /// fpdb-simhash's learned weights on this tokenizer, the table learned
    /// from the crawl (the learn half with edits), as a database learns it
    /// from its first bulk load.
    Learned(Tokenizer),
}

impl Method {
    fn name(&self) -> String {
        match self {
            Method::Real(o) if *o == SimhashOptions::default() => {
                format!("{}/{} (default)", o.tokenizer, o.weighting)
            }
            Method::Real(o) => format!("{}/{}", o.tokenizer, o.weighting),
            Method::Proto(p) => p.to_string(),
            Method::Learned(tokenizer) => format!("learned@{tokenizer}"),
        }
    }
}

struct Args {
    data: PathBuf,
    articles: usize,
    paragraphs: usize,
    configs: Vec<SimhashOptions>,
    protos: Vec<String>,
    detail: Option<PathBuf>,
    /// Draw each set's recall against false matches per query (two-stage
    /// report) as `<set>.svg` in this directory.
    figures: Option<PathBuf>,
    /// Print some false pairs of this configuration (to see what they are).
    show_false: Option<String>,
    /// Write every page (both languages, both sites) to this WARC file and
    /// stop.
    warc: Option<PathBuf>,
    /// Measure two-stage matching (candidates within a radius, confirmed by
    /// a signature) instead of the single-fingerprint tables.
    two_stage: bool,
    /// Measure query-adaptive probing (`probes.rs`) instead.
    probes: bool,
    /// Write the planted sets to this directory (`export.rs`) and stop.
    export: Option<PathBuf>,
    /// Candidate fingerprints of the two-stage report: fpdb options
    /// (`TOKENIZER/WEIGHTS`) or prototypes.
    candidates: Vec<String>,
    /// Confirming signatures of the two-stage report.
    signatures: Vec<confirm::Confirm>,
    /// Only these sets (`zh-articles`, `zh-paragraphs`, `zh-pages`, and the
    /// same for `en`), in either report; all when empty.
    sets: Vec<String>,
    /// Measure false matches per query against a growing background with
    /// these rules instead.
    growth: Vec<growth::Rule>,
    /// Measure false matches among every pair of texts with these rules
    /// instead.
    all_pairs: Vec<growth::Rule>,
    /// The rules (growth's syntax) the two-stage report shows on every set
    /// side by side, instead of its own choice.
    settings: Vec<growth::Rule>,
    /// Measure these other sources (`corpus::OTHER_SOURCES`) instead of
    /// each language's source; a language none is named for is left out.
    eval_sources: Vec<String>,
}

impl Args {
    fn wants(&self, set: &str) -> bool {
        self.sets.is_empty() || self.sets.iter().any(|s| s == set)
    }
}

const REAL_CONFIGS: &str = "jieba/tf,jieba/tfidf,jieba/tfidf:4,jieba/tfidf:8,jieba/tfidf:16,jieba/tfidf:32,jieba/tfidf:1000,\
chars:2/tf,chars:3/tf,chars:4/tf,chars:3/tfidf:32,words/tf,words/tfidf,words/tfidf:16,words/tfidf:1000";

fn parse_args() -> Result<Args> {
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let mut args = Args {
        data: home.join(".cache/fpdb-quality"),
        articles: 2000,
        paragraphs: 2000,
        configs: parse_configs(REAL_CONFIGS)?,
        protos: PROTOS.split(',').map(str::to_string).collect(),
        detail: None,
        figures: None,
        show_false: None,
        warc: None,
        two_stage: false,
        probes: false,
        export: None,
        candidates: two_stage_report::CANDIDATES
            .split(',')
            .map(str::to_string)
            .collect(),
        signatures: parse_signatures(two_stage_report::SIGNATURES)?,
        sets: Vec::new(),
        growth: Vec::new(),
        all_pairs: Vec::new(),
        settings: Vec::new(),
        eval_sources: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--data" => args.data = PathBuf::from(value("--data")?),
            "--articles" => args.articles = value("--articles")?.parse()?,
            "--paragraphs" => args.paragraphs = value("--paragraphs")?.parse()?,
            "--configs" => args.configs = parse_configs(&value("--configs")?)?,
            "--no-protos" => args.protos.clear(),
            "--protos" => {
                args.protos = value("--protos")?.split(',').map(str::to_string).collect();
            }
            "--detail" => args.detail = Some(PathBuf::from(value("--detail")?)),
            "--figures" => args.figures = Some(PathBuf::from(value("--figures")?)),
            "--show-false" => args.show_false = Some(value("--show-false")?),
            "--warc" => args.warc = Some(PathBuf::from(value("--warc")?)),
            "--two-stage" => args.two_stage = true,
            "--probes" => args.probes = true,
            "--export" => args.export = Some(PathBuf::from(value("--export")?)),
            "--growth" => {
                args.growth = value("--growth")?
                    .split(';')
                    .map(growth::Rule::parse)
                    .collect::<Result<_>>()?;
            }
            "--all-pairs" => {
                args.all_pairs = value("--all-pairs")?
                    .split(';')
                    .map(growth::Rule::parse)
                    .collect::<Result<_>>()?;
            }
            "--settings" => {
                args.settings = value("--settings")?
                    .split(';')
                    .map(growth::Rule::parse)
                    .collect::<Result<_>>()?;
            }
            "--candidates" => {
                args.candidates = value("--candidates")?
                    .split(',')
                    .map(str::to_string)
                    .collect();
            }
            "--signatures" => args.signatures = parse_signatures(&value("--signatures")?)?,
            "--eval-sources" => {
                args.eval_sources = value("--eval-sources")?
                    .split(',')
                    .map(str::to_string)
                    .collect();
            }
            "--sets" => {
                args.sets = value("--sets")?.split(',').map(str::to_string).collect();
            }
            _ => bail!("unknown argument {arg}"),
        }
    }
    // The named rules are measured whatever else is.
    for rule in &args.settings {
        if !args.candidates.contains(&rule.candidate) {
            args.candidates.push(rule.candidate.clone());
        }
        if let Some(confirm) = &rule.signature {
            if !args.signatures.contains(confirm) {
                args.signatures.push(confirm.clone());
            }
        }
    }
    Ok(args)
}

fn parse_signatures(list: &str) -> Result<Vec<confirm::Confirm>> {
    list.split(',').map(confirm::Confirm::parse).collect()
}

fn parse_configs(list: &str) -> Result<Vec<SimhashOptions>> {
    list.split(',')
        .map(|text| {
            let (tokenizer, weighting) = text
                .split_once('/')
                .with_context(|| format!("config {text:?} is not TOKENIZER/WEIGHTS"))?;
            Ok(SimhashOptions {
                tokenizer: tokenizer.parse()?,
                weighting: weighting.parse()?,
            })
        })
        .collect()
}

/// The prototypes measured by default (see [`parse_proto`]).
const PROTOS: &str = "cidf^2,crawl^1,crawl^2,crawl^2+bigrams,cidf^1:16,cidf^1:16-soft,\
crawl^1:8-soft,crawl^1:16-soft,crawl^1:32-soft,jieba^1:8-soft,jieba^1:16-soft";

/// A prototype from `IDF^POWER[:N][~SHARE][>SHARE][-soft][+bigrams]`, IDF being
/// `cidf` (learn half), `crawl` (learn half with edits) or `jieba` (jieba's
/// table, through its keyword extractor), `~SHARE` capping the idf at
/// ln(1 / SHARE), `>SHARE` leaving out words in more than SHARE of the
/// documents; on the word tokenizer that
/// suits the language (jieba for Chinese, Unicode words for English).
fn parse_proto(spec: &str, lang: Lang) -> Result<Proto> {
    let (rest, bigrams) = match spec.strip_suffix("+bigrams") {
        Some(rest) => (rest, true),
        None => (spec, false),
    };
    let (rest, soft) = match rest.strip_suffix("-soft") {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    let (rest, common) = match rest.split_once('>') {
        Some((rest, share)) => (rest, Some(share.parse()?)),
        None => (rest, None),
    };
    let (rest, cap) = match rest.split_once('~') {
        Some((rest, share)) => (rest, Some(share.parse()?)),
        None => (rest, None),
    };
    let (rest, top) = match rest.split_once(':') {
        Some((rest, n)) => (rest, Some(n.parse()?)),
        None => (rest, None),
    };
    let (idf, power) = rest.split_once('^').with_context(|| {
        format!("prototype {spec:?} is not IDF^POWER[:N][~SHARE][>SHARE][-soft][+bigrams]")
    })?;
    let idf = match idf {
        "cidf" => Idf::Corpus,
        "crawl" => Idf::Crawl,
        "jieba" => Idf::Jieba,
        "wordfreq" => Idf::Registry,
        _ => bail!("unknown IDF {idf:?} in {spec:?}"),
    };
    let base = match (idf, lang) {
        (Idf::Jieba, _) | (_, Lang::Zh) => Base::Jieba,
        (_, Lang::En) => Base::Words,
    };
    Ok(Proto {
        base,
        idf,
        power: power.parse()?,
        top,
        soft,
        bigrams,
        cap,
        common,
    })
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let started = Instant::now();
    let load_start = load_average();
    let mut detail = String::new();
    let corpora = if args.eval_sources.is_empty() {
        vec![
            corpus::chinese(&args.data, args.articles, args.paragraphs)?,
            corpus::english(&args.data, args.articles, args.paragraphs)?,
        ]
    } else {
        corpus::other_sources(
            &args.data,
            &args.eval_sources,
            args.articles,
            args.paragraphs,
        )?
    };
    if let Some(path) = &args.warc {
        return write_warc(path, &corpora);
    }
    if !args.growth.is_empty() {
        return growth::run(&args.growth, &corpora, args.show_false.is_some());
    }
    if !args.all_pairs.is_empty() {
        // `--sets` names languages here: a set of either language keeps it.
        let corpora: Vec<Corpus> = corpora
            .into_iter()
            .filter(|c| {
                args.sets.is_empty() || args.sets.iter().any(|s| s.starts_with(c.lang.code()))
            })
            .collect();
        return all_pairs::run(&args.all_pairs, &corpora, args.show_false.is_some());
    }
    if args.probes {
        return probes::run(&args, &corpora);
    }
    if let Some(dir) = &args.export {
        return export::run(&args, &corpora, dir);
    }
    if args.two_stage {
        return two_stage_report::run(&args, &corpora, started, &load_start);
    }
    println!("# Detection quality on real text\n");
    for c in &corpora {
        println!(
            "- {}: {} articles (mean {} chars), {} paragraphs (mean {} chars) to measure; {} learn-half documents for the corpus IDF; {} originals left out as reposts of another",
            c.lang.name(),
            c.articles.len(),
            mean_chars(&c.articles),
            c.paragraphs.len(),
            mean_chars(&c.paragraphs),
            c.learn.len(),
            c.pruned
        );
    }
    println!(
        "- each original planted with one copy per edit kind ({}); k = {}..{}; `*` = prototype of this harness\n",
        EditKind::ALL.map(EditKind::name).join(", "),
        KS.start(),
        KS.end()
    );
    for c in &corpora {
        for (set, originals, seed) in [
            ("articles", &c.articles, 0xa271_c1e5),
            ("paragraphs", &c.paragraphs, 0x9a7a_9a9b),
        ] {
            if !args.wants(&format!("{}-{set}", c.lang.code())) {
                continue;
            }
            let phase = Instant::now();
            let texts = eval::plant(originals, c.lang, seed);
            let methods = methods(&args, c.lang)?;
            let (results, check) = text_results(&methods, &texts, c, &args)?;
            let title = format!("{} {set}", c.lang.name());
            print_text_tables(&title, originals.len(), texts.len(), &results);
            if let Some(check) = check {
                println!("{check}");
            }
            write_detail(&mut detail, &title, &results);
            println!("({title}: {:.1} s)\n", phase.elapsed().as_secs_f64());
        }
        if !args.wants(&format!("{}-pages", c.lang.code())) {
            continue;
        }
        let phase = Instant::now();
        let pages = html::pages(&c.articles, c.lang);
        let html_bytes: usize = pages.iter().flatten().map(Vec::len).sum();
        let mut rows = Vec::new();
        for extract in [Extract::Main, Extract::All] {
            let texts: Vec<Vec<String>> = pages
                .iter()
                .map(|site| {
                    site.par_iter()
                        .map(|bytes| {
                            page_text(bytes, Some("text/html"), extract)
                                .map(|p| p.text)
                                .unwrap_or_default()
                        })
                        .collect()
                })
                .collect();
            for method in methods(&args, c.lang)? {
                let both: Vec<String> = texts.concat();
                let fps = fingerprints(&method, &both, c);
                let (a, b) = fps.split_at(texts[0].len());
                if args.show_false.as_deref() == Some(method.name().as_str()) {
                    show_split_pages(a, b, &texts, extract);
                }
                rows.push((method.name(), extract, eval::score_pages(a, b)));
            }
        }
        print_page_table(c, html_bytes, &rows);
        println!(
            "({} pages: {:.1} s)\n",
            c.lang.name(),
            phase.elapsed().as_secs_f64()
        );
    }
    println!(
        "Run: {:.0} s; load average {} at the start, {} at the end.",
        started.elapsed().as_secs_f64(),
        load_start,
        load_average()
    );
    if let Some(path) = &args.detail {
        std::fs::write(path, detail).with_context(|| format!("writing {}", path.display()))?;
        println!("Recall per edit kind at every k: {}", path.display());
    }
    Ok(())
}

/// Every article of `corpora` under both sites, as WARC response records.
fn write_warc(path: &std::path::Path, corpora: &[Corpus]) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let (mut pages, mut bytes) = (0usize, 0usize);
    for c in corpora {
        for (site, site_pages) in html::pages(&c.articles, c.lang).iter().enumerate() {
            for (i, page) in site_pages.iter().enumerate() {
                let uri = format!("https://site{site}.example/{}/{i}.html", c.lang.name());
                warc::write_response(&mut out, &uri, page)?;
                pages += 1;
                bytes += page.len();
            }
        }
    }
    std::io::Write::flush(&mut out)?;
    println!(
        "wrote {pages} pages ({bytes} bytes of HTML) to {}",
        path.display()
    );
    Ok(())
}

fn methods(args: &Args, lang: Lang) -> Result<Vec<Method>> {
    let mut out: Vec<Method> = args.configs.iter().copied().map(Method::Real).collect();
    for spec in &args.protos {
        out.push(Method::Proto(parse_proto(spec, lang)?));
    }
    Ok(out)
}

fn mean_chars(originals: &[Original]) -> usize {
    originals
        .iter()
        .map(|o| o.text.chars().count())
        .sum::<usize>()
        / originals.len().max(1)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// Fingerprints of `texts` by `method`; prototypes learn their IDF from
/// the corpus's learn half.
fn fingerprints(method: &Method, texts: &[String], c: &Corpus) -> Vec<u64> {
    match method {
        Method::Real(options) => {
            let simhasher = Simhasher::new(*options);
            texts
                .par_iter()
                .map(|t| simhasher.fingerprint(t).0)
                .collect()
        }
        Method::Proto(p) => p.fingerprints(&prepare(p, texts, c)),
        Method::Learned(tokenizer) => {
            let simhasher = learned_simhasher(*tokenizer, c);
            texts
                .par_iter()
                .map(|t| simhasher.fingerprint(t).0)
                .collect()
        }
    }
}

/// A simhasher with weights learned from the crawl's documents.
fn learned_simhasher(tokenizer: Tokenizer, c: &Corpus) -> Simhasher {
    let plain = Simhasher::new(SimhashOptions {
        tokenizer,
        weighting: Weighting::Tf,
    });
    let features: Vec<Vec<u64>> = c
        .learn_crawled
        .par_iter()
        .map(|t| plain.feature_hashes(t))
        .collect();
    let idf = LearnedIdf::learn(features.iter().map(Vec::as_slice));
    Simhasher::learned(tokenizer, Arc::new(idf))
}

/// The documents as a prototype needs them.
fn prepare(p: &Proto, texts: &[String], c: &Corpus) -> Tokenized {
    match p.idf {
        Idf::Corpus => proto::tokenize(texts, &c.learn, p.base),
        Idf::Crawl => proto::tokenize(texts, &c.learn_crawled, p.base),
        Idf::Registry => proto::tokenize_known(texts, &c.registry_idf, p.base),
        Idf::Jieba => proto::jieba_keywords(texts),
    }
}

/// A configuration's name and its counts at each k.
type Scored = (String, Vec<AtK>);

fn text_results(
    methods: &[Method],
    texts: &[String],
    c: &Corpus,
    args: &Args,
) -> Result<(Vec<Scored>, Option<String>)> {
    let mut out = Vec::new();
    // Prototypes with one base and IDF share one tokenization.
    let mut prepared: HashMap<(Base, Idf), Tokenized> = HashMap::new();
    for method in methods {
        let fps = match method {
            Method::Proto(p) => p.fingerprints(
                prepared
                    .entry((p.base, p.idf))
                    .or_insert_with(|| prepare(p, texts, c)),
            ),
            real => fingerprints(real, texts, c),
        };
        if args.show_false.as_deref() == Some(method.name().as_str()) {
            show_false_pairs(&fps, texts);
        }
        out.push((method.name(), eval::score(&fps)));
    }
    if !args.protos.is_empty() {
        let base = match c.lang {
            Lang::Zh => Base::Jieba,
            Lang::En => Base::Words,
        };
        return Ok((out, harness_agreement(texts, c, base, &prepared)?));
    }
    Ok((out, None))
}

/// The first few pairs of documents from different originals within 3
/// bits, with the start of each, and how many involve each edit kind.
fn show_false_pairs(fps: &[u64], texts: &[String]) {
    let start = |t: &str| t.chars().take(70).collect::<String>().replace('\n', " ");
    let kind = |i: usize| match i % eval::GROUP {
        0 => "original",
        n => EditKind::ALL[n - 1].name(),
    };
    let mut shown = 0;
    let mut by_kind: HashMap<&str, usize> = HashMap::new();
    let mut total = 0;
    for i in 0..fps.len() {
        for j in (i / eval::GROUP + 1) * eval::GROUP..fps.len() {
            let d = (fps[i] ^ fps[j]).count_ones();
            if d > 3 {
                continue;
            }
            total += 1;
            for k in [kind(i), kind(j)] {
                *by_kind.entry(k).or_insert(0) += 1;
            }
            if shown < 8 {
                println!(
                    "false pair, {d} bits:\n  {}\n  {}",
                    start(&texts[i]),
                    start(&texts[j])
                );
                shown += 1;
            }
        }
    }
    let mut by_kind: Vec<_> = by_kind.into_iter().collect();
    by_kind.sort();
    println!("{total} false pairs within 3 bits; documents in them by kind: {by_kind:?}");
}

/// The extracted texts of the first article whose two pages are more
/// than 3 bits apart.
fn show_split_pages(a: &[u64], b: &[u64], texts: &[Vec<String>], extract: Extract) {
    if let Some(i) = (0..a.len()).find(|&i| (a[i] ^ b[i]).count_ones() > 3) {
        println!(
            "pages of article {i} {} bits apart ({extract}):\n--- site 1:\n{}\n--- site 2:\n{}\n---",
            (a[i] ^ b[i]).count_ones(),
            texts[0][i],
            texts[1][i]
        );
    }
}

/// How often the harness's token path gives the real tf fingerprint: the
/// prototypes are only comparable with the real options if this is high.
fn harness_agreement(
    texts: &[String],
    c: &Corpus,
    base: Base,
    prepared: &HashMap<(Base, Idf), Tokenized>,
) -> Result<Option<String>> {
    let tokenized = match prepared.get(&(base, Idf::Crawl)) {
        Some(t) => t,
        None => match prepared.get(&(base, Idf::Corpus)) {
            Some(t) => t,
            None => return Ok(None),
        },
    };
    let tokenizer = match base {
        Base::Jieba => "jieba",
        Base::Words => "words",
    };
    let real = fingerprints(
        &Method::Real(SimhashOptions {
            tokenizer: tokenizer.parse()?,
            weighting: "tf".parse()?,
        }),
        texts,
        c,
    );
    let harness = Proto::plain_tf(base).fingerprints(tokenized);
    let same = real.iter().zip(&harness).filter(|(a, b)| a == b).count();
    Ok(Some(format!(
        "Harness check: the prototypes' {tokenizer}/tf equals fpdb-simhash's on {same} of {} documents.\n",
        texts.len()
    )))
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn pct2(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn print_text_tables(
    title: &str,
    originals: usize,
    documents: usize,
    results: &[(String, Vec<AtK>)],
) {
    println!(
        "## {title}: {originals} originals, {documents} documents, {} pairs\n",
        documents * (documents - 1) / 2
    );
    print!("| options (k = 3) |");
    for kind in EditKind::ALL {
        print!(" {} |", kind.name());
    }
    println!(" recall | precision | false pairs |");
    println!("|---|{}---|---|---|", "---|".repeat(EditKind::ALL.len()));
    for (name, at) in results {
        let a = &at[0];
        print!("| {name} |");
        for kind in 0..EditKind::ALL.len() {
            print!(" {} |", pct(a.kind_recall(kind)));
        }
        println!(
            " {} | {} | {} |",
            pct(a.recall()),
            pct2(a.precision()),
            a.false_pairs
        );
    }
    println!();
    print!("| options: recall / precision |");
    for k in KS {
        print!(" k = {k} |");
    }
    println!("\n|---|{}", "---|".repeat(KS.count()));
    for (name, at) in results {
        print!("| {name} |");
        for a in at {
            print!(" {} / {} |", pct(a.recall()), pct2(a.precision()));
        }
        println!();
    }
    println!();
    for (label, only_k3) in [("at k = 3", true), ("at any k", false)] {
        let best = results
            .iter()
            .flat_map(|(name, at)| at.iter().map(move |a| (name, a)))
            .filter(|(_, a)| a.precision() >= 0.99 && (!only_k3 || a.k == 3))
            .max_by(|x, y| x.1.recall().total_cmp(&y.1.recall()));
        match best {
            Some((name, a)) => println!(
                "Best recall at precision ≥ 99% {label}: {name}, k = {}: recall {}, precision {}.",
                a.k,
                pct(a.recall()),
                pct2(a.precision())
            ),
            None => println!("No configuration reaches precision ≥ 99% {label}."),
        }
    }
    println!();
}

fn write_detail(out: &mut String, title: &str, results: &[(String, Vec<AtK>)]) {
    let _ = writeln!(out, "## {title}\n");
    let _ = write!(out, "| options | k |");
    for kind in EditKind::ALL {
        let _ = write!(out, " {} |", kind.name());
    }
    let _ = writeln!(out, " recall | precision | false pairs |");
    let _ = writeln!(
        out,
        "|---|---|{}---|---|---|",
        "---|".repeat(EditKind::ALL.len())
    );
    for (name, at) in results {
        for a in at {
            let _ = write!(out, "| {name} | {} |", a.k);
            for kind in 0..EditKind::ALL.len() {
                let _ = write!(out, " {} |", pct(a.kind_recall(kind)));
            }
            let _ = writeln!(
                out,
                " {} | {} | {} |",
                pct(a.recall()),
                pct2(a.precision()),
                a.false_pairs
            );
        }
    }
    let _ = writeln!(out);
}

fn print_page_table(c: &Corpus, html_bytes: usize, rows: &[(String, Extract, Vec<PagesAtK>)]) {
    let n = c.articles.len();
    println!(
        "## {} pages: {n} articles × 2 sites, {:.1} MB of HTML\n",
        c.lang.name(),
        html_bytes as f64 / 1e6
    );
    println!(
        "Each cell: articles whose two pages are within k / pairs of different articles on one site within k (of {}) / on different sites (of {}).\n",
        n * (n - 1),
        n * (n - 1)
    );
    print!("| options | extract |");
    for k in KS {
        print!(" k = {k} |");
    }
    println!("\n|---|---|{}", "---|".repeat(KS.count()));
    for (name, extract, at) in rows {
        print!("| {name} | {extract} |");
        for a in at {
            print!(
                " {} / {} / {} |",
                pct(a.recall()),
                a.same_site_false,
                a.cross_site_false
            );
        }
        println!();
    }
    println!();
}
