//! Design names: how a person (or the CLI's `--design`) refers to a design.
//!
//! Grammar, resolved for a given `k`:
//! - `split-M` or `split-M1-M2-…`: evenly split levels ([`TableDesign::levels`]);
//! - `parts-P-B`: `P` parts of `B` blocks each ([`TableDesign::parts`]);
//! - `widths-W1-W2-…`: one level with explicit widths ([`TableDesign::split`]);
//! - `MxW` with `M × W = 64`, e.g. `4x16`: `M` equal blocks, same as `split-M`;
//! - a plain number `T`, e.g. `10`, `16`, `20`: the design with exactly `T`
//!   tables in [`TableDesign::family`] for this `k` (longest shortest prefix
//!   if several);
//! - `auto` (only through [`DesignChoice`]): [`TableDesign::auto`].
//!
//! [`TableDesign::name`] always returns the `split-…`/`widths-…` form, which
//! parses back to the same design for the same `k`.

use std::fmt;
use std::str::FromStr;

use super::{DesignShape, TableDesign};
use crate::error::DesignError;

impl TableDesign {
    /// The canonical name, e.g. `split-4-4`, `parts-2-3` or `widths-40-24`.
    pub fn name(&self) -> String {
        let parts;
        let (kind, numbers) = match self.shape() {
            DesignShape::Levels(levels) => ("split", levels),
            DesignShape::Widths(widths) => ("widths", widths),
            DesignShape::Parts { parts: p, blocks } => {
                parts = vec![*p, *blocks];
                ("parts", &parts)
            }
        };
        let mut name = kind.to_owned();
        for number in numbers {
            name.push('-');
            name.push_str(&number.to_string());
        }
        name
    }

    /// Resolves a design name (see the module grammar) for distance `k`.
    pub fn from_name(k: u32, name: &str) -> Result<TableDesign, DesignError> {
        let unknown = |hint: String| DesignError::UnknownName {
            name: name.to_owned(),
            k,
            hint,
        };
        let trimmed = name.trim();
        if let Some(rest) = trimmed.strip_prefix("split-") {
            let levels = parse_numbers(rest).ok_or_else(|| unknown(GRAMMAR.to_owned()))?;
            return TableDesign::levels(k, &levels);
        }
        if let Some(rest) = trimmed.strip_prefix("parts-") {
            return match parse_numbers(rest).as_deref() {
                Some(&[parts, blocks]) => TableDesign::parts(k, parts, blocks),
                _ => Err(unknown(GRAMMAR.to_owned())),
            };
        }
        if let Some(rest) = trimmed.strip_prefix("widths-") {
            let widths = parse_numbers(rest).ok_or_else(|| unknown(GRAMMAR.to_owned()))?;
            return TableDesign::split(k, &widths);
        }
        if let Some((blocks, width)) = trimmed.split_once('x') {
            let (Ok(blocks), Ok(width)) = (blocks.parse::<u32>(), width.parse::<u32>()) else {
                return Err(unknown(GRAMMAR.to_owned()));
            };
            if blocks.checked_mul(width) != Some(64) {
                return Err(unknown(format!(
                    "{blocks} blocks of {width} bits do not cover 64 bits"
                )));
            }
            return TableDesign::levels(k, &[blocks]);
        }
        if let Ok(tables) = trimmed.parse::<usize>() {
            let family = TableDesign::family(k)?;
            let mut counts: Vec<usize> = family.iter().map(|d| d.tables().len()).collect();
            counts.dedup();
            // The family is sorted with the longest shortest prefix first
            // among equal table counts.
            return family
                .into_iter()
                .find(|design| design.tables().len() == tables)
                .ok_or_else(|| {
                    unknown(format!(
                        "table counts available for k = {k}: {}",
                        counts
                            .iter()
                            .map(usize::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                });
        }
        Err(unknown(GRAMMAR.to_owned()))
    }
}

const GRAMMAR: &str =
    "expected auto, split-M[-M2], parts-P-B, widths-W1-W2-…, MxW (M×W = 64) or a table count";

fn parse_numbers(text: &str) -> Option<Vec<u32>> {
    text.split('-')
        .map(|part| part.parse::<u32>().ok())
        .collect()
}

impl fmt::Display for TableDesign {
    /// The canonical name, then `k`, table count and prefix lengths.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = (self.min_prefix_bits(), self.max_prefix_bits());
        write!(
            f,
            "{} (k={}, {} tables, p=",
            self.name(),
            self.k(),
            self.tables().len()
        )?;
        if min == max {
            write!(f, "{min})")
        } else {
            write!(f, "{min}..{max})")
        }
    }
}

/// A design as chosen on a command line: `auto` or a name, resolved once
/// `k` and the expected number of fingerprints are known.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DesignChoice {
    /// [`TableDesign::auto`].
    #[default]
    Auto,
    /// A name in the grammar of [`TableDesign::from_name`].
    Named(String),
}

impl DesignChoice {
    /// The design for distance `k` and about `expected_n` fingerprints.
    pub fn resolve(&self, k: u32, expected_n: u64) -> Result<TableDesign, DesignError> {
        match self {
            DesignChoice::Auto => TableDesign::auto(k, expected_n),
            DesignChoice::Named(name) => TableDesign::from_name(k, name),
        }
    }
}

impl FromStr for DesignChoice {
    type Err = DesignError;

    /// Accepts `auto` or any syntactically valid name; whether the name
    /// exists for a given `k` is only known at [`DesignChoice::resolve`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("auto") {
            return Ok(DesignChoice::Auto);
        }
        let syntactic = text.starts_with("split-")
            || text.starts_with("parts-")
            || text.starts_with("widths-")
            || text.split_once('x').is_some()
            || text.parse::<usize>().is_ok();
        if syntactic {
            Ok(DesignChoice::Named(text.to_owned()))
        } else {
            Err(DesignError::UnknownName {
                name: text.to_owned(),
                k: 0,
                hint: GRAMMAR.to_owned(),
            })
        }
    }
}

impl fmt::Display for DesignChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DesignChoice::Auto => f.write_str("auto"),
            DesignChoice::Named(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_names_resolve_for_k3() {
        let by = |name: &str| TableDesign::from_name(3, name).unwrap();
        assert_eq!(by("4x16"), TableDesign::levels(3, &[4]).unwrap());
        assert_eq!(by("4"), TableDesign::levels(3, &[4]).unwrap());
        assert_eq!(by("10"), TableDesign::levels(3, &[5]).unwrap());
        assert_eq!(by("16"), TableDesign::levels(3, &[4, 4]).unwrap());
        assert_eq!(by("20"), TableDesign::levels(3, &[6]).unwrap());
        assert_eq!(by("split-4-4").tables().len(), 16);
        assert_eq!(by("6"), TableDesign::parts(3, 2, 3).unwrap());
        assert_eq!(by("parts-2-3").name(), "parts-2-3");
        assert_eq!(by("8"), TableDesign::parts(3, 2, 4).unwrap());
    }

    #[test]
    fn canonical_names_round_trip_for_every_family_member() {
        for k in 0..=super::super::MAX_K {
            for design in TableDesign::family(k).unwrap() {
                assert_eq!(TableDesign::from_name(k, &design.name()).unwrap(), design);
            }
        }
        let uneven = TableDesign::split(2, &[30, 20, 14]).unwrap();
        assert_eq!(uneven.name(), "widths-30-20-14");
        assert_eq!(
            TableDesign::from_name(2, "widths-30-20-14").unwrap(),
            uneven
        );
    }

    #[test]
    fn bad_names_are_errors() {
        for bad in [
            "",
            "7",
            "3x16",
            "split-",
            "split-4-x",
            "widths-10",
            "banana",
            "4x",
            "parts-2",
            "parts-2-3-4",
            "parts-1-3",
        ] {
            assert!(TableDesign::from_name(3, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn design_choice_parses_auto_and_names() {
        assert_eq!("auto".parse::<DesignChoice>().unwrap(), DesignChoice::Auto);
        assert_eq!(
            "16".parse::<DesignChoice>().unwrap(),
            DesignChoice::Named("16".to_owned())
        );
        assert!("banana".parse::<DesignChoice>().is_err());
        let design = "16"
            .parse::<DesignChoice>()
            .unwrap()
            .resolve(3, 1 << 34)
            .unwrap();
        assert_eq!(design.tables().len(), 16);
        let auto = DesignChoice::Auto.resolve(3, 1 << 20).unwrap();
        assert_eq!(auto, TableDesign::auto(3, 1 << 20).unwrap());
        assert_eq!(auto.to_string(), "split-4 (k=3, 4 tables, p=16)");
    }
}
