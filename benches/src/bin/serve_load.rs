//! A load generator for `fpdb serve`: `clients` threads, each with one
//! kept-alive HTTP/1.1 connection, send one request at a time for
//! `seconds` and time each; prints requests per second and latency
//! percentiles as one JSON line. Hand-written HTTP over std sockets, so
//! that the generator costs little beside the server on the same machine.
//! Each run draws its own fingerprints and ids (seeded from the clock), so
//! a run never repeats what an earlier run against the same server
//! stored: its check-and-inserts store new documents, as the rows say.
//!
//! Without a rate each client sends its next request as soon as it has
//! the answer (a closed loop: the server runs flat out, and the latency
//! is the one at its top throughput). With RATE, requests are sent on a
//! schedule, RATE a second in all, each client's evenly spaced and the
//! clients' interleaved, and each latency counts from the request's
//! scheduled time, so a request held back by a slow answer before it is
//! counted as late, not left out.
//!
//! ```sh
//! serve_load ADDR check 16 10      # check_and_insert of random fingerprints
//! serve_load ADDR check 16 10 1 20000   # the same at 20,000 requests/s in all
//! serve_load ADDR query 16 10      # query of random fingerprints
//! serve_load ADDR check_many 16 10 100  # check_and_insert_many of 100
//! serve_load ADDR query_many 1 10 1000   # batches of 1,000 fingerprints
//! ```

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use fpdb_benches::http::read_response;
use fpdb_rng::Rng;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, op, clients, seconds, rest @ ..] = args.as_slice() else {
        bail!(
            "usage: serve_load ADDR check|check_many|query|query_many CLIENTS SECONDS [BATCH [RATE]]"
        );
    };
    let clients: u64 = clients.parse().context("CLIENTS")?;
    let seconds: f64 = seconds.parse().context("SECONDS")?;
    let batch: usize = rest.first().map_or(Ok(1), |b| b.parse()).context("BATCH")?;
    let rate: Option<f64> = rest.get(1).map(|r| r.parse()).transpose().context("RATE")?;
    // Each client's time between requests under a rate.
    let interval = match rate {
        Some(rate) if rate.is_finite() && rate > 0.0 => {
            Some(Duration::from_secs_f64(clients as f64 / rate))
        }
        Some(_) => bail!("RATE must be a positive number of requests a second"),
        None => None,
    };
    let duration = Duration::from_secs_f64(seconds);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    let run = now.as_secs().wrapping_mul(1_000_000_000)
        ^ u64::from(now.subsec_nanos())
        ^ (u64::from(std::process::id()) << 32);
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|client| {
            let (addr, op) = (addr.clone(), op.clone());
            let schedule = interval.map(|interval| Schedule {
                next: started + interval.mul_f64(client as f64 / clients as f64),
                interval,
            });
            std::thread::spawn(move || {
                run_client(&addr, &op, run, client, batch, duration, schedule)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for thread in threads {
        latencies.extend(
            thread
                .join()
                .map_err(|_| anyhow::anyhow!("a client panicked"))??,
        );
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let percentile = |p: f64| -> f64 {
        let index = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies.get(index).map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "{}",
        serde_json::json!({
            "op": op, "clients": clients, "batch": batch, "seconds": elapsed,
            "requests": latencies.len(),
            "requests_per_second": latencies.len() as f64 / elapsed,
            "documents_per_second": (latencies.len() * batch) as f64 / elapsed,
            "p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": percentile(1.0),
            "rate": rate,
        })
    );
    Ok(())
}

/// When a paced client sends: its next request's time, and the time
/// between its requests.
struct Schedule {
    next: Instant,
    interval: Duration,
}

fn run_client(
    addr: &str,
    op: &str,
    run: u64,
    client: u64,
    batch: usize,
    duration: Duration,
    mut schedule: Option<Schedule>,
) -> Result<Vec<Duration>> {
    let stream = TcpStream::connect(addr).with_context(|| format!("connecting to {addr}"))?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let mut rng = Rng::new(run.wrapping_add(client));
    // Ids unique to the run (a short tag of it) and the client.
    let client = format!("{:x}-{client}", run & 0xff_ffff);
    let mut latencies = Vec::new();
    let started = Instant::now();
    let mut sent = 0u64;
    while started.elapsed() < duration {
        let (path, body) = match op {
            "check" => (
                "/v1/check_and_insert",
                format!(
                    r#"{{"id":"c{client}-{sent}","fp":"{:016x}"}}"#,
                    rng.next_u64()
                ),
            ),
            "query" => (
                "/v1/query",
                format!(r#"{{"fp":"{:016x}"}}"#, rng.next_u64()),
            ),
            "check_many" => {
                let documents: Vec<String> = (0..batch)
                    .map(|i| {
                        format!(
                            r#"{{"id":"c{client}-{sent}-{i}","fp":"{:016x}"}}"#,
                            rng.next_u64()
                        )
                    })
                    .collect();
                (
                    "/v1/check_and_insert_many",
                    format!(r#"{{"documents":[{}]}}"#, documents.join(",")),
                )
            }
            "query_many" => {
                let fps: Vec<String> = (0..batch)
                    .map(|_| format!("\"{:016x}\"", rng.next_u64()))
                    .collect();
                (
                    "/v1/query_many",
                    format!(r#"{{"fps":[{}]}}"#, fps.join(",")),
                )
            }
            other => bail!("unknown op {other}"),
        };
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        // A paced request's latency counts from when it was due.
        let begun = match schedule.as_mut() {
            Some(schedule) => {
                let due = schedule.next;
                schedule.next += schedule.interval;
                if let Some(early) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(early);
                }
                due
            }
            None => Instant::now(),
        };
        writer.write_all(request.as_bytes())?;
        let (status, _) = read_response(&mut reader)?;
        latencies.push(begun.elapsed());
        if status != 200 {
            bail!("{path}: status {status}");
        }
        sent += 1;
    }
    Ok(latencies)
}
