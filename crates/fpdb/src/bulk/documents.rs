//! The loader's in-memory buffer of (id, fingerprint) documents.
//!
//! Ids live back to back in one arena; each document is a 24-byte entry,
//! so 10M documents with short ids take ~300 MB instead of the ~600 MB of
//! 10M `String`s. Entries carry the id's first eight bytes, so sorting by
//! id mostly compares integers.

use rayon::slice::ParallelSliceMut;

/// One buffered document.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Entry {
    /// The id's first 8 bytes, big-endian, zero-padded.
    prefix: u64,
    pub fp: u64,
    /// Arena offset (low 48 bits) and id length (high 16 bits).
    pub span: u64,
}

const OFFSET_BITS: u32 = 48;

/// Bytes each document costs in the buffer besides its id.
pub(crate) const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

#[derive(Debug, Default)]
pub(crate) struct Documents {
    arena: Vec<u8>,
    entries: Vec<Entry>,
}

impl Documents {
    /// Appends a document; ids are validated by the caller (≤ 1 KiB).
    pub fn push(&mut self, id: &[u8], fp: u64) {
        let mut prefix = [0u8; 8];
        let head = id.len().min(8);
        if let (Some(dst), Some(src)) = (prefix.get_mut(..head), id.get(..head)) {
            dst.copy_from_slice(src);
        }
        let span = (self.arena.len() as u64) | ((id.len() as u64) << OFFSET_BITS);
        self.arena.extend_from_slice(id);
        self.entries.push(Entry {
            prefix: u64::from_be_bytes(prefix),
            fp,
            span,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Memory held, in bytes.
    pub fn bytes(&self) -> usize {
        self.arena.len() + self.entries.len() * ENTRY_BYTES
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn id(&self, entry: &Entry) -> &[u8] {
        self.id_at(entry.span)
    }

    /// The id an entry's `span` points at; `span` must come from this
    /// buffer's entries.
    #[expect(
        clippy::indexing_slicing,
        reason = "a span is made by `push` from the arena's length before the id was appended, and the arena only grows"
    )]
    pub fn id_at(&self, span: u64) -> &[u8] {
        let start = (span & ((1 << OFFSET_BITS) - 1)) as usize;
        let len = (span >> OFFSET_BITS) as usize;
        &self.arena[start..start + len]
    }

    /// Calls `write(key, fp)` for each `(fp, span)` in order, with `key` =
    /// the 8-byte fingerprint (when `with_fp`) then the id.
    ///
    /// The ids sit at random places in the arena, so reading them one per
    /// RocksDB `put` stalls on a cache miss each time. Copying a chunk of
    /// them first, in a tight loop, lets the processor overlap the misses.
    pub fn for_each_key(
        &self,
        pairs: impl Iterator<Item = (u64, u64)>,
        with_fp: bool,
        mut write: impl FnMut(&[u8], u64) -> crate::Result<()>,
    ) -> crate::Result<()> {
        const CHUNK: usize = 4096;
        let mut keys: Vec<u8> = Vec::with_capacity(CHUNK * 24);
        let mut ends: Vec<(usize, u64)> = Vec::with_capacity(CHUNK);
        let mut pairs = pairs.peekable();
        while pairs.peek().is_some() {
            keys.clear();
            ends.clear();
            for (fp, span) in pairs.by_ref().take(CHUNK) {
                if with_fp {
                    keys.extend_from_slice(&fp.to_be_bytes());
                }
                keys.extend_from_slice(self.id_at(span));
                ends.push((keys.len(), fp));
            }
            let mut rest = keys.as_slice();
            let mut start = 0;
            for &(end, fp) in &ends {
                let (key, after) = rest
                    .split_at_checked(end.saturating_sub(start))
                    .ok_or_else(|| {
                        crate::Error::corrupt("a bulk load's id buffer", "a key past its end")
                    })?;
                write(key, fp)?;
                rest = after;
                start = end;
            }
        }
        Ok(())
    }

    /// Sorts by id and keeps, of each id, the document added last (later
    /// documents sit later in the arena, so the arena offset breaks ties:
    /// descending, so the one to keep comes first and the duplicates are
    /// dropped in place, without a second buffer of every entry).
    pub fn sort_and_dedup_ids(&mut self) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.par_sort_unstable_by(|a, b| {
            a.prefix
                .cmp(&b.prefix)
                .then_with(|| self.id(a).cmp(self.id(b)))
                .then_with(|| b.span.cmp(&a.span))
        });
        entries
            .dedup_by(|later, kept| later.prefix == kept.prefix && self.id(later) == self.id(kept));
        self.entries = entries;
    }

    pub fn clear(&mut self) {
        self.arena.clear();
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_document_of_an_id_wins_and_ids_come_out_sorted() {
        let mut docs = Documents::default();
        for (id, fp) in [
            ("b", 1),
            ("a", 2),
            ("abcdefghij", 3),
            ("b", 4),
            ("abcdefghi", 5),
            ("abcdefghij", 6),
        ] {
            docs.push(id.as_bytes(), fp);
        }
        docs.sort_and_dedup_ids();
        let got: Vec<(String, u64)> = docs
            .entries()
            .iter()
            .map(|e| (String::from_utf8(docs.id(e).to_vec()).unwrap(), e.fp))
            .collect();
        let expected = [("a", 2), ("abcdefghi", 5), ("abcdefghij", 6), ("b", 4)];
        let expected: Vec<(String, u64)> = expected
            .iter()
            .map(|&(id, fp)| (id.to_string(), fp))
            .collect();
        assert_eq!(got, expected);
    }
}
