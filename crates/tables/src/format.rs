//! The Silo table file: its header, the one-byte entry code and the index
//! scheme, written plainly from the specification in protocol.md so that the
//! verifier and the probing code rest on it and not on the builder's tables.

use std::fmt;

pub use crate::error::{ConfigError, FormatError};
use stackfish_games::silo::solve::Value;
use stackfish_games::silo::{Silo, MAX_SQUARES};
use stackfish_games::{Game, Side};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"SILOTBL\n";
/// The format this code writes: the entries in zstd blocks.
pub const VERSION: u16 = 2;
/// The first format, the entries as they are; still read.
pub const VERSION_PLAIN: u16 = 1;
/// Bytes before the data.
pub const HEADER_LEN: usize = 128;
/// Index scheme 1: composition rank times patterns plus pattern rank.
pub const INDEX_SCHEME: u8 = 1;
/// Entry code 1: one byte, distance + 2 with the value in its parity.
pub const ENTRY_CODE: u8 = 1;
/// Version 1's data: the entries as they are, one byte each.
pub const UNCOMPRESSED: u8 = 0;
/// Version 2's data: a block index, then the blocks as zstd frames.
pub const ZSTD_BLOCKS: u8 = 1;
/// The file name a configuration's table has in a table folder.
pub fn file_name(config: Config) -> String {
    format!("silo-{}x{}.tbl", config.squares, config.per_side)
}

/// The longest distance the entry code holds (byte 255 = 2 + 253).
pub const MAX_DISTANCE: u16 = 253;
/// The most checkers per player a table indexes: colour strings up to 24
/// bits keep the builder's rank table at 64 MiB.
pub const MAX_PER_SIDE: u8 = 12;

/// What a table covers: a row length and the checkers of each player
/// (equal, so that Blue to move is the mirror image of Red to move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub squares: u8,
    pub per_side: u8,
}

impl Config {
    /// The configuration of `pos`, if a table can cover it.
    pub fn of(pos: &Silo) -> Result<Config, ConfigError> {
        let (r, b) = (pos.checkers(Side::P1), pos.checkers(Side::P2));
        if r != b {
            return Err(ConfigError::UnequalCounts { red: r, blue: b });
        }
        let config = Config {
            squares: pos.squares() as u8,
            per_side: r.min(u8::MAX as u32) as u8,
        };
        config.check()?;
        Ok(config)
    }

    /// Whether a table can cover this configuration: a Silo row (even, 2 to
    /// `MAX_SQUARES` squares) and 1 to `MAX_PER_SIDE` checkers each.
    pub fn check(self) -> Result<(), ConfigError> {
        let row = self.squares >= 2
            && self.squares.is_multiple_of(2)
            && self.squares as usize <= MAX_SQUARES;
        if !row || self.per_side == 0 || self.per_side > MAX_PER_SIDE {
            return Err(ConfigError::Unsupported {
                squares: self.squares,
                per_side: self.per_side,
            });
        }
        Ok(())
    }

    pub fn total(self) -> u32 {
        2 * self.per_side as u32
    }

    /// Colour strings: `total` bits with `per_side` ones.
    pub fn patterns(self) -> u64 {
        binomial(self.total(), self.per_side as u32)
    }

    /// Height codes: `total + squares - 1` bits with `total` ones.
    pub fn compositions(self) -> u64 {
        binomial(self.total() + self.squares as u32 - 1, self.total())
    }

    /// Entries in the table: every arrangement with Red to move.
    pub fn entries(self) -> u64 {
        self.patterns() * self.compositions()
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "1 x {} row, {} + {} checkers",
            self.squares, self.per_side, self.per_side
        )
    }
}

/// Pascal's triangle up to 64, built at compile time (C(64, 32) < 2^64).
static BINOMIAL: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
};

/// Binomial coefficient C(n, k) for n <= 64; 0 when k > n.
#[inline]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n as usize][k as usize]
    }
}

/// The colex rank of a bit string among those with as many ones: with the
/// ones at positions p1 < p2 < ... < pk, the sum of C(pi, i).
pub fn colex_rank(bits: u64) -> u64 {
    let mut rank = 0;
    let mut rest = bits;
    let mut i = 1;
    while rest != 0 {
        rank += binomial(rest.trailing_zeros(), i);
        rest &= rest - 1;
        i += 1;
    }
    rank
}

/// The bit string with `ones` ones whose colex rank is `rank`.
pub fn colex_unrank(mut rank: u64, ones: u32) -> u64 {
    let mut bits = 0;
    for i in (1..=ones).rev() {
        // The largest p with C(p, i) <= rank; p >= i - 1 since C(i-1, i) = 0.
        let mut p = i - 1;
        while binomial(p + 1, i) <= rank {
            p += 1;
        }
        rank -= binomial(p, i);
        bits |= 1 << p;
    }
    bits
}

/// The unary code of the heights: per square from a, that many ones and a
/// zero; the last square's zero is left out.
pub fn height_code(heights: &[u8]) -> u64 {
    let mut code = 0;
    let mut at = 0;
    for &h in heights {
        code |= ((1u64 << h) - 1) << at;
        at += h as u32 + 1;
    }
    code
}

/// The heights of a row of `squares` squares from their unary code (the
/// inverse of `height_code`).
pub fn heights_of_code(mut code: u64, squares: usize) -> [u8; MAX_SQUARES] {
    let mut heights = [0; MAX_SQUARES];
    for h in heights.iter_mut().take(squares) {
        let ones = code.trailing_ones();
        *h = ones as u8;
        code = code.checked_shr(ones + 1).unwrap_or(0);
    }
    heights
}

/// The colex rank of `height_code(heights)` in a number of steps that
/// grows with the squares, not the checkers: square j's ones are the
/// (S + 1)-th to (S + h)-th ones of the code (S the checkers below it) at
/// positions S + j onwards, and by the hockey-stick identity their terms
/// C(S + j + m, S + m + 1) add up to C(S + h + j, j) - C(S + j, j).
pub fn composition_rank(heights: &[u8]) -> u64 {
    let mut rank = 0;
    let mut below = 0;
    for (j, &h) in heights.iter().enumerate().skip(1) {
        below += heights[j - 1] as u32;
        let j = j as u32;
        rank += binomial(below + h as u32 + j, j) - binomial(below + j, j);
    }
    rank
}

/// An arrangement with Red to move: colours in reading order (bit i set:
/// checker i is Blue) and the heights from square a.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub colours: u64,
    pub heights: [u8; MAX_SQUARES],
}

impl Row {
    /// The row reversed with the colours swapped: the same arrangement seen
    /// by the other player. Each stack keeps its bottom at the bottom.
    pub fn mirror(&self, config: Config) -> Row {
        let n = config.squares as usize;
        let total = config.total();
        let mut out = Row {
            colours: 0,
            heights: [0; MAX_SQUARES],
        };
        let (mut start, mut end) = (0, total);
        for sq in 0..n {
            let h = self.heights[sq] as u32;
            let stack = (!self.colours >> start) & ((1u64 << h) - 1);
            end -= h;
            out.colours |= stack << end;
            out.heights[n - 1 - sq] = h as u8;
            start += h;
        }
        out
    }

    /// The entry of this arrangement (index scheme 1).
    pub fn index(&self, config: Config) -> u64 {
        composition_rank(&self.heights[..config.squares as usize]) * config.patterns()
            + colex_rank(self.colours)
    }

    /// The arrangement of entry `index` (the inverse of `index`).
    pub fn at(index: u64, config: Config) -> Row {
        let patterns = config.patterns();
        let colours = colex_unrank(index % patterns, config.per_side as u32);
        let code = colex_unrank(index / patterns, config.total());
        let heights = heights_of_code(code, config.squares as usize);
        Row { colours, heights }
    }

    /// The position with `side` to move: Red's is this arrangement, Blue's
    /// its mirror image (so both have the entry's value).
    pub fn position(&self, config: Config, side: Side) -> Silo {
        let row = match side {
            Side::P1 => *self,
            Side::P2 => self.mirror(config),
        };
        Silo::from_row(
            row.colours as u128,
            &row.heights[..config.squares as usize],
            side,
        )
        .expect("a table's arrangement is a legal position")
    }
}

/// The entry of `pos` in the table of its configuration, which the caller
/// has checked.
pub fn index_of(pos: &Silo, config: Config) -> u64 {
    let mut heights = [0; MAX_SQUARES];
    heights[..pos.squares()].copy_from_slice(pos.heights());
    let row = Row {
        colours: pos.colour_bits() as u64,
        heights,
    };
    match pos.side_to_move() {
        Side::P1 => row.index(config),
        Side::P2 => row.mirror(config).index(config),
    }
}

/// Entry code 1. 0: a draw (neither side can force a win); 1: the side to
/// move has already won; 2 + d: the game ends in d plies with best play, won
/// by the side to move when d is odd, lost when d is even (0: it has lost).
/// A win ends with the winner's move and a move never completes the
/// opponent's run, so every other win has an odd distance and every loss an
/// even one: the parity carries the value.
pub fn encode(value: Value) -> Option<u8> {
    match value {
        Value::Draw => Some(0),
        Value::Win(0) => Some(1),
        Value::Win(d) if d % 2 == 1 && d <= MAX_DISTANCE => Some(2 + d as u8),
        Value::Loss(d) if d % 2 == 0 && d <= MAX_DISTANCE => Some(2 + d as u8),
        _ => None,
    }
}

pub fn decode(byte: u8) -> Value {
    match byte {
        0 => Value::Draw,
        1 => Value::Win(0),
        b if b % 2 == 1 => Value::Win(b as u16 - 2),
        b => Value::Loss(b as u16 - 2),
    }
}

/// The header: 128 bytes, integers little-endian (protocol.md has the
/// byte-by-byte layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub config: Config,
    pub entries: u64,
    /// Entries (Red to move) that are wins, losses and draws for the side to
    /// move; every entry stands for two positions, one per side to move.
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// The longest distance of any entry, in plies.
    pub longest: u16,
    /// SHA-256 of the entries, one byte each in index order (in version 1
    /// the data itself; in version 2 the data decompressed), so a table has
    /// the same checksum however it is stored.
    pub checksum: [u8; 32],
    pub storage: Storage,
}

/// How the entries are stored after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Version 1: the entries as they are.
    Plain,
    /// Version 2: `per_block` entries to a zstd frame, found through a
    /// block index; `data_len` bytes after the header, whose SHA-256 is
    /// `stored` (so a changed byte anywhere in them is caught before
    /// anything is decompressed).
    Blocks {
        per_block: u32,
        data_len: u64,
        stored: [u8; 32],
    },
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

impl Header {
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        let (version, compression, data_len) = match self.storage {
            Storage::Plain => (VERSION_PLAIN, UNCOMPRESSED, self.entries),
            Storage::Blocks {
                per_block,
                data_len,
                stored,
            } => {
                b[52..56].copy_from_slice(&per_block.to_le_bytes());
                b[96..128].copy_from_slice(&stored);
                (VERSION, ZSTD_BLOCKS, data_len)
            }
        };
        b[0..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&version.to_le_bytes());
        b[10] = self.config.squares;
        b[11] = self.config.per_side;
        b[12] = INDEX_SCHEME;
        b[13] = ENTRY_CODE;
        b[14] = compression;
        b[16..24].copy_from_slice(&self.entries.to_le_bytes());
        b[24..32].copy_from_slice(&self.wins.to_le_bytes());
        b[32..40].copy_from_slice(&self.losses.to_le_bytes());
        b[40..48].copy_from_slice(&self.draws.to_le_bytes());
        b[48..50].copy_from_slice(&self.longest.to_le_bytes());
        b[56..64].copy_from_slice(&data_len.to_le_bytes());
        b[64..96].copy_from_slice(&self.checksum);
        b
    }

    /// Reads and checks a header; `file_len` is the whole file's length.
    pub fn parse(bytes: &[u8], file_len: u64) -> Result<Header, FormatError> {
        let bad = |what: String| Err(FormatError(what));
        if bytes.len() < HEADER_LEN {
            return bad(format!(
                "{} bytes: shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            ));
        }
        if bytes[0..8] != MAGIC {
            return bad("not a Silo table (wrong magic bytes)".into());
        }
        let version = u16_at(bytes, 8);
        let compression = match version {
            VERSION_PLAIN => UNCOMPRESSED,
            VERSION => ZSTD_BLOCKS,
            _ => {
                return bad(format!(
                    "format version {version}; this program reads {VERSION_PLAIN} and {VERSION}"
                ))
            }
        };
        let config = Config {
            squares: bytes[10],
            per_side: bytes[11],
        };
        config.check().map_err(|e| FormatError(e.to_string()))?;
        for (at, name, want) in [
            (12, "index scheme", INDEX_SCHEME),
            (13, "entry code", ENTRY_CODE),
            (14, "compression", compression),
        ] {
            if bytes[at] != want {
                return bad(format!("{name} {} unknown (expected {want})", bytes[at]));
            }
        }
        let header = Header {
            config,
            entries: u64_at(bytes, 16),
            wins: u64_at(bytes, 24),
            losses: u64_at(bytes, 32),
            draws: u64_at(bytes, 40),
            longest: u16_at(bytes, 48),
            checksum: bytes[64..96].try_into().expect("32 bytes"),
            storage: Storage::Plain,
        };
        if header.entries != config.entries() {
            return bad(format!(
                "{} entries; the {config} has {}",
                header.entries,
                config.entries()
            ));
        }
        let data_len = u64_at(bytes, 56);
        if compression == UNCOMPRESSED && data_len != header.entries {
            return bad(format!(
                "data length {data_len}, expected {} (one byte per entry)",
                header.entries
            ));
        }
        if Some(file_len) != (HEADER_LEN as u64).checked_add(data_len) {
            return bad(format!(
                "file is {file_len} bytes, the header says {}",
                (HEADER_LEN as u64).saturating_add(data_len)
            ));
        }
        // Bytes the format leaves zero must be zero, so that no changed
        // byte of the header goes unnoticed.
        let mut reserved = vec![15, 50, 51];
        if compression == UNCOMPRESSED {
            reserved.extend((52..56).chain(96..128));
        }
        if let Some(&at) = reserved.iter().find(|&&at| bytes[at] != 0) {
            return bad(format!("header byte {at} is {}, expected 0", bytes[at]));
        }
        let mut header = header;
        if compression == ZSTD_BLOCKS {
            let per_block = u32::from_le_bytes(bytes[52..56].try_into().expect("4 bytes"));
            if per_block == 0 {
                return bad("0 entries per block".into());
            }
            header.storage = Storage::Blocks {
                per_block,
                data_len,
                stored: bytes[96..128].try_into().expect("32 bytes"),
            };
        }
        let counted = header.wins.checked_add(header.losses);
        if counted.and_then(|c| c.checked_add(header.draws)) != Some(header.entries) {
            return bad("wins + losses + draws differ from the entries".into());
        }
        Ok(header)
    }

    /// The statistics over both sides to move, as `stackfish solve` prints
    /// them.
    pub fn statistics(&self) -> String {
        format!(
            "Positions: {} ({} entries x 2 sides to move)\nWins: {}\nLosses: {}\nDraws: {}\nLongest optimal game: {} plies\n",
            self.entries * 2,
            self.entries,
            self.wins * 2,
            self.losses * 2,
            self.draws * 2,
            self.longest
        )
    }
}

/// The SHA-256 of `data`, in hexadecimal.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value of `pos` for its side to move in a table's data.
pub fn value_in(data: &[u8], config: Config, pos: &Silo) -> Value {
    decode(data[index_of(pos, config) as usize])
}

/// Whether `pos` is finished, and how: the rules' verdict as an entry value.
pub fn finished_value(pos: &Silo) -> Option<Value> {
    let result = pos.outcome().result()?;
    Some(if result.winner() == Some(pos.side_to_move()) {
        Value::Win(0)
    } else {
        Value::Loss(0)
    })
}
