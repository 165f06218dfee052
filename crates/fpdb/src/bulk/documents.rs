//! The loader's in-memory buffer of (id, fingerprint, signature) documents.
//!
//! Ids live back to back in one arena, each followed by the document's
//! confirming signature if it has one; each document is a 24-byte entry,
//! so 10M documents with short ids take ~300 MB instead of the ~600 MB of
//! 10M `String`s. Entries carry eight bytes of their id, so sorting by id
//! compares integers (see [`Documents::sort_and_dedup_ids`]).

use std::cmp::Reverse;

use rayon::prelude::*;

/// One buffered document.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Entry {
    /// Eight bytes of the id, big-endian, zero-padded past its end: the
    /// first eight until a sort moves on to later ones.
    prefix: u64,
    pub fp: u64,
    /// Arena offset (low 48 bits), id length (the next 15) and whether a
    /// signature follows the id (the top bit).
    pub span: u64,
}

const OFFSET_BITS: u32 = 48;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// Ids are at most 1 KiB, so 15 bits hold their length.
const ID_LEN_MASK: u64 = (1 << 15) - 1;
const SIGNED: u64 = 1 << 63;

/// Bytes each document costs in the buffer besides its id.
pub(crate) const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

#[derive(Debug, Default)]
pub(crate) struct Documents {
    arena: Vec<u8>,
    entries: Vec<Entry>,
    /// The length of every signature in the buffer (one layout per
    /// database); 0 until the first signed document.
    signature_bytes: usize,
}

impl Documents {
    /// Appends a document with its signature (empty for a bare
    /// fingerprint); ids are validated by the caller (≤ 1 KiB), and every
    /// signature of a buffer has one length.
    pub fn push(&mut self, id: &[u8], fp: u64, signature: &[u8]) {
        let mut span = (self.arena.len() as u64) | ((id.len() as u64) << OFFSET_BITS);
        self.arena.extend_from_slice(id);
        if !signature.is_empty() {
            debug_assert!(self.signature_bytes == 0 || self.signature_bytes == signature.len());
            self.signature_bytes = signature.len();
            self.arena.extend_from_slice(signature);
            span |= SIGNED;
        }
        self.entries.push(Entry {
            prefix: chunk_at(id, 0),
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
        let start = (span & OFFSET_MASK) as usize;
        &self.arena[start..start + span_id_len(span)]
    }

    /// The signature of an entry; empty for a bare fingerprint.
    pub fn signature(&self, entry: &Entry) -> &[u8] {
        self.signature_at(entry.span)
    }

    /// The signature after the id `span` points at (see [`Documents::id_at`]).
    #[expect(
        clippy::indexing_slicing,
        reason = "a signed span is made by `push` after it appended the id and `signature_bytes` bytes of signature"
    )]
    pub fn signature_at(&self, span: u64) -> &[u8] {
        if span & SIGNED == 0 {
            return &[];
        }
        let start = (span & OFFSET_MASK) as usize + span_id_len(span);
        &self.arena[start..start + self.signature_bytes]
    }

    /// Calls `write(id, fp, signature)` for each `(fp, span)` in order.
    ///
    /// The ids sit at random places in the arena, so reading them one per
    /// RocksDB `put` stalls on a cache miss each time. Copying a chunk of
    /// them first (with their signatures), in a tight loop, lets the
    /// processor overlap the misses.
    pub fn for_each_id(
        &self,
        pairs: impl Iterator<Item = (u64, u64)>,
        mut write: impl FnMut(&[u8], u64, &[u8]) -> crate::Result<()>,
    ) -> crate::Result<()> {
        const CHUNK: usize = 4096;
        let mut bytes: Vec<u8> = Vec::with_capacity(CHUNK * 24);
        // Per document: where its id ends and its signature ends.
        let mut ends: Vec<(usize, usize, u64)> = Vec::with_capacity(CHUNK);
        let mut pairs = pairs.peekable();
        let past_end = || crate::Error::corrupt("a bulk load's id buffer", "a key past its end");
        while pairs.peek().is_some() {
            bytes.clear();
            ends.clear();
            for (fp, span) in pairs.by_ref().take(CHUNK) {
                bytes.extend_from_slice(self.id_at(span));
                let id_end = bytes.len();
                bytes.extend_from_slice(self.signature_at(span));
                ends.push((id_end, bytes.len(), fp));
            }
            let mut start = 0;
            for &(id_end, end, fp) in &ends {
                let id = bytes.get(start..id_end).ok_or_else(past_end)?;
                let signature = bytes.get(id_end..end).ok_or_else(past_end)?;
                write(id, fp, signature)?;
                start = end;
            }
        }
        Ok(())
    }

    /// Sorts by id and keeps, of each id, the document added last (later
    /// documents sit later in the arena, so the arena offset breaks ties:
    /// descending, so the one to keep comes first and the duplicates are
    /// dropped in place, without a second buffer of every entry).
    ///
    /// A most-significant-first sort, eight bytes at a time: entries are
    /// sorted by their [`Entry::prefix`] alone, then each run that shares
    /// those bytes by the next eight. Ids that share a long start (URLs:
    /// `https://www.` and a site) are told apart in a few integer sorts,
    /// where comparing them whole would chase both ids in the arena on
    /// every comparison.
    pub fn sort_and_dedup_ids(&mut self) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.par_sort_unstable_by_key(|e| level_key(e, 0));
        self.sort_runs(&mut entries, 0);
        entries.dedup_by(|later, kept| {
            id_len(later) == id_len(kept) && self.id(later) == self.id(kept)
        });
        self.entries = entries;
    }

    /// Sorts, by their bytes from `depth + 8` on, each run of `entries`
    /// (sorted by [`level_key`] at `depth`) whose ids share bytes
    /// `depth..depth + 8` and go on past them.
    fn sort_runs(&self, entries: &mut [Entry], depth: usize) {
        let next = depth + 8;
        let runs: Vec<&mut [Entry]> = entries
            .chunk_by_mut(|a, b| run_key(a, depth) == run_key(b, depth))
            .filter(|run| run.len() > 1 && run.first().is_some_and(|e| id_len(e) > next))
            .collect();
        runs.into_par_iter().for_each(|run| {
            for entry in run.iter_mut() {
                entry.prefix = chunk_at(self.id(entry), next);
            }
            run.sort_unstable_by_key(|e| level_key(e, next));
            self.sort_runs(run, next);
        });
    }

    /// Sorts entries already in id order by fingerprint, in place; entries
    /// of one fingerprint stay in id order. Takes no memory besides the
    /// buffer's (each entry's id prefix, needed no more, is overwritten
    /// with its place in id order, which breaks the ties).
    pub fn sort_by_fingerprint(&mut self) {
        for (place, entry) in self.entries.iter_mut().enumerate() {
            entry.prefix = place as u64;
        }
        self.entries.par_sort_unstable_by_key(|e| (e.fp, e.prefix));
    }

    pub fn clear(&mut self) {
        self.arena.clear();
        self.entries.clear();
    }
}

/// Bytes `depth..depth + 8` of `id`, big-endian, zero-padded past its end.
fn chunk_at(id: &[u8], depth: usize) -> u64 {
    let mut chunk = [0u8; 8];
    let tail = id.get(depth..).unwrap_or_default();
    let take = tail.len().min(8);
    if let (Some(dst), Some(src)) = (chunk.get_mut(..take), tail.get(..take)) {
        dst.copy_from_slice(src);
    }
    u64::from_be_bytes(chunk)
}

fn id_len(entry: &Entry) -> usize {
    span_id_len(entry.span)
}

fn span_id_len(span: u64) -> usize {
    ((span >> OFFSET_BITS) & ID_LEN_MASK) as usize
}

/// The order of entries whose ids share their first `depth` bytes and
/// whose [`Entry::prefix`] holds bytes `depth..depth + 8`: by those bytes;
/// of equal ones, the ids that end within them first, shorter first (the
/// zero padding is theirs: each is a start of the next), then those that
/// go on, in one run for the next eight bytes. Equal keys are equal ids,
/// or a run to sort further.
fn run_key(entry: &Entry, depth: usize) -> (u64, usize) {
    (entry.prefix, id_len(entry).saturating_sub(depth).min(9))
}

/// [`run_key`], then equal ids newest first (later in the arena).
fn level_key(entry: &Entry, depth: usize) -> ((u64, usize), Reverse<u64>) {
    (run_key(entry, depth), Reverse(entry.span & OFFSET_MASK))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Ids that share long starts, end on either side of each 8-byte
        /// boundary, hold zero bytes (the padding's value) and repeat.
        /// Never empty (as validated ids): the arena offset that orders
        /// repeats advances with each id's bytes.
        #[test]
        fn the_sort_is_a_byte_order_sort_keeping_the_newest(
            ids in proptest::collection::vec(
                (0usize..4, proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b')], 1..20)),
                0..400,
            )
        ) {
            const STARTS: [&[u8]; 4] = [b"", b"https://", b"https://www.site.example/", b"doc\0\0"];
            let ids: Vec<Vec<u8>> = ids
                .into_iter()
                .map(|(start, tail)| [STARTS[start], &tail].concat())
                .collect();
            // Every third document bare, the others signed with their
            // order, so that each kept entry shows whose signature it has.
            let signature = |order: usize| -> Vec<u8> {
                if order.is_multiple_of(3) { Vec::new() } else { (order as u64).to_be_bytes().to_vec() }
            };
            let mut docs = Documents::default();
            for (order, id) in ids.iter().enumerate() {
                docs.push(id, order as u64, &signature(order));
            }
            docs.sort_and_dedup_ids();
            let got: Vec<(&[u8], u64, Vec<u8>)> = docs
                .entries()
                .iter()
                .map(|e| (docs.id(e), e.fp, docs.signature(e).to_vec()))
                .collect();

            let mut expected: Vec<(&[u8], u64, Vec<u8>)> = ids
                .iter()
                .enumerate()
                .map(|(order, id)| (id.as_slice(), order as u64, signature(order)))
                .collect();
            expected.sort_by_key(|(id, order, _)| (*id, Reverse(*order)));
            expected.dedup_by_key(|(id, _, _)| *id);
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_fingerprint_sort_keeps_the_ids_of_one_fingerprint_in_order() {
        let mut docs = Documents::default();
        for (id, fp) in [("d", 2), ("b", 1), ("a", 2), ("c", 1), ("e", 0), ("a", 9)] {
            docs.push(id.as_bytes(), fp, &[]);
        }
        docs.sort_and_dedup_ids();
        docs.sort_by_fingerprint();
        let got: Vec<(&[u8], u64)> = docs.entries().iter().map(|e| (docs.id(e), e.fp)).collect();
        let expected: [(&[u8], u64); 5] = [(b"e", 0), (b"b", 1), (b"c", 1), (b"d", 2), (b"a", 9)];
        assert_eq!(got, expected);
    }

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
            docs.push(id.as_bytes(), fp, &[]);
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
