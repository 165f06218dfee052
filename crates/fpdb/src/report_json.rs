//! How the reports serialise: one JSON shape for each, printed by the
//! `fpdb` command's `--format json` and returned as dicts by the Python
//! package. Fingerprints are 16 hex digits, as everywhere in fpdb's JSON;
//! durations are seconds.

use std::fmt::Display;
use std::path::Path;

use fpdb_simhash::Fingerprint;
use serde::{Serialize, Serializer};

use crate::backup::{Backup, BackupMethod};
use crate::bulk::BulkSummary;
use crate::repair::RepairReport;
use crate::stats::{Stats, TableStats};
use crate::tuning::{SettingScore, Tuning};
use crate::verify::{Problem, VerifyReport};

/// Each item as its `Display` text.
fn texts<T: Display>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

#[derive(Serialize)]
struct StatsJson<'a> {
    path: String,
    fingerprints: u64,
    ids: u64,
    k: u32,
    design: &'a str,
    simhash: String,
    tokenizer: String,
    weights: String,
    extract: String,
    confirmation: Option<ConfirmationJson>,
    learned_features: Option<usize>,
    directory_bytes: usize,
    block_cache_bytes: usize,
    block_bytes: u64,
    delta_added: usize,
    delta_removed: usize,
    candidates_per_probe: f64,
    keys_per_block: f64,
    ids_disk_bytes: u64,
    warnings: &'a [String],
    tables: &'a [TableStats],
}

/// A confirming database's second stage, in its stats.
#[derive(Serialize)]
struct ConfirmationJson {
    /// The signature's layout (`minhash:64x4/shingle:2`).
    signature: String,
    radius: u32,
    threshold: f64,
    common_features: usize,
    /// Weak bits kept per quarter (0: every candidate within the radius).
    weak_bits: u32,
    /// The most of them flipped in a reaching quarter (8: any number).
    weak_flips: u32,
    /// The fewest shingles estimated shared (0: no such gate).
    min_shared: u16,
    /// Digits per thousand from which a text's numbers count in its
    /// signature (0: never).
    numbers_from_permille: u16,
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StatsJson {
            path: path_text(&self.path),
            fingerprints: self.fingerprints,
            ids: self.ids,
            k: self.k,
            design: &self.design,
            simhash: self.simhash.to_string(),
            tokenizer: self.simhash.tokenizer.to_string(),
            weights: self.simhash.weighting.to_string(),
            extract: self.extract.to_string(),
            confirmation: self.confirmation.as_ref().map(|c| ConfirmationJson {
                signature: c.layout().to_string(),
                radius: c.radius(),
                threshold: c.threshold(),
                common_features: c.common_features().hashes().len(),
                weak_bits: c.weak_bits(),
                weak_flips: c.weak_flips(),
                min_shared: c.min_shared(),
                numbers_from_permille: c.numbers_from_permille(),
            }),
            learned_features: self.learned_features,
            directory_bytes: self.directory_bytes,
            block_cache_bytes: self.block_cache_bytes,
            block_bytes: self.tables.iter().map(|table| table.bytes).sum(),
            delta_added: self.delta_added,
            delta_removed: self.delta_removed,
            candidates_per_probe: self.candidates_per_probe,
            keys_per_block: self.keys_per_block,
            ids_disk_bytes: self.ids_disk_bytes,
            warnings: &self.warnings,
            tables: &self.tables,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct TableJson {
    prefix_bits: u32,
    blocks: usize,
    bytes: u64,
    bits_per_fingerprint: f64,
    disk_bytes: u64,
}

impl Serialize for TableStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TableJson {
            prefix_bits: self.prefix_bits,
            blocks: self.blocks,
            bytes: self.bytes,
            bits_per_fingerprint: self.bits_per_fingerprint,
            disk_bytes: self.disk_bytes,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct VerifyJson {
    clean: bool,
    tables: usize,
    blocks: u64,
    fingerprints: u64,
    ids: u64,
    problems: Vec<String>,
    unlisted_problems: u64,
}

impl Serialize for VerifyReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        VerifyJson {
            clean: self.is_clean(),
            tables: self.tables,
            blocks: self.blocks,
            fingerprints: self.fingerprints,
            ids: self.ids,
            problems: texts::<Problem>(&self.problems),
            unlisted_problems: self.unlisted_problems,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct RepairJson<'a> {
    /// Whether anything was done (there was damage).
    repaired: bool,
    damage: Vec<String>,
    unlisted_damage: u64,
    documents: u64,
    restored_from_fp_ids: u64,
    restored_from_id_fp: u64,
    conflicting_ids: &'a [String],
    lost_fingerprints: Vec<String>,
    unreadable: &'a [String],
    left_out: &'a [String],
    placed_by_content: &'a [String],
    stale_entries: u64,
    partial: bool,
    damaged_copy: Option<String>,
}

impl Serialize for RepairReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RepairJson {
            repaired: !self.damage.is_empty(),
            damage: texts::<Problem>(&self.damage),
            unlisted_damage: self.unlisted_damage,
            documents: self.documents,
            restored_from_fp_ids: self.restored_from_fp_ids,
            restored_from_id_fp: self.restored_from_id_fp,
            conflicting_ids: &self.conflicting_ids,
            lost_fingerprints: texts::<Fingerprint>(&self.lost_fingerprints),
            unreadable: &self.unreadable,
            left_out: &self.left_out,
            placed_by_content: &self.placed_by_content,
            stale_entries: self.stale_entries,
            partial: self.partial,
            damaged_copy: self.damaged_copy.as_deref().map(path_text),
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct BackupJson {
    path: String,
    /// "checkpoint" or "copy".
    method: &'static str,
    bytes: u64,
}

impl Serialize for Backup {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        BackupJson {
            path: path_text(&self.path),
            method: match self.method {
                BackupMethod::Checkpoint => "checkpoint",
                BackupMethod::Copy => "copy",
            },
            bytes: self.bytes,
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct BulkJson {
    documents: u64,
    ids: u64,
    fingerprints: u64,
    spilled_runs: u64,
    /// The whole load.
    featureless: u64,
    seconds: f64,
    reading_seconds: f64,
    writing_seconds: f64,
    ingesting_seconds: f64,
}

impl Serialize for BulkSummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        BulkJson {
            documents: self.documents,
            ids: self.ids,
            fingerprints: self.fingerprints,
            spilled_runs: self.spilled_runs,
            featureless: self.featureless,
            seconds: self.elapsed.as_secs_f64(),
            reading_seconds: self.reading.as_secs_f64(),
            writing_seconds: self.writing.as_secs_f64(),
            ingesting_seconds: self.ingesting.as_secs_f64(),
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
struct TuningJson<'a> {
    texts: usize,
    originals: usize,
    reposts: usize,
    expected: u64,
    min_precision: f64,
    confirm_threshold: Option<f64>,
    too_short_to_confirm: usize,
    settings: Vec<SettingJson<'a>>,
    recommended: Option<SettingJson<'a>>,
}

/// One setting's row: what it is and how it scored.
#[derive(Serialize)]
struct SettingJson<'a> {
    setting: String,
    learned_weights: bool,
    confirmed: bool,
    check: &'static str,
    radius: u32,
    recall: f64,
    recall_by_edit: std::collections::BTreeMap<&'a str, f64>,
    precision: f64,
    true_pairs: usize,
    false_pairs: usize,
    false_per_query: f64,
    false_per_query_at_expected: f64,
}

impl Tuning {
    fn setting_json(&self, s: &SettingScore) -> SettingJson<'static> {
        SettingJson {
            setting: s.setting.name(&self.given_weights),
            learned_weights: s.setting.learned,
            confirmed: s.setting.confirmed(),
            check: s.setting.check.name(),
            radius: s.setting.radius,
            recall: s.score.recall(),
            recall_by_edit: fpdb_tune::EditKind::ALL
                .iter()
                .map(|&kind| (kind.name(), s.score.kind_recall(kind)))
                .collect(),
            precision: s.score.precision(),
            true_pairs: s.score.true_pairs,
            false_pairs: s.score.false_pairs,
            false_per_query: s.score.false_per_query(),
            false_per_query_at_expected: s.score.false_per_query_at(self.options.expected),
        }
    }
}

impl Serialize for Tuning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TuningJson {
            texts: self.planted.texts.len(),
            originals: self.originals(),
            reposts: self.planted.reposts,
            expected: self.options.expected,
            min_precision: self.options.min_precision,
            confirm_threshold: self.options.confirm_threshold,
            too_short_to_confirm: self.too_short_to_confirm,
            settings: self.scores.iter().map(|s| self.setting_json(s)).collect(),
            recommended: self.best().map(|s| self.setting_json(s)),
        }
        .serialize(serializer)
    }
}
