//! The byte form of a design, stored in a database manifest: a frame
//! (`crate::format`) of kind `Design`, version 2 (version 3 for a design of
//! parts), around this payload
//! (every multi-byte integer big-endian):
//!
//! ```text
//! offset  size  field
//! 0       1     k
//! 1       1     shape kind: 0 = evenly split levels, 1 = explicit widths,
//!               2 = parts (2 entries: parts, blocks; version 3 only)
//! 2       1     n = number of shape entries
//! 3       n     shape entries (blocks per level, or block widths), u8 each
//! 3+n     2     t = number of tables
//! …             t times: prefix bits (u8), r = range count (u8),
//!               r times (start bit u8, length u8), MSB = bit 0
//! ```
//!
//! Version 1 (database format 1) held the same payload between a version
//! byte and a 32-bit checksum ([`TableDesign::from_v1_bytes`]).
//!
//! The tables are stored explicitly and, on decoding, compared with the
//! tables this build generates from the shape: a design whose data was laid
//! out under different permutations is rejected instead of silently
//! answering wrongly.

use super::{DesignShape, Table, TableDesign, MAX_K, MAX_TABLES};
use crate::error::CodecError;
use crate::format::{decode_frame, encode_frame, legacy, Kind};
use crate::permutation::{BitRange, Permutation};

/// Version of the design byte format: 3 for a design of parts (shape
/// kind 2, which a reader of version 2 does not know), else 2, so that
/// every design a version-2 reader could open is written as before.
pub const DESIGN_FORMAT_VERSION: u8 = 3;

/// The version of a design of shape kind 0 or 1.
const BLOCKS_FORMAT_VERSION: u8 = 2;

const WHAT: &str = Kind::Design.name();

impl TableDesign {
    /// Serializes the design (see the module docs for the layout).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "every field fits its byte(s) in any built design: k ≤ MAX_K = 7; at most 64 shape entries (levels or widths, checked by from_shape), each ≤ 64; at most MAX_TABLES = 4096 tables; prefixes of ≤ 64 bits in ≤ 64 disjoint ranges"
    )]
    pub fn to_bytes(&self) -> Vec<u8> {
        let parts;
        let (kind, entries) = match self.shape() {
            DesignShape::Levels(levels) => (0u8, levels),
            DesignShape::Widths(widths) => (1u8, widths),
            DesignShape::Parts { parts: p, blocks } => {
                parts = vec![*p, *blocks];
                (2u8, &parts)
            }
        };
        let mut out = vec![self.k() as u8, kind, entries.len() as u8];
        out.extend(entries.iter().map(|&entry| entry as u8));
        out.extend_from_slice(&(self.tables().len() as u16).to_be_bytes());
        for table in self.tables() {
            let ranges = table.permutation().ranges();
            out.push(table.prefix_bits() as u8);
            out.push(ranges.len() as u8);
            for range in ranges {
                out.push(range.start);
                out.push(range.len);
            }
        }
        let version = if kind == 2 {
            DESIGN_FORMAT_VERSION
        } else {
            BLOCKS_FORMAT_VERSION
        };
        encode_frame(Kind::Design, version, &out)
    }

    /// Parses [`TableDesign::to_bytes`] output; any damage is a typed error.
    pub fn from_bytes(bytes: &[u8]) -> Result<TableDesign, CodecError> {
        let (version, payload) = decode_frame(
            bytes,
            Kind::Design,
            &[BLOCKS_FORMAT_VERSION, DESIGN_FORMAT_VERSION],
        )?;
        let design = Self::from_payload(payload)?;
        let parts = matches!(design.shape(), DesignShape::Parts { .. });
        if parts != (version == DESIGN_FORMAT_VERSION) {
            return Err(CodecError::corrupt(
                WHAT,
                format!(
                    "version {version} around a design of shape {}",
                    design.name()
                ),
            ));
        }
        Ok(design)
    }

    /// Parses a design of database format 1 (version 1, unframed), which
    /// had no designs of parts.
    pub fn from_v1_bytes(bytes: &[u8]) -> Result<TableDesign, CodecError> {
        let design = Self::from_payload(legacy::unframe_v1(bytes, Kind::Design)?)?;
        if matches!(design.shape(), DesignShape::Parts { .. }) {
            return Err(CodecError::corrupt(WHAT, "a design of parts in format 1"));
        }
        Ok(design)
    }

    /// The payload both versions share.
    fn from_payload(payload: &[u8]) -> Result<TableDesign, CodecError> {
        let mut reader = ByteReader { rest: payload };
        let k = u32::from(reader.u8()?);
        if k > MAX_K {
            return Err(CodecError::corrupt(WHAT, format!("k = {k} above {MAX_K}")));
        }
        let kind = reader.u8()?;
        let entry_count = reader.u8()?;
        let entries: Vec<u32> = reader
            .take(usize::from(entry_count))?
            .iter()
            .map(|&entry| u32::from(entry))
            .collect();
        let shape = match (kind, entries.as_slice()) {
            (0, _) => DesignShape::Levels(entries),
            (1, _) => DesignShape::Widths(entries),
            (2, &[parts, blocks]) => DesignShape::Parts { parts, blocks },
            (2, _) => {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("a shape of parts with {entry_count} entries, not 2"),
                ))
            }
            (other, _) => {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("unknown shape kind {other}"),
                ))
            }
        };
        let table_count = usize::from(reader.u16()?);
        if table_count > MAX_TABLES {
            return Err(CodecError::corrupt(WHAT, format!("{table_count} tables")));
        }
        let mut tables = Vec::with_capacity(table_count);
        for _ in 0..table_count {
            let prefix_bits = u32::from(reader.u8()?);
            let range_count = usize::from(reader.u8()?);
            let ranges: Vec<BitRange> = reader
                .take(range_count * 2)?
                .chunks_exact(2)
                .map(|pair| match pair {
                    [start, len] => BitRange::new(*start, *len),
                    _ => BitRange::new(0, 0),
                })
                .collect();
            let permutation = Permutation::moving_to_top(&ranges)
                .map_err(|error| CodecError::corrupt(WHAT, error.to_string()))?;
            let table = Table::new(permutation);
            if table.prefix_bits() != prefix_bits {
                return Err(CodecError::corrupt(
                    WHAT,
                    "prefix bits disagree with the ranges",
                ));
            }
            tables.push(table);
        }
        if !reader.rest.is_empty() {
            return Err(CodecError::corrupt(WHAT, "trailing bytes"));
        }
        // Regenerate rather than trust: this also proves completeness, since
        // every generated design is complete.
        let design = TableDesign::from_shape(k, shape)
            .map_err(|error| CodecError::corrupt(WHAT, error.to_string()))?;
        if design.tables() != tables.as_slice() {
            return Err(CodecError::corrupt(
                WHAT,
                "stored tables differ from the ones this build generates for the shape",
            ));
        }
        Ok(design)
    }
}

/// A cursor over bytes whose reads fail, instead of panicking, at the end.
pub(crate) struct ByteReader<'a> {
    pub(crate) rest: &'a [u8],
}

impl<'a> ByteReader<'a> {
    pub(crate) fn take(&mut self, count: usize) -> Result<&'a [u8], CodecError> {
        if count > self.rest.len() {
            return Err(CodecError::corrupt(WHAT, "truncated"));
        }
        let (head, tail) = self.rest.split_at(count);
        self.rest = tail;
        Ok(head)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, CodecError> {
        match self.take(1)? {
            [byte] => Ok(*byte),
            _ => Err(CodecError::corrupt(WHAT, "truncated")),
        }
    }

    pub(crate) fn u16(&mut self) -> Result<u16, CodecError> {
        match self.take(2)? {
            [high, low] => Ok(u16::from_be_bytes([*high, *low])),
            _ => Err(CodecError::corrupt(WHAT, "truncated")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(design: &TableDesign) -> Vec<u8> {
        let bytes = design.to_bytes();
        decode_frame(
            &bytes,
            Kind::Design,
            &[BLOCKS_FORMAT_VERSION, DESIGN_FORMAT_VERSION],
        )
        .unwrap()
        .1
        .to_vec()
    }

    #[test]
    fn every_family_design_round_trips() {
        for k in 0..=MAX_K {
            for design in TableDesign::family(k).unwrap() {
                let bytes = design.to_bytes();
                assert_eq!(TableDesign::from_bytes(&bytes).unwrap(), design);
                let v1 = legacy::frame_v1(&payload(&design));
                let parts = matches!(design.shape(), DesignShape::Parts { .. });
                // Written as a reader of version 2 reads them, unless parts.
                assert_eq!(bytes[5], if parts { 3 } else { 2 }, "{design}");
                if parts {
                    assert!(TableDesign::from_v1_bytes(&v1).is_err());
                } else {
                    assert_eq!(TableDesign::from_v1_bytes(&v1).unwrap(), design);
                }
            }
        }
        let six = TableDesign::parts(3, 2, 3).unwrap();
        assert_eq!(TableDesign::from_bytes(&six.to_bytes()).unwrap(), six);
        let uneven = TableDesign::split(2, &[30, 20, 14]).unwrap();
        assert_eq!(TableDesign::from_bytes(&uneven.to_bytes()).unwrap(), uneven);
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        let design = TableDesign::levels(3, &[4, 4]).unwrap();
        for bytes in [design.to_bytes(), legacy::frame_v1(&payload(&design))] {
            for len in 0..bytes.len() {
                assert!(TableDesign::from_bytes(&bytes[..len]).is_err());
                assert!(TableDesign::from_v1_bytes(&bytes[..len]).is_err());
            }
            for bit in 0..bytes.len() * 8 {
                let mut flipped = bytes.clone();
                flipped[bit / 8] ^= 1 << (bit % 8);
                assert!(TableDesign::from_bytes(&flipped).is_err(), "bit {bit}");
                assert!(TableDesign::from_v1_bytes(&flipped).is_err(), "bit {bit}");
            }
        }
    }

    /// A checksummed design whose explicit widths run past bit 63 (the
    /// tables are never reached): corrupt, not a panic.
    #[test]
    fn widths_past_64_bits_are_corrupt() {
        let bytes = encode_frame(
            Kind::Design,
            DESIGN_FORMAT_VERSION,
            &[1, 1, 2, 30, 50, 0, 0],
        );
        assert!(matches!(
            TableDesign::from_bytes(&bytes),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn other_versions_are_reported_as_such() {
        let design = TableDesign::levels(3, &[4]).unwrap();
        let bytes = encode_frame(Kind::Design, 9, &payload(&design));
        assert_eq!(
            TableDesign::from_bytes(&bytes),
            Err(CodecError::Version {
                what: WHAT,
                expected: DESIGN_FORMAT_VERSION,
                got: 9
            })
        );
        // A version-1 design is not read as a frame, and the other way round.
        let v1 = legacy::frame_v1(&payload(&design));
        assert!(TableDesign::from_bytes(&v1).is_err());
        assert!(TableDesign::from_v1_bytes(&design.to_bytes()).is_err());
    }

    #[test]
    fn a_design_of_parts_needs_its_version_and_two_entries() {
        let six = TableDesign::parts(3, 2, 3).unwrap();
        let in_version_2 = encode_frame(Kind::Design, BLOCKS_FORMAT_VERSION, &payload(&six));
        assert!(matches!(
            TableDesign::from_bytes(&in_version_2),
            Err(CodecError::Corrupt { .. })
        ));
        let four = TableDesign::levels(3, &[4]).unwrap();
        let in_version_3 = encode_frame(Kind::Design, DESIGN_FORMAT_VERSION, &payload(&four));
        assert!(matches!(
            TableDesign::from_bytes(&in_version_3),
            Err(CodecError::Corrupt { .. })
        ));
        // Kind 2 with three entries (the tables are never reached).
        let bytes = encode_frame(
            Kind::Design,
            DESIGN_FORMAT_VERSION,
            &[3, 2, 3, 2, 3, 1, 0, 0],
        );
        assert!(matches!(
            TableDesign::from_bytes(&bytes),
            Err(CodecError::Corrupt { .. })
        ));
    }

    #[test]
    fn consistent_but_wrong_tables_are_rejected() {
        // Swap two tables and frame again: structurally valid, wrong.
        let design = TableDesign::levels(2, &[3]).unwrap();
        let mut bytes = payload(&design);
        let header_len = 3 + 1 + 2;
        let mut body: Vec<u8> = bytes.split_off(header_len);
        let first_len = 2 + 2 * usize::from(body[1]);
        let first: Vec<u8> = body.drain(..first_len).collect();
        body.extend(first);
        bytes.extend(body);
        assert!(matches!(
            TableDesign::from_bytes(&encode_frame(Kind::Design, DESIGN_FORMAT_VERSION, &bytes)),
            Err(CodecError::Corrupt { .. })
        ));
    }
}
