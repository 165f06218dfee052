//! Prometheus metrics (`GET /metrics`, text format 0.0.4): requests by
//! endpoint and status, their latencies, batch sizes, and the database's
//! size, rendered by hand: a few counters do not need a metrics crate.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Upper bounds of the latency histogram's buckets, in seconds.
const LATENCY_BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// Upper bounds of the batch size histogram's buckets, in documents.
const BATCH_BUCKETS: [f64; 6] = [1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0];

/// Upper bounds of the write group histogram's buckets, in requests.
const GROUP_BUCKETS: [f64; 8] = [1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1_024.0];

#[derive(Debug, Clone, Default)]
struct Histogram {
    /// Observations at most each bucket's bound (not cumulative here;
    /// summed when rendered).
    buckets: Vec<u64>,
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, bounds: &[f64], value: f64) {
        if self.buckets.len() != bounds.len() {
            self.buckets = vec![0; bounds.len()];
        }
        if let Some(slot) = bounds
            .iter()
            .position(|&bound| value <= bound)
            .and_then(|index| self.buckets.get_mut(index))
        {
            *slot += 1;
        }
        self.count += 1;
        self.sum += value;
    }

    fn render(&self, out: &mut String, name: &str, label: &str, bounds: &[f64]) {
        let comma = if label.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (index, bound) in bounds.iter().enumerate() {
            cumulative += self.buckets.get(index).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "{name}_bucket{{{label}{comma}le=\"{bound}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{{label}{comma}le=\"+Inf\"}} {}",
            self.count
        );
        let labels = if label.is_empty() {
            String::new()
        } else {
            format!("{{{label}}}")
        };
        let _ = writeln!(out, "{name}_sum{labels} {}", self.sum);
        let _ = writeln!(out, "{name}_count{labels} {}", self.count);
    }
}

#[derive(Debug, Default)]
struct Counts {
    /// Requests by endpoint, then status.
    requests: BTreeMap<String, BTreeMap<u16, u64>>,
    latency: BTreeMap<String, Histogram>,
    batch_size: BTreeMap<String, Histogram>,
    /// Single check-and-inserts written together (one log sync each).
    write_group: Histogram,
}

/// The server's counters.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    counts: Mutex<Counts>,
}

/// What `/metrics` reports of the database itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DbGauges {
    pub fingerprints: u64,
    pub ids: u64,
    pub disk_bytes: u64,
}

impl Metrics {
    /// Counts one answered request.
    pub fn request(&self, endpoint: &str, status: u16, elapsed: Duration) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        // An endpoint's name is allocated only the first time it is seen:
        // this runs for every request.
        match counts.requests.get_mut(endpoint) {
            Some(statuses) => *statuses.entry(status).or_default() += 1,
            None => {
                counts
                    .requests
                    .insert(endpoint.to_string(), BTreeMap::from([(status, 1)]));
            }
        }
        let seconds = elapsed.as_secs_f64();
        match counts.latency.get_mut(endpoint) {
            Some(histogram) => histogram.observe(&LATENCY_BUCKETS, seconds),
            None => counts
                .latency
                .entry(endpoint.to_string())
                .or_default()
                .observe(&LATENCY_BUCKETS, seconds),
        }
    }

    /// Counts one group of check-and-inserts written together.
    pub fn write_group(&self, requests: usize) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.write_group.observe(&GROUP_BUCKETS, requests as f64);
    }

    /// Counts the documents of one batch request.
    pub fn batch(&self, endpoint: &str, size: usize) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let size = size as f64;
        counts
            .batch_size
            .entry(endpoint.to_string())
            .or_default()
            .observe(&BATCH_BUCKETS, size);
    }

    /// The text `/metrics` answers.
    pub fn render(&self, db: DbGauges) -> String {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = String::new();
        out.push_str("# HELP fpdb_requests_total Requests answered, by endpoint and status.\n");
        out.push_str("# TYPE fpdb_requests_total counter\n");
        for (endpoint, statuses) in &counts.requests {
            for (status, count) in statuses {
                let _ = writeln!(
                    out,
                    "fpdb_requests_total{{endpoint=\"{endpoint}\",status=\"{status}\"}} {count}"
                );
            }
        }
        out.push_str("# HELP fpdb_request_seconds Time from a request's headers to its answer.\n");
        out.push_str("# TYPE fpdb_request_seconds histogram\n");
        for (endpoint, histogram) in &counts.latency {
            let label = format!("endpoint=\"{endpoint}\"");
            histogram.render(&mut out, "fpdb_request_seconds", &label, &LATENCY_BUCKETS);
        }
        out.push_str("# HELP fpdb_batch_documents Documents per batch request.\n");
        out.push_str("# TYPE fpdb_batch_documents histogram\n");
        for (endpoint, histogram) in &counts.batch_size {
            let label = format!("endpoint=\"{endpoint}\"");
            histogram.render(&mut out, "fpdb_batch_documents", &label, &BATCH_BUCKETS);
        }
        out.push_str(
            "# HELP fpdb_write_group_requests Single check-and-inserts written and synced together.\n",
        );
        out.push_str("# TYPE fpdb_write_group_requests histogram\n");
        counts
            .write_group
            .render(&mut out, "fpdb_write_group_requests", "", &GROUP_BUCKETS);
        out.push_str("# HELP fpdb_fingerprints Distinct fingerprints stored.\n");
        out.push_str("# TYPE fpdb_fingerprints gauge\n");
        let _ = writeln!(out, "fpdb_fingerprints {}", db.fingerprints);
        out.push_str("# HELP fpdb_ids Document ids stored.\n");
        out.push_str("# TYPE fpdb_ids gauge\n");
        let _ = writeln!(out, "fpdb_ids {}", db.ids);
        out.push_str(
            "# HELP fpdb_disk_bytes Live SST files of the tables and ids (writes still in memory not counted).\n",
        );
        out.push_str("# TYPE fpdb_disk_bytes gauge\n");
        let _ = writeln!(out, "fpdb_disk_bytes {}", db.disk_bytes);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative_and_end_with_the_count() {
        let metrics = Metrics::default();
        metrics.request("/v1/query", 200, Duration::from_micros(90));
        metrics.request("/v1/query", 200, Duration::from_millis(3));
        metrics.request("/v1/query", 400, Duration::from_secs(60));
        let text = metrics.render(DbGauges {
            fingerprints: 5,
            ids: 6,
            disk_bytes: 7,
        });
        assert!(text.contains("fpdb_requests_total{endpoint=\"/v1/query\",status=\"200\"} 2\n"));
        assert!(text.contains("fpdb_requests_total{endpoint=\"/v1/query\",status=\"400\"} 1\n"));
        assert!(
            text.contains("fpdb_request_seconds_bucket{endpoint=\"/v1/query\",le=\"0.0001\"} 1\n")
        );
        assert!(
            text.contains("fpdb_request_seconds_bucket{endpoint=\"/v1/query\",le=\"0.005\"} 2\n")
        );
        assert!(text.contains("fpdb_request_seconds_bucket{endpoint=\"/v1/query\",le=\"10\"} 2\n"));
        assert!(
            text.contains("fpdb_request_seconds_bucket{endpoint=\"/v1/query\",le=\"+Inf\"} 3\n")
        );
        assert!(text.contains("fpdb_fingerprints 5\n") && text.contains("fpdb_ids 6\n"));
    }

    #[test]
    fn write_groups_have_a_histogram_without_labels() {
        let metrics = Metrics::default();
        metrics.write_group(1);
        metrics.write_group(12);
        let text = metrics.render(DbGauges {
            fingerprints: 0,
            ids: 0,
            disk_bytes: 0,
        });
        assert!(text.contains("fpdb_write_group_requests_bucket{le=\"1\"} 1\n"));
        assert!(text.contains("fpdb_write_group_requests_bucket{le=\"16\"} 2\n"));
        assert!(text.contains("fpdb_write_group_requests_sum 13\n"));
    }
}
