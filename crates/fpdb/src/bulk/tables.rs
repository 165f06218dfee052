//! Building one permuted table from the loaded fingerprint set: permute,
//! sort, derive the table's Huffman code from its own gaps, cut blocks,
//! write them as an SST file.

use std::path::{Path, PathBuf};

use fpdb_codec::{BlockDirectory, BlockEncoder, EncodedBlock, HuffmanCode, Table};

use super::runs::Runs;
use super::runs::{decode_number_key, number_key};
use crate::error::Result;
use crate::radix::sort_u64;
use crate::store::{Family, Record, SstFile};

/// A table ready to be ingested.
pub(crate) struct BuiltTable {
    pub code: HuffmanCode,
    pub directory: BlockDirectory,
    /// Encoded bytes of all blocks.
    pub bytes: u64,
    pub sst: Option<PathBuf>,
}

/// The permuted keys of a table being built in memory and the sort's
/// scratch: 16 bytes a fingerprint, kept from one table to the next so
/// that each table after the first takes no fresh pages (at 100M
/// fingerprints, 1.6 GB a table the kernel would otherwise zero again).
#[derive(Default)]
pub(crate) struct KeyBuffers {
    keys: Vec<u64>,
    scratch: Vec<u64>,
}

/// Builds table `index` from the distinct fingerprints `fps`, in memory.
pub(crate) fn build_in_memory(
    dir: &Path,
    index: usize,
    table: &Table,
    fps: &[u64],
    block_bytes: usize,
    buffers: &mut KeyBuffers,
) -> Result<BuiltTable> {
    let permutation = table.permutation();
    let keys = &mut buffers.keys;
    keys.clear();
    keys.extend(fps.iter().map(|&fp| permutation.permute(fp)));
    // The set comes ascending, so a table whose permutation keeps the
    // leading bits in place (the first of a `split-` design) is sorted
    // already.
    if !keys.is_sorted() {
        sort_u64(keys, &mut buffers.scratch);
    }
    let code = HuffmanCode::for_sorted_keys(keys);
    let blocks = BlockEncoder::new(&code, block_bytes)
        .cut_at_groups(table.prefix_bits())
        .encode_table(keys)?;
    finish_table(dir, index, code, &blocks)
}

/// Builds table `index` from distinct fingerprints streamed from `fps`,
/// sorting under the permutation in runs of `run_keys` keys.
pub(crate) fn build_external(
    dir: &Path,
    index: usize,
    table: &Table,
    fps: impl Iterator<Item = Result<u64>>,
    run_keys: usize,
    block_bytes: usize,
) -> Result<BuiltTable> {
    let permutation = table.permutation();
    let mut runs = Runs::new(dir, format!("{}-keys", Family::Table(index).name()));
    let mut chunk = Vec::with_capacity(run_keys);
    let mut scratch = Vec::with_capacity(run_keys);
    let mut spill = |chunk: &mut Vec<u64>, runs: &mut Runs| -> Result<()> {
        sort_u64(chunk, &mut scratch);
        runs.write(chunk.iter().map(|&k| Ok((number_key(k), 0))))?;
        chunk.clear();
        Ok(())
    };
    for fp in fps {
        chunk.push(permutation.permute(fp?));
        if chunk.len() >= run_keys {
            spill(&mut chunk, &mut runs)?;
        }
    }
    spill(&mut chunk, &mut runs)?;
    drop(scratch);

    // First pass: the code from the gaps of the whole table.
    let mut histogram = [0u64; fpdb_codec::SYMBOLS];
    let mut previous: Option<u64> = None;
    for_each_key(&runs, |key| {
        if let Some(previous) = previous {
            let h = (previous ^ key).leading_zeros() as usize;
            if let Some(count) = histogram.get_mut(h) {
                *count += 1;
            }
        }
        previous = Some(key);
        Ok(())
    })?;
    let code = HuffmanCode::from_histogram(&histogram);

    // Second pass: blocks, encoded a slice at a time and written as they
    // come, so only the directory stays in memory. (A slice's end cuts a
    // block wherever it falls: once per million keys.)
    let encoder = BlockEncoder::new(&code, block_bytes).cut_at_groups(table.prefix_bits());
    let (mut last_keys, mut first_keys) = (Vec::new(), Vec::new());
    let mut bytes = 0u64;
    let mut slice = Vec::with_capacity(run_keys.clamp(1, 1 << 20));
    let capacity = slice.capacity();
    let sst = SstFile::new(dir, Family::Table(index), 0).write(|put| {
        let mut write_slice = |slice: &mut Vec<u64>| -> Result<()> {
            for block in encoder.encode_table(slice)? {
                put(Record::Block {
                    table: index,
                    last_key: block.last_key(),
                    bytes: block.bytes(),
                })?;
                last_keys.push(block.last_key());
                first_keys.push(block.first_key());
                bytes += block.bytes().len() as u64;
            }
            slice.clear();
            Ok(())
        };
        for_each_key(&runs, |key| {
            slice.push(key);
            if slice.len() >= capacity {
                write_slice(&mut slice)?;
            }
            Ok(())
        })?;
        write_slice(&mut slice)
    })?;
    runs.remove();
    Ok(BuiltTable {
        code,
        directory: BlockDirectory::with_first_keys(last_keys, first_keys)?,
        bytes,
        sst,
    })
}

fn for_each_key(runs: &Runs, mut each: impl FnMut(u64) -> Result<()>) -> Result<()> {
    for record in runs.merge()? {
        let (record, _) = record?;
        each(decode_number_key(&record.key)?)?;
    }
    Ok(())
}

fn finish_table(
    dir: &Path,
    index: usize,
    code: HuffmanCode,
    blocks: &[EncodedBlock],
) -> Result<BuiltTable> {
    let directory = BlockDirectory::from_blocks(blocks)?;
    let bytes = blocks.iter().map(|b| b.bytes().len() as u64).sum();
    let sst = SstFile::new(dir, Family::Table(index), 0).write(|put| {
        blocks.iter().try_for_each(|block| {
            put(Record::Block {
                table: index,
                last_key: block.last_key(),
                bytes: block.bytes(),
            })
        })
    })?;
    Ok(BuiltTable {
        code,
        directory,
        bytes,
        sst,
    })
}

/// `h_histogram` is what the in-memory path uses; the streaming pass above
/// must count the same thing.
#[cfg(test)]
mod tests {
    use fpdb_codec::h_histogram;

    use super::*;

    #[test]
    fn streaming_and_in_memory_builds_agree() {
        let design = fpdb_codec::TableDesign::from_name(3, "4x16").unwrap();
        // The first table keeps the set's order; the second does not.
        for (index, table) in design.tables()[..2].iter().enumerate() {
            let ascending = [1u64, 1 << 40, 1 << 63];
            let permuted = ascending.map(|fp| table.permutation().permute(fp));
            assert_eq!(permuted.is_sorted(), index == 0);
            streaming_and_in_memory_build_agree(table);
        }
    }

    fn streaming_and_in_memory_build_agree(table: &Table) {
        let mut fps: Vec<u64> = (0..20_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 7))
            .collect();
        fps.sort_unstable();
        fps.dedup();
        let dir = tempfile::tempdir().unwrap();
        let memory =
            build_in_memory(dir.path(), 0, table, &fps, 1024, &mut KeyBuffers::default()).unwrap();
        let streamed = build_external(
            dir.path(),
            1,
            table,
            fps.iter().map(|&f| Ok(f)),
            3_000,
            1024,
        )
        .unwrap();
        assert_eq!(memory.code.lengths(), streamed.code.lengths());
        let mut keys: Vec<u64> = fps
            .iter()
            .map(|&f| table.permutation().permute(f))
            .collect();
        keys.sort_unstable();
        assert_eq!(
            memory.code.lengths(),
            HuffmanCode::from_histogram(&h_histogram(&keys)).lengths()
        );
        // Streaming cuts blocks at slice ends too, so only the totals of
        // keys per directory are comparable: both end at the largest key.
        assert_eq!(
            memory.directory.last_keys().last(),
            streamed.directory.last_keys().last()
        );
        assert!(memory.sst.is_some() && streamed.sst.is_some());
    }
}
