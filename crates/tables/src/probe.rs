//! Probing table files: each is memory-mapped, so a table costs the
//! process only the pages it reads (shared page cache, not heap). A lookup
//! is one index computation and one byte: in a version-2 file, a byte of a
//! block kept decompressed in a small cache, so that the engine's
//! principal line and the explorer's moves, which come back to the same
//! blocks, decompress each block once.

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memmap2::Mmap;
use zstd::bulk::Decompressor;

use super::blocks::Layout;
use super::format::{self, Config, FormatError, Header, HEADER_LEN};
use crate::TableError;
use stackfish_games::silo::solve::{self, Value};
use stackfish_games::silo::{Move, Silo};
use stackfish_games::{Game, Side};

/// Decompressed blocks a table keeps: 64 of 16 KiB, 1 MiB of heap.
const CACHED_BLOCKS: usize = 64;

/// One table file, mapped.
pub struct Table {
    header: Header,
    path: PathBuf,
    map: Mmap,
    /// Version 2: where the blocks are.
    layout: Option<Layout>,
    cache: Mutex<BlockCache>,
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

impl Table {
    /// Maps `path` and checks its header and length (not the checksum,
    /// which would read the whole file: `stackfish solve --verify` does).
    pub fn open(path: &Path) -> Result<Table, FormatError> {
        let err = |e: std::io::Error| FormatError(format!("{}: {e}", path.display()));
        let file = File::open(path).map_err(err)?;
        // Safety: the map is only read, and a table file is written once and
        // then left alone; if another process truncated it under us, reads
        // past the end would fault, so nobody should (protocol.md says so).
        let map = unsafe { Mmap::map(&file) }.map_err(err)?;
        // Lookups jump about the file: on a cold cache, reading ahead
        // around every fault would read from disk what is never looked at.
        // (Pages already cached are still mapped in 64 KB groups, which
        // shows as file-backed RSS, not heap: about 36 MB for a 127-ply
        // principal line of the standard table.)
        let _ = map.advise(memmap2::Advice::Random);
        let located = |e: FormatError| FormatError(format!("{}: {e}", path.display()));
        let header = Header::parse(&map, map.len() as u64).map_err(located)?;
        let layout = Layout::of(&header);
        if let Some(layout) = layout {
            layout.check_index(&map).map_err(located)?;
        }
        Ok(Table {
            header,
            path: path.to_path_buf(),
            map,
            layout,
            cache: Mutex::default(),
        })
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

    /// The whole file, header included.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Entry `index`, which the caller has checked is in the table; `None`
    /// when its block does not decompress (a damaged file: the position is
    /// then treated as not in the table).
    fn entry(&self, index: u64) -> Option<u8> {
        let Some(layout) = self.layout else {
            return Some(self.map[HEADER_LEN + index as usize]);
        };
        let k = index / layout.per_block;
        let at = (index % layout.per_block) as usize;
        // A panic elsewhere while the lock was held cannot leave the cache
        // inconsistent: every block in it is complete.
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.blocks.iter().position(|(b, _)| *b == k) {
            let found = cache.blocks.remove(i)?;
            let byte = found.1[at];
            cache.blocks.push_front(found);
            return Some(byte);
        }
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
        layout.decompress(&self.map, k, zstd, &mut block).ok()?;
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
