//! The batch-query row of `make bench-serve`: N random fingerprints
//! bulk-loaded (`fpdb create --expected N`, `fpdb load`), then one batch
//! of QUERIES fingerprints (every other one a stored fingerprint with 0-3
//! bits flipped, the rest random) queried at the database's k, RUNS times
//! after one unreported warm-up call each way: in this process
//! (`Db::query_batch`, opened as `fpdb serve` opens it, the call
//! `POST /v1/query_many` makes) and then through `fpdb serve` on
//! 127.0.0.1 (one kept-alive connection; a call is timed from the first
//! byte of the request sent to the last byte of the answer received, its
//! JSON parsed afterwards to check it holds the same number of matches).
//! Prints fingerprints per second each way, their medians and ratio, as
//! one JSON line.
//!
//! ```sh
//! serve_batch FPDB WORK_DIR [N [QUERIES [RUNS]]]   # defaults 10000000 100000 3
//! ```

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use fpdb::{Fingerprint, OpenOptions};
use fpdb_benches::http::read_response;
use fpdb_rng::Rng;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [fpdb, work, rest @ ..] = args.as_slice() else {
        bail!("usage: serve_batch FPDB WORK_DIR [N [QUERIES [RUNS]]]");
    };
    let number = |index: usize, default: usize| -> Result<usize> {
        rest.get(index)
            .map_or(Ok(default), |value| value.parse())
            .with_context(|| format!("argument {}", index + 3))
    };
    let (n, count, runs) = (number(0, 10_000_000)?, number(1, 100_000)?, number(2, 3)?);
    let work = Path::new(work);
    std::fs::create_dir_all(work)?;

    let mut rng = Rng::new(0x5eed_ba7c);
    let stored: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let input = work.join("fps.tsv");
    {
        let mut out = BufWriter::new(std::fs::File::create(&input)?);
        for (i, fp) in stored.iter().enumerate() {
            writeln!(out, "d{i}\t{fp:016x}")?;
        }
        out.flush()?;
    }
    let queries: Vec<u64> = (0..count)
        .map(|i| {
            let near = stored.get(rng.below(n.max(1))).copied();
            if let (0, Some(mut fp)) = (i % 2, near) {
                for _ in 0..rng.next_u64() % 4 {
                    fp ^= 1 << (rng.next_u64() % 64);
                }
                fp
            } else {
                rng.next_u64()
            }
        })
        .collect();
    drop(stored);

    let db_path = work.join("db");
    let _ = std::fs::remove_dir_all(&db_path);
    run(Command::new(fpdb)
        .arg("create")
        .arg(&db_path)
        .args(["--expected", &n.to_string()]))?;
    let began = Instant::now();
    run(Command::new(fpdb)
        .arg("load")
        .arg(&db_path)
        .arg(&input)
        .arg("--quiet"))?;
    let load_seconds = began.elapsed().as_secs_f64();
    std::fs::remove_file(&input)?;

    // In process, opened as `fpdb serve` opens it.
    let fps: Vec<Fingerprint> = queries.iter().map(|&fp| Fingerprint(fp)).collect();
    let (in_process, matches) = {
        let db = OpenOptions::new().sync(true).open(&db_path)?;
        let k = db.k();
        let mut times = Vec::new();
        let mut matches = 0;
        for run in 0..=runs {
            let began = Instant::now();
            let found = db.query_batch(&fps, k)?;
            let seconds = began.elapsed().as_secs_f64();
            matches = found.iter().map(Vec::len).sum::<usize>();
            if run > 0 {
                times.push(seconds);
            }
        }
        (times, matches)
    };

    // Through the server.
    let mut server = Command::new(fpdb)
        .arg("serve")
        .arg(&db_path)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let served = serve_runs(&mut server, &queries, runs, matches);
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
    let served = served?;

    let per_second =
        |times: &[f64]| -> Vec<f64> { times.iter().map(|t| count as f64 / t).collect() };
    let (in_process, served) = (per_second(&in_process), per_second(&served));
    let (a, b) = (median(&in_process), median(&served));
    println!(
        "{}",
        serde_json::json!({
            "op": "query_many", "stored": n, "batch": count, "runs": runs,
            "load_seconds": load_seconds, "matches": matches,
            "in_process_fps_per_second": in_process, "served_fps_per_second": served,
            "in_process_median": a, "served_median": b, "served_over_in_process": b / a,
        })
    );
    Ok(())
}

fn serve_runs(
    server: &mut std::process::Child,
    queries: &[u64],
    runs: usize,
    matches: usize,
) -> Result<Vec<f64>> {
    let mut listening = String::new();
    BufReader::new(server.stdout.take().context("the server's output")?)
        .read_line(&mut listening)?;
    let addr = listening
        .trim()
        .strip_prefix("listening on ")
        .with_context(|| format!("the server said {listening:?}"))?
        .to_string();
    let fps: Vec<String> = queries.iter().map(|fp| format!("\"{fp:016x}\"")).collect();
    let body = format!(r#"{{"fps":[{}]}}"#, fps.join(","));
    let request = format!(
        "POST /v1/query_many HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let stream = TcpStream::connect(&addr)?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let mut times = Vec::new();
    for run in 0..=runs {
        let began = Instant::now();
        writer.write_all(request.as_bytes())?;
        let (status, answer) = read_response(&mut reader)?;
        let seconds = began.elapsed().as_secs_f64();
        ensure!(status == 200, "/v1/query_many: status {status}");
        let answer: serde_json::Value = serde_json::from_slice(&answer)?;
        let results = answer
            .get("results")
            .and_then(serde_json::Value::as_array)
            .context("no results")?;
        ensure!(results.len() == queries.len(), "{} results", results.len());
        let found: usize = results
            .iter()
            .map(|r| r.as_array().map_or(0, Vec::len))
            .sum();
        ensure!(
            found == matches,
            "the server found {found} matches, the library {matches}"
        );
        if run > 0 {
            times.push(seconds);
        }
    }
    Ok(times)
}

fn run(command: &mut Command) -> Result<()> {
    let status = command.stdout(Stdio::null()).status()?;
    ensure!(status.success(), "{command:?}: {status}");
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}
