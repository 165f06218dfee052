//! `fpdb report`: one HTML page that shows a database.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};

use anyhow::{Context, Result};
use fpdb::{Db, Fingerprint};

use crate::cli::ReportArgs;
use crate::input::{self, Payload, Role};
use crate::report::{write_page, Report, Text};

pub fn run(args: ReportArgs) -> Result<()> {
    let db = super::open_read_only(&args.db)?;
    let k = super::pairs_k(&db, args.k)?;
    let pairs = db
        .near_pairs(k)
        .with_context(|| format!("reading {}", args.db.display()))?;
    let mut report = Report::new(
        args.db.display().to_string(),
        db.design_description(),
        k,
        db.stats(),
        &pairs,
        args.sample,
    );
    drop(pairs);
    if !args.texts.is_empty() {
        report.texts_read = Some(attach_texts(&db, &args, &mut report)?);
    }
    let name = args.html.display().to_string();
    if name == "-" {
        let mut out = io::stdout().lock();
        write_page(&mut out, &report)?;
        out.flush()?;
    } else {
        let file = File::create(&args.html).with_context(|| format!("cannot create {name}"))?;
        let mut out = BufWriter::new(file);
        write_page(&mut out, &report)
            .and_then(|()| out.flush())
            .with_context(|| format!("writing {name}"))?;
    }
    eprintln!(
        "fpdb: {} within k = {k}, {} and {} shown side by side in {name}",
        super::count(report.pairs(), "pair"),
        super::count(report.clusters(), "cluster"),
        super::count(report.sample.len() as u64, "pair")
    );
    Ok(())
}

/// Reads the --texts documents, keeps the texts of the sampled pairs'
/// documents (the rest is dropped as it is read) and returns how many
/// documents were read.
fn attach_texts(db: &Db, args: &ReportArgs, report: &mut Report) -> Result<u64> {
    let mut wanted: HashMap<String, Option<Text>> = HashMap::new();
    for pair in &report.sample {
        wanted.insert(pair.a.clone(), None);
        wanted.insert(pair.b.clone(), None);
    }
    let stored: HashMap<&str, Fingerprint> = report
        .sample
        .iter()
        .flat_map(|p| [(p.a.as_str(), p.fa), (p.b.as_str(), p.fb)])
        .collect();
    let mut read = 0u64;
    input::from_parts(args.texts_format, &args.texts, false, Role::Hash)
        .with_extract(db.extract())
        .stream(|records| -> Result<()> {
            for record in records {
                read += 1;
                let (Some(slot), Payload::Text(text)) =
                    (wanted.get_mut(&record.id), record.payload)
                else {
                    continue;
                };
                let matches_stored =
                    stored.get(record.id.as_str()) == Some(&db.fingerprint_text(&text));
                *slot = Some(Text {
                    text,
                    matches_stored,
                });
            }
            Ok(())
        })?;
    for pair in &mut report.sample {
        if let (Some(Some(a)), Some(Some(b))) = (wanted.get(&pair.a), wanted.get(&pair.b)) {
            pair.texts = Some([a.clone(), b.clone()]);
        }
    }
    Ok(read)
}
