//! Probing table files: each is read block by block with positioned
//! reads (not memory-mapped: a file truncated or rewritten under a map kills
//! the process with SIGBUS, a short read is only an error). A lookup is one
//! index computation and one byte: in a version-2 file, a byte of a block
//! kept decompressed in a small cache, so that the engine's principal line
//! and the explorer's moves, which come back to the same blocks, read and
//! decompress each block once. A block whose zstd checksum fails, or a file
//! whose length or modification time changes after it was opened, refuses
//! the table with a message (`Table::problem`); the process keeps running.

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use zstd::bulk::Decompressor;

use super::blocks::Layout;
use super::format::{self, Config, FormatError, Header, Storage, HEADER_LEN};
use crate::platform;
use crate::TableError;
use stackfish_games::silo::solve::{self, Value};
use stackfish_games::silo::{Move, Silo};
use stackfish_games::{Game, Side};

/// Decompressed blocks a table keeps: 64 of 16 KiB, 1 MiB of heap.
const CACHED_BLOCKS: usize = 64;
/// A version-1 file's entries are read in runs of this many bytes (its
/// "blocks"), so that a principal line costs a few reads, not one a ply.
const PLAIN_RUN: u64 = 1 << 14;

/// One table file, open.
pub struct Table {
    header: Header,
    path: PathBuf,
    file: File,
    /// The file's length and modification time when it was opened: a table
    /// that changes under the process is refused, not read.
    identity: (u64, Option<SystemTime>),
    /// Version 2: where the blocks are, and their offsets (the index).
    layout: Option<(Layout, Vec<u64>)>,
    cache: Mutex<BlockCache>,
    /// The first thing found wrong with the table, for the user.
    problem: OnceLock<String>,
    /// Set when the file changed after it was opened: nothing of it is
    /// read any more (a damaged block only refuses that block).
    changed: AtomicBool,
}

/// The blocks read last, the most recent first, and the zstd context that
/// decompressed them (made at the first miss).
#[derive(Default)]
struct BlockCache {
    zstd: Option<Decompressor<'static>>,
    blocks: VecDeque<(u64, Box<[u8]>)>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Table({}, {})", self.path.display(), self.header.config)
    }
}

/// The length and modification time of an open file.
fn identity_of(file: &File) -> std::io::Result<(u64, Option<SystemTime>)> {
    let meta = file.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}

impl Table {
    /// Opens `path` and checks its header, its length and (version 2) its
    /// block index. A version-1 file, whose entries have no checksum of
    /// their own block, has the SHA-256 of all its entries checked here;
    /// a version-2 block is checked (its zstd checksum) when first read.
    pub fn open(path: &Path) -> Result<Table, FormatError> {
        let located = |e: String| FormatError(format!("{}: {e}", path.display()));
        // Checked before opening: opening a FIFO would block.
        let meta = std::fs::metadata(path).map_err(|e| located(e.to_string()))?;
        if !meta.is_file() {
            return Err(located("not a regular file".into()));
        }
        let file = File::open(path).map_err(|e| located(e.to_string()))?;
        let identity = identity_of(&file).map_err(|e| located(e.to_string()))?;
        let mut head = [0u8; HEADER_LEN];
        let got = read_at_most(&file, &mut head, 0).map_err(|e| located(e.to_string()))?;
        let header = Header::parse(&head[..got], identity.0).map_err(|e| located(e.0))?;
        let layout = match Layout::of(&header) {
            Some(layout) => {
                // Read no further than the file goes: a header can claim an
                // index larger than memory (`offsets` then says it does not
                // fit), and must not have it allocated.
                let room = identity.0.saturating_sub(HEADER_LEN as u64);
                let mut index = vec![0u8; layout.index_len().min(room) as usize];
                let got = read_at_most(&file, &mut index, HEADER_LEN as u64)
                    .map_err(|e| located(e.to_string()))?;
                let offsets = layout
                    .offsets(&index[..got], identity.0)
                    .map_err(|e| located(e.0))?;
                Some((layout, offsets))
            }
            None => {
                check_plain(&file, &header).map_err(located)?;
                None
            }
        };
        Ok(Table {
            header,
            path: path.to_path_buf(),
            file,
            identity,
            layout,
            cache: Mutex::default(),
            problem: OnceLock::new(),
            changed: AtomicBool::new(false),
        })
    }

    /// The first thing found wrong with the table since it was opened, if
    /// any: its file changed (the whole table is then refused, read as
    /// covering nothing) or a block is damaged (its positions are refused).
    pub fn problem(&self) -> Option<&str> {
        self.problem.get().map(String::as_str)
    }

    /// Notes what is wrong (the first reason found is kept).
    fn refuse(&self, why: String) {
        let _ = self
            .problem
            .set(format!("table {}: {why}", self.path.display()));
    }

    /// The bytes of block `k` of the data (version 2: its zstd frame;
    /// version 1: a run of entries), checking first that the file is the
    /// one opened.
    fn read_block(&self, k: u64) -> Result<Vec<u8>, String> {
        match identity_of(&self.file) {
            Ok(now) if now == self.identity => {}
            Ok((len, _)) => {
                return Err(format!(
                    "the file changed on disk after it was opened ({} bytes then, {len} now)",
                    self.identity.0
                ))
            }
            Err(e) => return Err(format!("cannot read the file: {e}")),
        }
        let range = match &self.layout {
            Some((_, offsets)) => offsets[k as usize]..offsets[k as usize + 1],
            None => {
                let start = HEADER_LEN as u64 + k * PLAIN_RUN;
                start..(start + PLAIN_RUN).min(HEADER_LEN as u64 + self.header.entries)
            }
        };
        let mut bytes = vec![0u8; (range.end - range.start) as usize];
        match read_at_most(&self.file, &mut bytes, range.start) {
            Ok(n) if n == bytes.len() => Ok(bytes),
            Ok(n) => Err(format!(
                "the file is shorter than when it was opened (block {k}: {n} of {} bytes)",
                bytes.len()
            )),
            Err(e) => Err(format!("cannot read block {k}: {e}")),
        }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn config(&self) -> Config {
        self.header.config
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        self.identity.0
    }

    /// Entry `index`, which the caller has checked is in the table; `None`
    /// when the table is refused (its file changed, or this block is
    /// damaged: the position is then treated as not in the table).
    fn entry(&self, index: u64) -> Option<u8> {
        if self.changed.load(Relaxed) {
            return None;
        }
        let per_block = match &self.layout {
            Some((layout, _)) => layout.per_block,
            None => PLAIN_RUN,
        };
        let k = index / per_block;
        let at = (index % per_block) as usize;
        // A panic elsewhere while the lock was held cannot leave the cache
        // inconsistent: every block in it is complete.
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.blocks.iter().position(|(b, _)| *b == k) {
            let found = cache.blocks.remove(i)?;
            let byte = found.1[at];
            cache.blocks.push_front(found);
            return Some(byte);
        }
        let read = match self.read_block(k) {
            Ok(read) => read,
            Err(why) => {
                self.changed.store(true, Relaxed);
                cache.blocks.clear();
                self.refuse(format!(
                    "{why}; the table is refused until SiloTablePath loads it again"
                ));
                return None;
            }
        };
        let block = match &self.layout {
            None => read.into_boxed_slice(),
            Some((layout, _)) => {
                let len = (layout.range(k).end - layout.range(k).start) as usize;
                let mut block = match cache.blocks.len() {
                    n if n >= CACHED_BLOCKS => cache.blocks.pop_back()?.1,
                    _ => vec![0; len].into_boxed_slice(),
                };
                if block.len() != len {
                    block = vec![0; len].into_boxed_slice();
                }
                if cache.zstd.is_none() {
                    cache.zstd = Decompressor::new().ok();
                }
                let zstd = cache.zstd.as_mut()?;
                if let Err(e) = layout.decompress_frame(k, &read, zstd, &mut block) {
                    self.refuse(format!("damaged: {e}; its positions are refused"));
                    return None;
                }
                block
            }
        };
        if cache.blocks.len() >= CACHED_BLOCKS {
            cache.blocks.pop_back();
        }
        let byte = block[at];
        cache.blocks.push_front((k, block));
        Some(byte)
    }

    /// Whether `pos` is of this table's configuration.
    pub fn covers(&self, pos: &Silo) -> bool {
        Config::of(pos).is_ok_and(|c| c == self.header.config)
    }

    /// The value of `pos` for its side to move, if the table covers it.
    pub fn value(&self, pos: &Silo) -> Option<Value> {
        if !self.covers(pos) {
            return None;
        }
        let byte = self.entry(format::index_of(pos, self.header.config))?;
        Some(format::decode(byte))
    }

    /// The best move and the value it keeps; `None` when the game is over
    /// or the table does not cover `pos`.
    pub fn best_move(&self, pos: &Silo) -> Option<(Move, Value)> {
        solve::best_move_by(pos, |p| self.value(p))
    }

    /// The optimal line from `pos` to the end of the game.
    pub fn line(&self, pos: &Silo) -> Vec<Move> {
        solve::principal_line_by(pos, |p| self.value(p))
    }
}

/// Reads into `buf` from `offset` until it is full or the file ends;
/// returns the bytes read.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match platform::read_at(file, &mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// A version-1 file's entries against the header's checksum: they have no
/// other check, and a damaged entry would be answered as a proven value.
fn check_plain(file: &File, header: &Header) -> Result<(), String> {
    use sha2::{Digest, Sha256};
    debug_assert_eq!(header.storage, Storage::Plain);
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut at = HEADER_LEN as u64;
    let end = HEADER_LEN as u64 + header.entries;
    while at < end {
        let want = ((end - at) as usize).min(buffer.len());
        let n = read_at_most(file, &mut buffer[..want], at).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the file ended early".into());
        }
        hasher.update(&buffer[..n]);
        at += n as u64;
    }
    let digest: [u8; 32] = hasher.finalize().into();
    if digest != header.checksum {
        return Err(format!(
            "damaged: the entries hash to {}, the header says {}",
            format::hex(&digest),
            format::hex(&header.checksum)
        ));
    }
    Ok(())
}

/// The tables found in a folder (`SiloTablePath`, `arena --tb`).
#[derive(Debug, Default)]
pub struct TableSet {
    tables: Vec<Table>,
}

impl TableSet {
    /// Opens every `*.tbl` file in `folder`. A file that is not a good table
    /// is skipped and named in the notes; a folder that cannot be read is
    /// an error.
    pub fn open_folder(folder: &Path) -> Result<(TableSet, Vec<String>), TableError> {
        let entries = std::fs::read_dir(folder).map_err(|source| TableError::Folder {
            path: folder.to_path_buf(),
            source,
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "tbl"))
            .collect();
        paths.sort();
        let mut set = TableSet::default();
        let mut notes = Vec::new();
        for path in paths {
            match Table::open(&path) {
                Ok(t) if set.tables.iter().any(|o| o.config() == t.config()) => {
                    notes.push(format!(
                        "{}: a second table of the {}; ignored",
                        path.display(),
                        t.config()
                    ))
                }
                Ok(t) => set.tables.push(t),
                Err(e) => notes.push(format!("{e}; ignored")),
            }
        }
        Ok((set, notes))
    }

    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// What has been found wrong with the tables since they were opened,
    /// one line per table, in the set's order.
    pub fn problems(&self) -> Vec<String> {
        self.tables
            .iter()
            .filter_map(|t| t.problem().map(str::to_string))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The table covering `pos`, if any.
    pub fn find(&self, pos: &Silo) -> Option<&Table> {
        let config = Config::of(pos).ok()?;
        self.tables.iter().find(|t| t.config() == config)
    }

    /// The value of `pos` for its side to move.
    pub fn value(&self, pos: &Silo) -> Option<Value> {
        self.find(pos)?.value(pos)
    }

    /// The exact answer for `pos`: the optimal line to the end of the game
    /// and the plies to the end, positive when the side to move wins,
    /// negative when it loses, 0 for a draw. `None` when no table covers
    /// the position or the game is over.
    pub fn probe(&self, pos: &Silo) -> Option<(Vec<Move>, i32)> {
        let table = self.find(pos)?;
        let value = table.value(pos)?;
        let line = table.line(pos);
        if line.is_empty() {
            return None;
        }
        Some((line, value.signed_plies()))
    }

    /// `probe` of a position of any game, moves as text: `None` for a
    /// position that is not Silo's.
    pub fn probe_any(&self, pos: &dyn std::any::Any) -> Option<(Vec<String>, i32)> {
        let (line, plies) = self.probe(pos.downcast_ref::<Silo>()?)?;
        Some((line.iter().map(|m| m.to_string()).collect(), plies))
    }
}

/// A value as a person reads it: "Red to move wins in 37 plies".
pub fn describe(pos: &Silo, value: Value) -> String {
    let side = match pos.side_to_move() {
        Side::P1 => "Red",
        Side::P2 => "Blue",
    };
    match value {
        Value::Win(0) => format!("{side} to move has won"),
        Value::Loss(0) => format!("{side} to move has lost"),
        Value::Win(n) => format!("{side} to move wins in {n} {}", plies(n)),
        Value::Loss(n) => format!("{side} to move loses in {n} {}", plies(n)),
        Value::Draw => format!("{side} to move: draw (neither side can force a win)"),
    }
}

fn plies(n: u16) -> &'static str {
    if n == 1 {
        "ply"
    } else {
        "plies"
    }
}
