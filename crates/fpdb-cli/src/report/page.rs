//! The report as one HTML page: inline CSS and SVG, no script, and a
//! content security policy that forbids loading anything, so it opens the
//! same offline, attached to a message or from a file share.

use std::fmt::Write as _;
use std::io;

use fpdb::Fingerprint;

use super::chart::{bar_chart, thousands, Bar};
use super::words;
use super::{escape, Report, SamplePair};

const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1d2433; --soft: #5b6475; --line: #d9dde5; --bar: #2f6db5; --flip: #e4572e; --mark: #ffd166; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: #f6f7f9; }
main { max-width: 1120px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 8px; }
.sub, figcaption, .note { color: var(--soft); }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; margin: 18px 0; overflow-x: auto; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
.card b { display: block; font-size: 22px; }
.chart .bar rect { fill: var(--bar); }
.chart .bar:hover rect { fill: #1c4f8c; }
.chart .grid { stroke: #eceef2; }
.chart .axis { stroke: var(--soft); }
.chart text { font: 12px system-ui, sans-serif; fill: var(--ink); }
.chart .tick, .chart .axis-title { fill: var(--soft); }
.pair { border-top: 1px solid var(--line); padding: 14px 0; }
.pair:first-of-type { border-top: 0; }
.ids { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.id { font-weight: 600; overflow-wrap: anywhere; }
code { font: 13px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
code mark { background: var(--flip); color: #fff; border-radius: 2px; }
.bits .one { fill: var(--ink); }
.bits .zero { fill: #e7e9ee; }
.bits .flip { fill: var(--flip); opacity: .3; }
.bits text { font: 11px system-ui, sans-serif; fill: var(--soft); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 22em; overflow-y: auto; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; font-size: 14px; }
.text mark { background: var(--mark); }
.more, .stale { color: var(--soft); font-style: italic; }
table { border-collapse: collapse; }
th, td { padding: 4px 12px 4px 0; text-align: right; border-bottom: 1px solid var(--line); font-variant-numeric: tabular-nums; }
th:first-child, td:first-child { text-align: left; }
"#;

/// Writes `report` as a complete HTML document.
pub fn write_page(out: &mut impl io::Write, report: &Report) -> io::Result<()> {
    let mut html = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        html,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="fpdb {version}">
<title>fpdb report: {path}</title>
<style>{STYLE}</style>
</head>
<body>
<main>
<h1>fpdb report</h1>
<p class="sub">{path} · design {design} · near pairs within k = {k} of 64 bits</p>
"#,
        version = env!("CARGO_PKG_VERSION"),
        path = escape(&report.path),
        design = escape(&report.design),
        k = report.k,
    );
    glance(&mut html, report);
    distances(&mut html, report);
    clusters(&mut html, report);
    sample(&mut html, report);
    sizes(&mut html, report);
    html.push_str("</main>\n</body>\n</html>\n");
    out.write_all(html.as_bytes())
}

fn glance(html: &mut String, report: &Report) {
    let removable = report.clustered_documents - report.clusters();
    let cards = [
        ("documents", report.stats.ids, "ids stored"),
        (
            "fingerprints",
            report.stats.fingerprints,
            "distinct fingerprints",
        ),
        ("pairs", report.pairs(), "document pairs within k"),
        ("clusters", report.clusters(), "clusters of near-duplicates"),
        (
            "clustered",
            report.clustered_documents,
            "documents in a cluster",
        ),
        ("removable", removable, "documents beyond one per cluster"),
        (
            "largest",
            report.largest_cluster,
            "documents in the largest cluster",
        ),
    ];
    html.push_str("<section id=\"glance\"><h2>At a glance</h2><div class=\"cards\">");
    for (name, value, what) in cards {
        let _ = write!(
            html,
            r#"<div class="card" data-{name}="{value}"><b>{}</b>{what}</div>"#,
            thousands(value)
        );
    }
    html.push_str("</div></section>\n");
}

fn distances(html: &mut String, report: &Report) {
    let bars: Vec<Bar> = report
        .pairs_by_distance
        .iter()
        .enumerate()
        .map(|(distance, &pairs)| Bar {
            label: distance.to_string(),
            value: pairs,
            tooltip: format!("{pairs} document pairs at distance {distance}"),
            data: vec![
                ("distance", distance.to_string()),
                ("pairs", pairs.to_string()),
            ],
        })
        .collect();
    let _ = writeln!(
        html,
        r#"<section id="distances"><h2>How far apart near pairs are</h2><figure>{}<figcaption>Document pairs by the number of bits their fingerprints differ in. Distance 0 is the same fingerprint (identical or nearly identical text); pairs near k are the ones a smaller k would miss.</figcaption></figure></section>"#,
        bar_chart(
            "document pairs by distance",
            "distance (differing bits)",
            "pairs",
            &bars
        )
    );
}

fn clusters(html: &mut String, report: &Report) {
    html.push_str(r#"<section id="clusters"><h2>Cluster sizes</h2>"#);
    if report.cluster_bins.is_empty() {
        html.push_str(r#"<p class="note">No document has a near-duplicate within k.</p>"#);
    } else {
        let bars: Vec<Bar> = report
            .cluster_bins
            .iter()
            .map(|bin| Bar {
                label: bin.label(),
                value: bin.clusters,
                tooltip: format!(
                    "{} clusters of {} documents, {} documents in all",
                    bin.clusters,
                    bin.label(),
                    bin.documents
                ),
                data: vec![
                    ("size-min", bin.min.to_string()),
                    ("size-max", bin.max.to_string()),
                    ("clusters", bin.clusters.to_string()),
                    ("documents", bin.documents.to_string()),
                ],
            })
            .collect();
        let _ = write!(
            html,
            "<figure>{}<figcaption>Clusters are documents linked by chains of near pairs; a cluster of n documents keeps one and drops n − 1.</figcaption></figure>",
            bar_chart("clusters by size", "documents in the cluster", "clusters", &bars)
        );
    }
    html.push_str("</section>\n");
}

fn sample(html: &mut String, report: &Report) {
    let _ = write!(
        html,
        r#"<section id="sample"><h2>Pairs side by side</h2><p class="note">{} of {} pairs, taken in turn from each distance, the largest first. The squares are the 64 bits of each fingerprint (dark: 1), the bits that differ highlighted{}.</p>"#,
        report.sample.len(),
        thousands(report.pairs()),
        match report.texts_read {
            None => "; pass the documents with --texts to see the words that differ".to_string(),
            Some(n) => format!(
                "; the texts are from --texts ({} documents read), the words only one of them has marked",
                thousands(n)
            ),
        }
    );
    for pair in &report.sample {
        pair_html(html, pair, report.texts_read.is_some());
    }
    html.push_str("</section>\n");
}

fn pair_html(html: &mut String, pair: &SamplePair, texts_given: bool) {
    let _ = write!(
        html,
        r#"<article class="pair" data-a="{a}" data-b="{b}" data-distance="{d}"><p><b>distance {d}</b></p><div class="ids"><div><div class="id">{a}</div><code>{ha}</code></div><div><div class="id">{b}</div><code>{hb}</code></div></div>{bits}"#,
        a = escape(&pair.a),
        b = escape(&pair.b),
        d = pair.distance,
        ha = hex_marked(pair.fa, pair.fb),
        hb = hex_marked(pair.fb, pair.fa),
        bits = bit_strips(pair.fa, pair.fb),
    );
    match &pair.texts {
        Some([a, b]) => {
            let marked = words::mark(&a.text, &b.text);
            let _ = write!(
                html,
                r#"<div class="ids texts" data-changed-a="{}" data-changed-b="{}"><div>{}<div class="text">{}</div></div><div>{}<div class="text">{}</div></div></div>"#,
                marked.changed_words[0],
                marked.changed_words[1],
                stale_note(a.matches_stored),
                marked.a,
                stale_note(b.matches_stored),
                marked.b
            );
        }
        None if texts_given => {
            html.push_str(r#"<p class="note">--texts did not hold both documents.</p>"#);
        }
        None => {}
    }
    html.push_str("</article>\n");
}

fn stale_note(matches_stored: bool) -> &'static str {
    if matches_stored {
        ""
    } else {
        r#"<p class="stale">This text does not hash to the stored fingerprint: it changed since, or the database was filled with other options.</p>"#
    }
}

/// `fp` in hex with the digits that differ from `other` marked.
fn hex_marked(fp: Fingerprint, other: Fingerprint) -> String {
    let mine = fp.to_string();
    let theirs = other.to_string();
    let mut out = String::new();
    for (a, b) in mine.chars().zip(theirs.chars()) {
        if a == b {
            out.push(a);
        } else {
            let _ = write!(out, "<mark>{a}</mark>");
        }
    }
    out
}

const CELL: u32 = 10;
const ROW: u32 = 16;

/// The 64 bits of both fingerprints as two rows of squares (bit 63, the
/// most significant, first, as in hex), each differing column highlighted.
fn bit_strips(a: Fingerprint, b: Fingerprint) -> String {
    let width = 64 * CELL + 7 * 4 + 2;
    let height = 2 * ROW + 20;
    let x_of = |bit: u32| 1 + bit * CELL + (bit / 8) * 4;
    let mut svg = format!(
        r#"<svg class="bits" role="img" aria-label="the 64 bits of both fingerprints" viewBox="0 0 {width} {height}" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">"#
    );
    for bit in 0..64 {
        let mask = 1u64 << (63 - bit);
        if (a.0 ^ b.0) & mask != 0 {
            let _ = write!(
                svg,
                r#"<rect class="flip" x="{}" y="0" width="{CELL}" height="{}"><title>bit {} differs</title></rect>"#,
                63 - bit,
                x_of(bit) - 1,
                2 * ROW + 2
            );
        }
        for (row, fp) in [a, b].into_iter().enumerate() {
            let class = if fp.0 & mask != 0 { "one" } else { "zero" };
            let _ = write!(
                svg,
                r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}"/>"#,
                x_of(bit),
                1 + row as u32 * ROW,
                CELL - 2,
                ROW - 3
            );
        }
    }
    let _ = write!(
        svg,
        r#"<text x="1" y="{}">bit 63</text><text x="{}" y="{}" text-anchor="end">bit 0</text></svg>"#,
        2 * ROW + 16,
        width - 1,
        2 * ROW + 16
    );
    svg
}

fn sizes(html: &mut String, report: &Report) {
    let stats = &report.stats;
    let mut bars: Vec<Bar> = stats
        .tables
        .iter()
        .enumerate()
        .map(|(index, table)| Bar {
            label: format!("table {index}"),
            value: table.disk_bytes,
            tooltip: format!(
                "table {index}: {} bytes of blocks, {:.2} bits per fingerprint, {} bytes on disk",
                table.bytes, table.bits_per_fingerprint, table.disk_bytes
            ),
            data: vec![("bytes", table.disk_bytes.to_string())],
        })
        .collect();
    bars.push(Bar {
        label: "ids".to_string(),
        value: stats.ids_disk_bytes,
        tooltip: format!("the id map: {} bytes on disk", stats.ids_disk_bytes),
        data: vec![("bytes", stats.ids_disk_bytes.to_string())],
    });
    let block_bytes: u64 = stats.tables.iter().map(|t| t.bytes).sum();
    let _ = write!(
        html,
        r#"<section id="sizes"><h2>Sizes</h2><figure>{}<figcaption>Bytes of RocksDB files per table (each a sorted, compressed copy of every fingerprint) and for the ids.</figcaption></figure><table><tr><th>table</th><th>prefix bits</th><th>blocks</th><th>block bytes</th><th>bits per fingerprint</th><th>bytes on disk</th></tr>"#,
        bar_chart("bytes on disk", "", "bytes", &bars)
    );
    for (index, table) in stats.tables.iter().enumerate() {
        let _ = write!(
            html,
            "<tr><td>{index}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td></tr>",
            table.prefix_bits,
            thousands(table.blocks as u64),
            thousands(table.bytes),
            table.bits_per_fingerprint,
            thousands(table.disk_bytes)
        );
    }
    let _ = write!(
        html,
        r#"</table><p class="note">{} bytes of blocks in all; {} bytes of ids on disk; {} bytes of block directory in memory; {} added and {} removed not yet merged into the tables. Simhash: {}; HTML extract: {}.</p>"#,
        thousands(block_bytes),
        thousands(stats.ids_disk_bytes),
        thousands(stats.directory_bytes as u64),
        thousands(stats.delta_added as u64),
        thousands(stats.delta_removed as u64),
        escape(&stats.simhash.to_string()),
        escape(&stats.extract.to_string()),
    );
    for warning in &stats.warnings {
        let _ = write!(html, r#"<p class="stale">{}</p>"#, escape(warning));
    }
    html.push_str("</section>\n");
}
