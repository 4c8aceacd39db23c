//! Format version 2's storage: the entries cut into blocks of a fixed
//! number, each compressed on its own as one zstd frame and found through
//! an index of offsets, so that reading one entry costs one small block's
//! decompression while the file is less than half the entries' size.

use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;
use zstd::bulk::{Compressor, Decompressor};

use super::format::{FormatError, Header, Storage, HEADER_LEN};

/// Entries per block. On the standard table, blocks of 16 KiB compress as
/// well as blocks of 64 KiB or 1 MiB (zstd -b3 -B on a 128 MiB slice:
/// x2.29, x2.24, x2.24), and a probe that misses the cache decompresses
/// only 16 KiB.
pub const BLOCK_ENTRIES: u32 = 1 << 14;
/// zstd's default level: about 45 MB/s per core here; level 9 saves 5%
/// more at a quarter of the speed, which the build's time limit cannot
/// spare.
pub const LEVEL: i32 = 3;
/// Blocks compressed at once between writes, so that the compressed data
/// never sits in memory beside the whole table.
const BATCH: u64 = 256;

/// A zstd frame's first four bytes (0xFD2FB528, little-endian).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Where the blocks of a version-2 file are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub entries: u64,
    pub per_block: u64,
    pub blocks: u64,
}

fn offset_at(file: &[u8], k: u64) -> u64 {
    let at = HEADER_LEN + 8 * k as usize;
    u64::from_le_bytes(file[at..at + 8].try_into().expect("8 bytes"))
}

impl Layout {
    pub fn new(entries: u64, per_block: u32) -> Layout {
        let per_block = per_block.max(1) as u64;
        Layout {
            entries,
            per_block,
            blocks: entries.div_ceil(per_block),
        }
    }

    /// The layout of a version-2 header; `None` for version 1.
    pub fn of(header: &Header) -> Option<Layout> {
        match header.storage {
            Storage::Plain => None,
            Storage::Blocks { per_block, .. } => Some(Layout::new(header.entries, per_block)),
        }
    }

    /// Bytes of the block index: one offset per block and the file's end.
    pub fn index_len(&self) -> u64 {
        8 * (self.blocks + 1)
    }

    /// The entries of block `k`.
    pub fn range(&self, k: u64) -> Range<u64> {
        let start = k * self.per_block;
        start..(start + self.per_block).min(self.entries)
    }

    /// Checks the block index of `file` (the whole file): see `offsets`.
    pub fn check_index(&self, file: &[u8]) -> Result<(), FormatError> {
        let end = (HEADER_LEN as u64 + self.index_len()).min(file.len() as u64) as usize;
        self.offsets(&file[HEADER_LEN.min(end)..end], file.len() as u64)
            .map(|_| ())
    }

    /// The block offsets of `index` (the bytes after the header, as many as
    /// the file has up to the index's length) in a file of `file_len`
    /// bytes, checked: the index fits, block 0 starts right after it, no
    /// block goes backwards and the last ends at the end of the file, so
    /// every block's bytes can then be taken without checks.
    pub fn offsets(&self, index: &[u8], file_len: u64) -> Result<Vec<u64>, FormatError> {
        let bad = |what: String| Err(FormatError(format!("block index: {what}")));
        let first = HEADER_LEN as u64 + self.index_len();
        if file_len < first || (index.len() as u64) < self.index_len() {
            return bad(format!(
                "{} blocks need {first} bytes before the first block; the file has {file_len}",
                self.blocks,
            ));
        }
        let offsets: Vec<u64> = index
            .chunks_exact(8)
            .take(self.blocks as usize + 1)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        if offsets[0] != first {
            return bad(format!(
                "block 0 starts at {}, expected {first} (right after the index)",
                offsets[0]
            ));
        }
        for (k, pair) in offsets.windows(2).enumerate() {
            if pair[1] <= pair[0] {
                return bad(format!("block {k} runs from {} to {}", pair[0], pair[1]));
            }
        }
        let end = offsets[self.blocks as usize];
        if end != file_len {
            return bad(format!(
                "the last block ends at {end}, the file is {file_len} bytes"
            ));
        }
        Ok(offsets)
    }

    /// Decompresses block `k` of `file` (whose index has been checked) into
    /// `out`, which has the block's length.
    pub fn decompress(
        &self,
        file: &[u8],
        k: u64,
        zstd: &mut Decompressor<'_>,
        out: &mut [u8],
    ) -> Result<(), FormatError> {
        let frame = &file[offset_at(file, k) as usize..offset_at(file, k + 1) as usize];
        self.decompress_frame(k, frame, zstd, out)
    }

    /// Decompresses `frame`, block `k`, into `out`, which has the block's
    /// length. The frame must carry its content checksum (every block this
    /// code writes does), so that a damaged block is refused rather than
    /// answered from.
    pub fn decompress_frame(
        &self,
        k: u64,
        frame: &[u8],
        zstd: &mut Decompressor<'_>,
        out: &mut [u8],
    ) -> Result<(), FormatError> {
        // The frame header: 4 magic bytes, then the descriptor whose bit 2
        // says a checksum ends the frame (RFC 8878, 3.1.1.1.1).
        if frame.len() < 5 || frame[..4] != ZSTD_MAGIC || frame[4] & 0x04 == 0 {
            return Err(FormatError(format!(
                "block {k} is not a zstd frame with a content checksum"
            )));
        }
        match zstd.decompress_to_buffer(frame, out) {
            Ok(n) if n == out.len() => Ok(()),
            Ok(n) => Err(FormatError(format!(
                "block {k} holds {n} entries, expected {}",
                out.len()
            ))),
            Err(e) => Err(FormatError(format!("block {k} does not decompress: {e}"))),
        }
    }

    /// All the entries of `file` (whose index has been checked), the blocks
    /// decompressed on every core.
    pub fn decompress_all(&self, file: &[u8]) -> Result<Vec<u8>, FormatError> {
        let mut entries = vec![0u8; self.entries as usize];
        entries
            .par_chunks_mut(self.per_block as usize)
            .enumerate()
            .try_for_each_init(Decompressor::new, |zstd, (k, out)| {
                let zstd = zstd
                    .as_mut()
                    .map_err(|e| FormatError(format!("zstd: {e}")))?;
                self.decompress(file, k as u64, zstd, out)
            })?;
        Ok(entries)
    }
}

/// A zstd compressor at `LEVEL` whose frames end with a checksum of their
/// content (4 bytes), so that a prober never answers from a damaged block
/// that happens to decompress.
fn compressor() -> io::Result<Compressor<'static>> {
    let mut zstd = Compressor::new(LEVEL)?;
    zstd.include_checksum(true)?;
    Ok(zstd)
}

/// Writes a version-2 table file: `header` (counts and the entries'
/// checksum filled in), the block index and the blocks, each of
/// `per_block` entries that `fill` appends for a range of indices. Returns
/// the header as written.
pub fn write(
    path: &Path,
    header: &Header,
    per_block: u32,
    fill: &(dyn Fn(Range<u64>, &mut Vec<u8>) + Sync),
) -> io::Result<Header> {
    let layout = Layout::new(header.entries, per_block);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    let mut out = io::BufWriter::with_capacity(1 << 20, &mut file);
    // The header and the index are written last, when the offsets and the
    // checksum of the stored data are known.
    out.write_all(&[0; HEADER_LEN])?;
    out.write_all(&vec![0; layout.index_len() as usize])?;
    let mut offsets = Vec::with_capacity(layout.blocks as usize + 1);
    let mut at = HEADER_LEN as u64 + layout.index_len();
    offsets.push(at);
    for first in (0..layout.blocks).step_by(BATCH as usize) {
        let frames: Vec<io::Result<Vec<u8>>> = (first..(first + BATCH).min(layout.blocks))
            .into_par_iter()
            .map_init(
                || (compressor(), Vec::new()),
                |(zstd, entries), k| {
                    let zstd = zstd
                        .as_mut()
                        .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                    entries.clear();
                    fill(layout.range(k), entries);
                    zstd.compress(entries)
                },
            )
            .collect();
        for frame in frames {
            let frame = frame?;
            out.write_all(&frame)?;
            at += frame.len() as u64;
            offsets.push(at);
        }
    }
    out.flush()?;
    drop(out);
    let index: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    file.seek(SeekFrom::Start(HEADER_LEN as u64))?;
    file.write_all(&index)?;
    file.seek(SeekFrom::Start(HEADER_LEN as u64))?;
    let stored = {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        let mut buffer = vec![0; 1 << 20];
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
        }
        let digest: [u8; 32] = hasher.finalize().into();
        digest
    };
    let header = Header {
        storage: Storage::Blocks {
            per_block,
            data_len: at - HEADER_LEN as u64,
            stored,
        },
        ..header.clone()
    };
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())?;
    file.sync_all()?;
    Ok(header)
}
