//! `fpdb report`: the page's numbers against brute force, the words of
//! two texts marked, ids escaped, and the page drawn by a real browser.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::corpus::{brute_clusters, brute_pairs, corpus, fps_text};
use crate::common::{fpdb, ok, stderr};

/// The `<section id="…">` of `html`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id}"));
    let end = html[start..].find("</section>").unwrap() + start;
    &html[start..end]
}

/// The attributes of every element of `html` that starts with `open`
/// (e.g. `<g class="bar"`), as name → value maps.
fn elements(html: &str, open: &str) -> Vec<BTreeMap<String, String>> {
    html.split(open)
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let mut attributes = BTreeMap::new();
            for part in tag.split('"').collect::<Vec<_>>().chunks(2) {
                if let [name, value] = part {
                    let name = name.trim().trim_end_matches('=');
                    attributes.insert(name.to_string(), value.to_string());
                }
            }
            attributes
        })
        .collect()
}

fn number(attributes: &BTreeMap<String, String>, name: &str) -> u64 {
    attributes[name].parse().unwrap()
}

/// A database of `docs` with `--k k`, and its report with `args`.
fn report(dir: &Path, docs: &[(String, u64)], k: u32, args: &[&str]) -> String {
    std::fs::write(dir.join("docs.fps"), fps_text(docs)).unwrap();
    if !dir.join("db").exists() {
        ok(dir, &["create", "db", "--k", &k.to_string()], "");
        ok(dir, &["load", "db", "docs.fps"], "");
    }
    let mut all = vec!["report", "db", "--html", "report.html"];
    all.extend_from_slice(args);
    ok(dir, &all, "");
    std::fs::read_to_string(dir.join("report.html")).unwrap()
}

#[test]
fn the_pages_numbers_are_what_brute_force_finds() {
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(23, 500);
    for k in [4, 2] {
        let html = report(
            dir.path(),
            &docs,
            4,
            &["--k", &k.to_string(), "--sample", "100000"],
        );
        let expected = brute_pairs(&docs, k);
        assert!(expected.len() > 50, "the corpus plants near pairs");

        // The distance histogram: one bar per distance 0..=k.
        let mut by_distance = vec![0u64; k as usize + 1];
        for (_, _, distance) in &expected {
            by_distance[*distance as usize] += 1;
        }
        let bars = elements(section(&html, "distances"), "<g class=\"bar\"");
        let drawn: Vec<u64> = bars.iter().map(|b| number(b, "data-pairs")).collect();
        let distances: Vec<u64> = bars.iter().map(|b| number(b, "data-distance")).collect();
        assert_eq!(distances, (0..=u64::from(k)).collect::<Vec<_>>());
        assert_eq!(drawn, by_distance, "k = {k}");

        // Cluster sizes: bins from 2 up, touching, covering every cluster.
        let clusters = brute_clusters(&docs, k);
        let bins = elements(section(&html, "clusters"), "<g class=\"bar\"");
        let mut next_min = 2;
        for bin in &bins {
            let (min, max) = (number(bin, "data-size-min"), number(bin, "data-size-max"));
            assert_eq!(min, next_min, "bins touch");
            next_min = max + 1;
            let inside: Vec<_> = clusters
                .iter()
                .filter(|c| (min..=max).contains(&(c.len() as u64)))
                .collect();
            assert_eq!(number(bin, "data-clusters"), inside.len() as u64);
            let documents: usize = inside.iter().map(|c| c.len()).sum();
            assert_eq!(number(bin, "data-documents"), documents as u64);
        }
        let largest = clusters.iter().map(Vec::len).max().unwrap() as u64;
        assert!(next_min > largest, "the bins reach the largest cluster");

        // The cards at the top.
        let glance = section(&html, "glance");
        let card = |name: &str| -> u64 {
            let cards = elements(glance, "<div class=\"card\"");
            let card = cards
                .iter()
                .find(|c| c.contains_key(&format!("data-{name}")))
                .unwrap();
            number(card, &format!("data-{name}"))
        };
        let distinct: BTreeSet<u64> = docs.iter().map(|(_, fp)| *fp).collect();
        let clustered: usize = clusters.iter().map(Vec::len).sum();
        assert_eq!(card("documents"), docs.len() as u64);
        assert_eq!(card("fingerprints"), distinct.len() as u64);
        assert_eq!(card("pairs"), expected.len() as u64);
        assert_eq!(card("clusters"), clusters.len() as u64);
        assert_eq!(card("clustered"), clustered as u64);
        assert_eq!(card("removable"), (clustered - clusters.len()) as u64);
        assert_eq!(card("largest"), largest);

        // Asked for more than there are, the sample is every pair, each
        // with exactly its differing bits highlighted.
        let by_id: BTreeMap<&str, u64> = docs.iter().map(|(id, fp)| (id.as_str(), *fp)).collect();
        let sample = section(&html, "sample");
        let articles: Vec<&str> = sample.split("<article class=\"pair\"").skip(1).collect();
        let mut shown = BTreeSet::new();
        for (article, attributes) in articles.iter().zip(elements(sample, "<article")) {
            let (a, b) = (&attributes["data-a"], &attributes["data-b"]);
            let distance = number(&attributes, "data-distance") as u32;
            assert_eq!(
                (by_id[a.as_str()] ^ by_id[b.as_str()]).count_ones(),
                distance
            );
            assert_eq!(article.matches("class=\"flip\"").count(), distance as usize);
            shown.insert((a.min(b).clone(), a.max(b).clone(), distance));
        }
        assert_eq!(articles.len(), expected.len());
        assert_eq!(shown, expected);
    }

    // A small sample takes the largest distance first, then each other.
    let html = report(dir.path(), &docs, 4, &["--sample", "3"]);
    let distances: Vec<u64> = elements(section(&html, "sample"), "<article")
        .iter()
        .map(|a| number(a, "data-distance"))
        .collect();
    assert_eq!(distances, [4, 3, 2]);
}

#[test]
fn texts_show_the_words_that_differ_and_ids_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let base = "the harbour town kept its old stone bridge while the river slowly \
                changed course over many quiet centuries and fishermen mended nets \
                beside painted boats every morning before the market opened";
    let changed = base.replace("stone", "timber");
    let other = "completely unrelated words about compilers parsers registers and \
                 the careful allocation of memory in long running server programs";
    let lines = [
        serde_json::json!({"id": "<script>alert(1)</script>", "text": base}),
        serde_json::json!({"id": "copy", "text": changed}),
        serde_json::json!({"id": "other", "text": other}),
    ];
    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.path().join("docs.jsonl"), &jsonl).unwrap();
    ok(
        dir.path(),
        &[
            "create",
            "db",
            "--k",
            "7",
            "--tokenizer",
            "words",
            "--weights",
            "tf",
        ],
        "",
    );
    ok(dir.path(), &["load", "db", "docs.jsonl"], "");
    ok(
        dir.path(),
        &["report", "db", "--html", "r.html", "--texts", "docs.jsonl"],
        "",
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(!html.contains("<script"), "an id became markup");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let sample = section(&html, "sample");
    let articles = elements(sample, "<article");
    assert_eq!(articles.len(), 1, "one near pair: {articles:?}");
    let texts = elements(sample, "<div class=\"ids texts\"");
    assert_eq!(number(&texts[0], "data-changed-a"), 1);
    assert_eq!(number(&texts[0], "data-changed-b"), 1);
    // The marks of the texts (the fingerprints' hex digits have their own).
    let shown_texts = &sample[sample.find("<div class=\"ids texts\"").unwrap()..];
    let mut marks: Vec<&str> = shown_texts
        .split("<mark>")
        .skip(1)
        .map(|rest| &rest[..rest.find("</mark>").unwrap()])
        .collect();
    marks.sort();
    assert_eq!(marks, ["stone", "timber"]);
    assert!(!sample.contains("class=\"stale\""));

    // A text that no longer hashes to what is stored says so.
    let edited = jsonl.replacen("fishermen mended nets", "nobody mends anything", 1);
    std::fs::write(dir.path().join("edited.jsonl"), edited).unwrap();
    ok(
        dir.path(),
        &[
            "report",
            "db",
            "--html",
            "r.html",
            "--texts",
            "edited.jsonl",
        ],
        "",
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_eq!(
        section(&html, "sample").matches("class=\"stale\"").count(),
        1
    );
}

#[test]
fn refuses_a_k_beyond_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["create", "db", "--k", "2"], "");
    let out = fpdb(
        dir.path(),
        &["report", "db", "--html", "r.html", "--k", "9"],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--k"), "{}", stderr(&out));
    assert!(!dir.path().join("r.html").exists());
}

/// Headless Chromium (Debian's `chromium`, which `make test` installs),
/// or `FPDB_CHROMIUM`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FPDB_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Opens `page` in headless Chromium, saves a screenshot to `png` and
/// returns the console messages it logged (a page without script logs
/// none; a script error or a blocked load logs one).
fn open_in_browser(browser: &Path, page: &Path, png: &Path, profile: &Path) -> Vec<String> {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut log, &mut text).unwrap();
        text
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(90) {
            child.kill().unwrap();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.wait().unwrap().success());
    let log = reader.join().unwrap();
    log.lines()
        .filter(|line| line.contains(":CONSOLE"))
        .map(str::to_string)
        .collect()
}

/// Pixels of the screenshot that are not the page's background, and those
/// of the chart bars' colour.
fn drawn_pixels(png: &Path) -> (usize, usize) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    let channels = frame.color_type.samples();
    assert!(channels >= 3, "{:?}", frame.color_type);
    let pixels = buffer[..frame.buffer_size()].chunks(channels);
    let (mut drawn, mut bars) = (0, 0);
    for pixel in pixels {
        let rgb = (pixel[0], pixel[1], pixel[2]);
        // The body's background (#f6f7f9) and the sections' white.
        if rgb != (0xf6, 0xf7, 0xf9) && rgb != (0xff, 0xff, 0xff) {
            drawn += 1;
        }
        if rgb == (0x2f, 0x6d, 0xb5) {
            bars += 1;
        }
    }
    (drawn, bars)
}

#[test]
fn chromium_draws_the_page_without_errors() {
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium is not installed (`make test` installs Debian's chromium package)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let docs = corpus(29, 300);
    report(dir.path(), &docs, 3, &[]);
    let page = dir.path().join("report.html");
    let shot = dir.path().join("report.png");
    let messages = open_in_browser(&browser, &page, &shot, &dir.path().join("profile"));
    assert!(messages.is_empty(), "the page logged: {messages:#?}");
    let (drawn, bars) = drawn_pixels(&shot);
    // 1200 × 1600 pixels: text, charts and bit strips cover a few percent.
    assert!(drawn > 20_000, "only {drawn} pixels drawn");
    assert!(bars > 2_000, "only {bars} pixels of chart bars");

    // The same check catches a script error, so its silence above means
    // something.
    let broken = dir.path().join("broken.html");
    std::fs::write(
        &broken,
        "<!DOCTYPE html><p>x</p><script>throw new Error('drawn wrong')</script>",
    )
    .unwrap();
    let messages = open_in_browser(
        &browser,
        &broken,
        &dir.path().join("broken.png"),
        &dir.path().join("profile"),
    );
    assert!(
        messages.iter().any(|m| m.contains("drawn wrong")),
        "{messages:#?}"
    );
}

/// How many pixels of two screenshots of the same size differ.
fn differing_pixels(a: &Path, b: &Path) -> usize {
    let decode = |png: &Path| {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut buffer).unwrap();
        buffer.truncate(frame.buffer_size());
        (buffer, frame.color_type.samples())
    };
    let ((a, channels), (b, _)) = (decode(a), decode(b));
    assert_eq!(a.len(), b.len(), "screenshots of different sizes");
    a.chunks(channels)
        .zip(b.chunks(channels))
        .filter(|(p, q)| p != q)
        .count()
}

#[test]
fn chromium_draws_chinese_texts_as_characters() {
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium is not installed (`make test` installs Debian's chromium package)"
        );
        return;
    };
    // A Chinese article and a copy with one sentence changed, shown side by
    // side by --texts.
    let article =
        std::fs::read_to_string(fpdb_testkit::repo_dir().join("data/text/01_rain_city.txt"))
            .unwrap();
    let copy = article.replacen("昨天傍晚", "前天夜里", 1);
    assert_ne!(copy, article);
    let lines = [
        serde_json::json!({"id": "article", "text": article}),
        serde_json::json!({"id": "copy", "text": copy}),
    ];
    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("docs.jsonl"), jsonl).unwrap();
    ok(dir.path(), &["create", "db", "--k", "7"], "");
    ok(dir.path(), &["load", "db", "docs.jsonl"], "");
    ok(
        dir.path(),
        &["report", "db", "--html", "r.html", "--texts", "docs.jsonl"],
        "",
    );
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_eq!(
        elements(section(&html, "sample"), "<article").len(),
        1,
        "the copy is a near pair"
    );

    // The same page with every ideograph replaced by an unassigned code
    // point, which no font has: it draws as the missing-glyph box. Where no
    // font has Chinese either, the two pages draw alike.
    let boxes: String = html
        .chars()
        .map(|c| {
            if ('\u{4e00}'..='\u{9fff}').contains(&c) {
                '\u{378}'
            } else {
                c
            }
        })
        .collect();
    std::fs::write(dir.path().join("boxes.html"), boxes).unwrap();
    let profile = dir.path().join("profile");
    let shots = ["r", "boxes"].map(|name| {
        let png = dir.path().join(format!("{name}.png"));
        let messages = open_in_browser(
            &browser,
            &dir.path().join(format!("{name}.html")),
            &png,
            &profile,
        );
        assert!(messages.is_empty(), "the page logged: {messages:#?}");
        png
    });
    let differing = differing_pixels(&shots[0], &shots[1]);
    assert!(
        differing > 2_000,
        "Chinese text draws as missing-glyph boxes ({differing} pixels differ): \
         no font with Chinese characters (`make test` installs fonts-wqy-microhei)"
    );
}
