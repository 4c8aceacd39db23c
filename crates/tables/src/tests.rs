//! Tables of the small configurations, built here: the index scheme against
//! its definition, the builder against the existing single-threaded solver
//! entry by entry, the verifier on good and corrupted files, and probing.

use std::path::PathBuf;

use super::blocks;
use super::build::build;
use super::format::{
    self, colex_rank, colex_unrank, composition_rank, height_code, Config, Header, Row, Storage,
    HEADER_LEN,
};
use super::probe::{describe, Table, TableSet};
use super::verify::{verify, VerifyError};
use stackfish_games::silo::solve::{self, Value};
use stackfish_games::silo::{Silo, SiloVariant};
use stackfish_games::{Game, Side};

/// 1 x 4, two checkers a stack: 4 + 4 checkers, 11,550 entries.
pub const SMALL: Config = Config {
    squares: 4,
    per_side: 4,
};
/// 1 x 6, two checkers a stack: 5,717,712 entries.
pub const MEDIUM: Config = Config {
    squares: 6,
    per_side: 6,
};

/// A fresh path for this test, in a folder `name` of the build's
/// `target/tmp` (the test binary is `target/<profile>/deps/...`), emptied
/// first: a rerun reuses the folders of the run before instead of adding
/// to them, and nothing is left in the system's temporary folder.
fn temp_path(name: &str) -> PathBuf {
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("tmp")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = target.join(format!("stackfish-tables-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir.join(format::file_name(if name.contains("medium") {
        MEDIUM
    } else {
        SMALL
    }))
}

/// Entries per block in the tests' files: a small table in many blocks,
/// the last one shorter.
const TEST_BLOCK: u32 = 1000;

/// The table of `config` written in the current format (zstd blocks).
fn built_file(config: Config, name: &str) -> PathBuf {
    let path = temp_path(name);
    let built = build(config, &|_, _| {}).expect("builds");
    built.write_blocks(&path, TEST_BLOCK).expect("writes");
    path
}

/// The table of `config` in format version 1 (uncompressed), as bytes.
fn plain_file(config: Config, name: &str) -> Vec<u8> {
    let path = temp_path(name);
    let built = build(config, &|_, _| {}).expect("builds");
    built.write_plain(&path).expect("writes");
    std::fs::read(&path).expect("reads")
}

/// A version-1 file's entries in a version-2 file.
fn compressed(plain: &[u8], name: &str) -> Vec<u8> {
    let header = Header::parse(plain, plain.len() as u64).expect("a good header");
    let path = temp_path(name);
    blocks::write(&path, &header, TEST_BLOCK, &|range, out| {
        out.extend_from_slice(
            &plain[HEADER_LEN + range.start as usize..HEADER_LEN + range.end as usize],
        )
    })
    .expect("writes");
    std::fs::read(&path).expect("reads")
}

fn start(fen: &str) -> Silo {
    Silo::from_fen(&SiloVariant::STANDARD, fen).expect("good position string")
}

/// `file` with the header's counts and checksum made to fit its data, so
/// that only the re-derivation of the entries can find what was changed.
fn with_checksum(mut file: Vec<u8>) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut counts = [0u64; 3];
    for &b in &file[HEADER_LEN..] {
        counts[match format::decode(b) {
            Value::Win(_) => 0,
            Value::Loss(_) => 1,
            Value::Draw => 2,
        }] += 1;
    }
    for (k, c) in counts.iter().enumerate() {
        file[24 + 8 * k..32 + 8 * k].copy_from_slice(&c.to_le_bytes());
    }
    let digest: [u8; 32] = Sha256::digest(&file[HEADER_LEN..]).into();
    file[64..96].copy_from_slice(&digest);
    file
}

#[test]
fn colex_rank_and_unrank_are_inverse_and_ordered() {
    // Strings with 3 ones among 7 bits, in increasing order, rank 0, 1, ...
    let all: Vec<u64> = (0u64..128).filter(|x| x.count_ones() == 3).collect();
    for (rank, &x) in all.iter().enumerate() {
        assert_eq!(colex_rank(x), rank as u64, "{x:b}");
        assert_eq!(colex_unrank(rank as u64, 3), x);
    }
}

#[test]
fn composition_rank_is_the_rank_of_the_height_code() {
    for config in [SMALL, MEDIUM] {
        for c in 0..config.compositions() {
            let row = Row::at(c * config.patterns(), config);
            let heights = &row.heights[..config.squares as usize];
            assert_eq!(composition_rank(heights), colex_rank(height_code(heights)));
            assert_eq!(composition_rank(heights), c);
        }
    }
}

#[test]
fn the_worked_example_of_protocol_md() {
    let pos = start("11/22/11/22 1");
    assert_eq!(pos.colour_bits(), 0b1100_1100);
    assert_eq!(colex_rank(0b1100_1100), 60);
    assert_eq!(height_code(pos.heights()), 0b110_1101_1011);
    assert_eq!(colex_rank(0b110_1101_1011), 96);
    assert_eq!(format::index_of(&pos, SMALL), 6780);
    // Blue to move is looked up as the mirror image: the same arrangement
    // seen from the other side is the start again.
    assert_eq!(format::index_of(&start("11/22/11/22 2"), SMALL), 6780);
}

#[test]
fn every_entry_round_trips_through_its_position_on_both_sides() {
    let config = SMALL;
    assert_eq!(config.entries(), 70 * 165);
    for i in 0..config.entries() {
        let row = Row::at(i, config);
        for side in Side::BOTH {
            let pos = row.position(config, side);
            assert_eq!(format::index_of(&pos, config), i, "{}", pos.fen());
        }
    }
}

#[test]
fn the_entry_code_keeps_value_and_distance() {
    for v in [
        Value::Draw,
        Value::Win(0),
        Value::Loss(0),
        Value::Win(1),
        Value::Loss(2),
        Value::Win(253),
        Value::Loss(252),
    ] {
        assert_eq!(format::decode(format::encode(v).expect("encodable")), v);
    }
    // Wrong parity or too long: not representable.
    for v in [
        Value::Win(2),
        Value::Loss(1),
        Value::Win(255),
        Value::Loss(254),
    ] {
        assert_eq!(format::encode(v), None, "{v:?}");
    }
}

/// Every entry against the existing full-space solver (one thread, its own
/// index scheme and sweep).
fn builder_agrees_with_the_existing_solver(config: Config, fen: &str) {
    let built = build(config, &|_, _| {}).expect("builds");
    let root = start(fen);
    let old = solve::solve_full(&root).expect("the old solver applies");
    let (wins, losses, draws) = old.table.census();
    assert_eq!(
        (built.header.wins, built.header.losses, built.header.draws),
        (wins, losses, draws)
    );
    for i in 0..config.entries() {
        let pos = Row::at(i, config).position(config, Side::P1);
        let want = old.table.value(&pos).expect("covered");
        assert_eq!(format::decode(built.entry(i)), want, "{}", pos.fen());
    }
    let longest = (0..config.entries())
        .filter_map(|i| format::decode(built.entry(i)).plies())
        .max();
    assert_eq!(Some(built.header.longest), longest);
}

#[test]
fn builder_agrees_with_the_existing_solver_on_1x4() {
    builder_agrees_with_the_existing_solver(SMALL, "11/22/11/22 1");
}

#[test]
fn builder_agrees_with_the_existing_solver_on_1x6_stacks_of_2() {
    builder_agrees_with_the_existing_solver(MEDIUM, "11/22/11/22/11/22 1");
}

#[test]
fn the_file_verifies_and_its_header_reads_back() {
    let path = built_file(SMALL, "small-verify");
    let file = std::fs::read(&path).expect("reads");
    let header = Header::parse(&file, file.len() as u64).expect("good header");
    assert_eq!(header.config, SMALL);
    assert_eq!(header.wins + header.losses + header.draws, SMALL.entries());
    let layout = blocks::Layout::of(&header).expect("zstd blocks");
    assert_eq!((layout.per_block, layout.blocks), (1000, 12));
    assert!(file.len() < HEADER_LEN + SMALL.entries() as usize);
    assert_eq!(verify(&file, &|_, _| {}), Ok(2 * SMALL.entries()));
    let text = super::verify_command(&path, &|_, _| {}).expect("verifies");
    assert!(text.ends_with(&format!("verified: {} positions\n", 2 * SMALL.entries())));
    // Format version 1, the entries as they are, still verifies, with the
    // same checksum of the entries.
    let plain = plain_file(SMALL, "small-verify-plain");
    assert_eq!(plain.len(), HEADER_LEN + SMALL.entries() as usize);
    let plain_header = Header::parse(&plain, plain.len() as u64).expect("good header");
    assert_eq!(plain_header.storage, Storage::Plain);
    assert_eq!(plain_header.checksum, header.checksum);
    assert_eq!(verify(&plain, &|_, _| {}), Ok(2 * SMALL.entries()));
}

#[test]
fn both_formats_probe_every_entry_as_built() {
    let built = build(SMALL, &|_, _| {}).expect("builds");
    let packed = temp_path("small-both");
    built.write_blocks(&packed, TEST_BLOCK).expect("writes");
    let plain = temp_path("small-both-plain");
    built.write_plain(&plain).expect("writes");
    let tables = [&packed, &plain].map(|p| Table::open(p).expect("opens"));
    // Entries in an order that jumps between blocks, more than the cache
    // holds, so that blocks are evicted and read again.
    let n = SMALL.entries();
    for i in (0..n).map(|i| i * 7919 % n).chain(0..n) {
        let want = format::decode(built.entry(i));
        for side in Side::BOTH {
            let pos = Row::at(i, SMALL).position(SMALL, side);
            for table in &tables {
                assert_eq!(table.value(&pos), Some(want), "{}", pos.fen());
            }
        }
    }
}

/// The first entry whose stored value satisfies `pick`.
fn first_entry(file: &[u8], pick: impl Fn(Value) -> bool) -> usize {
    (0..file.len() - HEADER_LEN)
        .find(|&i| pick(format::decode(file[HEADER_LEN + i])))
        .expect("such an entry exists")
}

#[test]
fn a_changed_distance_is_caught_with_its_position() {
    let file = plain_file(SMALL, "small-distance");
    let i = first_entry(&file, |v| matches!(v, Value::Win(d) if d >= 3));
    let mut bad = file.clone();
    bad[HEADER_LEN + i] += 2; // win in d -> win in d + 2
    let bad = with_checksum(bad);
    match verify(&bad, &|_, _| {}) {
        Err(VerifyError::Entry {
            index, fen, stored, ..
        }) => {
            // The changed entry itself, or an earlier one whose best move
            // leads to it.
            assert!(index as usize <= i, "{index} > {i}");
            assert_eq!(stored, format::decode(bad[HEADER_LEN + index as usize]));
            let row = Row::at(index, SMALL);
            let sides = [Side::P1, Side::P2].map(|s| row.position(SMALL, s).fen());
            assert!(sides.contains(&fen), "{fen}");
        }
        other => panic!("expected a bad entry, got {other:?}"),
    }
    // The same entries compressed: the same verdict.
    let packed = compressed(&bad, "small-distance-z");
    assert_eq!(verify(&packed, &|_, _| {}), verify(&bad, &|_, _| {}));
}

#[test]
fn a_changed_value_is_caught_and_a_changed_byte_fails_the_checksum() {
    let file = plain_file(SMALL, "small-value");
    let i = first_entry(&file, |v| matches!(v, Value::Loss(d) if d >= 2));
    let mut bad = file.clone();
    bad[HEADER_LEN + i] += 1; // loss in d -> win in d + 1
    let err = verify(&with_checksum(bad.clone()), &|_, _| {}).expect_err("caught");
    assert!(matches!(err, VerifyError::Entry { .. }), "{err}");
    let packed = compressed(&with_checksum(bad.clone()), "small-value-z");
    assert_eq!(verify(&packed, &|_, _| {}), Err(err));
    // Without the checksum fixed, the checksum catches it first.
    let err = verify(&bad, &|_, _| {}).expect_err("caught");
    assert!(matches!(err, VerifyError::Checksum { .. }), "{err}");
    // A bad checksum with good data.
    let mut bad = file.clone();
    bad[70] ^= 0x10;
    let err = verify(&bad, &|_, _| {}).expect_err("caught");
    assert!(err.to_string().starts_with("checksum mismatch"), "{err}");
    // Counts in the header that do not match the data.
    let mut bad = file.clone();
    bad[24] += 1;
    bad[32] -= 1;
    let err = verify(&bad, &|_, _| {}).expect_err("caught");
    assert!(matches!(err, VerifyError::Statistics(_)), "{err}");
}

#[test]
fn a_changed_finished_position_is_caught() {
    let file = plain_file(SMALL, "small-finished");
    let i = first_entry(&file, |v| v == Value::Loss(0));
    let mut bad = file.clone();
    bad[HEADER_LEN + i] = format::encode(Value::Loss(2)).expect("encodable");
    let bad = compressed(&with_checksum(bad), "small-finished-z");
    match verify(&bad, &|_, _| {}) {
        Err(VerifyError::Entry {
            index,
            stored,
            derived,
            ..
        }) if index as usize == i => {
            assert_eq!((stored, derived), (Value::Loss(2), Value::Loss(0)));
        }
        other => panic!("expected entry {i}, got {other:?}"),
    }
}

/// `file` (version 2) with the stored data's checksum made to fit, so that
/// only decompression and the entries' checksum can find what was changed.
fn with_stored_checksum(mut file: Vec<u8>) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let digest: [u8; 32] = Sha256::digest(&file[HEADER_LEN..]).into();
    file[96..128].copy_from_slice(&digest);
    file
}

#[test]
fn a_changed_byte_in_a_block_or_in_the_block_index_is_caught() {
    let path = built_file(SMALL, "small-blocks");
    let file = std::fs::read(&path).expect("reads");
    let header = Header::parse(&file, file.len() as u64).expect("good header");
    let layout = blocks::Layout::of(&header).expect("zstd blocks");
    let first_block = HEADER_LEN + layout.index_len() as usize;
    // A byte in the middle of the blocks; the low byte of block 5's offset.
    for at in [(first_block + file.len()) / 2, HEADER_LEN + 8 * 5] {
        let mut bad = file.clone();
        bad[at] ^= 0x04;
        let err = verify(&bad, &|_, _| {}).expect_err("caught");
        assert!(
            matches!(
                err,
                VerifyError::Checksum {
                    of: "stored data",
                    ..
                }
            ),
            "{err}"
        );
        let bad = with_stored_checksum(bad);
        let err = verify(&bad, &|_, _| {}).expect_err("caught");
        match err {
            VerifyError::Format(e) => assert!(e.contains("block"), "{e}"),
            VerifyError::Checksum { of, .. } => assert_eq!(of, "entries"),
            other => panic!("byte {at}: {other}"),
        }
    }
    // A prober does not answer from a damaged block (its zstd checksum
    // fails) and still answers from the others.
    let mut bad = file.clone();
    let block_3 = u64::from_le_bytes(
        file[HEADER_LEN + 24..HEADER_LEN + 32]
            .try_into()
            .expect("8 bytes"),
    );
    bad[block_3 as usize + 20] ^= 0x04;
    std::fs::write(&path, &bad).expect("writes");
    let table = Table::open(&path).expect("the header and index are good");
    let in_block = |k: u64| Row::at(k * TEST_BLOCK as u64, SMALL).position(SMALL, Side::P1);
    assert_eq!(table.value(&in_block(3)), None);
    assert!(table.value(&in_block(4)).is_some());
}

#[test]
fn broken_files_are_rejected_with_a_reason() {
    let file = std::fs::read(built_file(SMALL, "small-broken")).expect("reads");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (file[..100].to_vec(), "shorter than"),
        (file[..file.len() - 1].to_vec(), "file is"),
        (
            {
                let mut b = file.clone();
                b[0] = b'X';
                b
            },
            "magic",
        ),
        (
            {
                let mut b = file.clone();
                b[8] = 9;
                b
            },
            "version",
        ),
        (
            {
                let mut b = file.clone();
                b[10] = 5;
                b
            },
            "configuration",
        ),
        (
            {
                let mut b = file.clone();
                b[14] = 0;
                b
            },
            "compression",
        ),
        (
            {
                let mut b = file.clone();
                b[50] = 1;
                b
            },
            "header byte 50",
        ),
        (
            {
                let mut b = file.clone();
                b[HEADER_LEN] ^= 0x01;
                with_stored_checksum(b)
            },
            "block index",
        ),
    ];
    for (bytes, want) in cases {
        let err = verify(&bytes, &|_, _| {}).expect_err(want);
        assert!(err.to_string().contains(want), "{err} should say {want}");
    }
}

#[test]
fn probing_answers_values_best_moves_and_the_whole_line() {
    let path = built_file(SMALL, "small-probe");
    let table = Table::open(&path).expect("opens");
    let root = start("11/22/11/22 1");
    let old = solve::solve_full(&root).expect("solves");
    assert_eq!(table.value(&root), Some(old.value));
    let line = table.line(&root);
    assert_eq!(Some(line.len() as u16), old.value.plies());
    // The line is legal and ends the game as the value says.
    let mut pos = root;
    for &mv in &line {
        let mut moves = Vec::new();
        pos.generate_moves(&mut moves);
        assert!(moves.contains(&mv));
        pos.play(mv);
    }
    assert!(pos.outcome().is_over());
    // Another configuration is not covered.
    assert_eq!(table.value(&start("111/222/111/222/111/222 1")), None);
    let folder = path.parent().expect("a folder").to_path_buf();
    std::fs::write(folder.join("junk.tbl"), [b'x'; 200]).expect("writes");
    let (set, notes) = TableSet::open_folder(&folder).expect("reads the folder");
    assert_eq!(set.tables().len(), 1);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("junk.tbl") && notes[0].contains("magic"),
        "{notes:?}"
    );
    assert!(TableSet::open_folder(&folder.join("missing")).is_err());
}

#[test]
fn a_value_reads_as_the_explorer_shows_it() {
    // The browser's explorer (web::explorer, checked against the old
    // solver in tests/web_api.rs) shows values in these words.
    let root = start("11/22/11/22 1");
    assert_eq!(
        describe(&root, Value::Win(37)),
        "Red to move wins in 37 plies"
    );
    assert_eq!(describe(&root, Value::Win(1)), "Red to move wins in 1 ply");
    let mut moves = Vec::new();
    root.generate_moves(&mut moves);
    let mut child = root;
    child.play(moves[0]);
    assert_eq!(
        describe(&child, Value::Loss(30)),
        "Blue to move loses in 30 plies"
    );
}

#[test]
fn a_table_truncated_or_rewritten_while_open_is_refused_not_a_crash() {
    let n = SMALL.entries();
    let first = Row::at(0, SMALL).position(SMALL, Side::P1);
    let last = Row::at(n - 1, SMALL).position(SMALL, Side::P1);
    for plain in [false, true] {
        let path = temp_path(if plain {
            "small-cut-plain"
        } else {
            "small-cut"
        });
        let built = build(SMALL, &|_, _| {}).expect("builds");
        if plain {
            built.write_plain(&path).expect("writes");
        } else {
            built.write_blocks(&path, TEST_BLOCK).expect("writes");
        }
        let table = Table::open(&path).expect("opens");
        assert_eq!(table.problem(), None);
        let len = std::fs::metadata(&path).expect("exists").len();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opens for writing");
        // Under a memory map, reading the last entry now faults (SIGBUS).
        file.set_len(len / 2).expect("truncates");
        assert_eq!(table.value(&last), None, "plain {plain}");
        let problem = table.problem().expect("the table is refused");
        assert!(
            problem.contains("changed on disk") && problem.contains(&format!("{len} bytes then")),
            "{problem}"
        );
        // Refused for good, even where the file is still long enough.
        file.set_len(len).expect("grows back");
        assert_eq!(table.value(&first), None);
    }
}

#[test]
fn a_plain_table_with_a_damaged_entry_under_a_good_header_is_refused() {
    let file = plain_file(SMALL, "small-damaged-plain");
    let i = first_entry(&file, |v| v != Value::Win(127));
    let mut bad = file.clone();
    // An entry made a win in 127 plies: a good header, a wrong entry.
    bad[HEADER_LEN + i] = format::encode(Value::Win(127)).expect("encodes");
    let path = temp_path("small-damaged-plain-2");
    std::fs::write(&path, &bad).expect("writes");
    let err = Table::open(&path).expect_err("refused");
    assert!(err.0.contains("damaged: the entries hash to"), "{err}");
    let (set, notes) = TableSet::open_folder(path.parent().expect("folder")).expect("reads");
    assert!(set.is_empty());
    assert!(
        notes[0].contains("damaged") && notes[0].ends_with("ignored"),
        "{notes:?}"
    );
}

#[test]
fn a_block_without_its_checksum_is_refused() {
    let path = built_file(SMALL, "small-no-checksum");
    let mut file = std::fs::read(&path).expect("reads");
    let block_2 = u64::from_le_bytes(
        file[HEADER_LEN + 16..HEADER_LEN + 24]
            .try_into()
            .expect("8 bytes"),
    ) as usize;
    // Clearing the descriptor's checksum flag leaves a frame zstd would
    // decompress unchecked.
    file[block_2 + 4] &= !0x04;
    std::fs::write(&path, &file).expect("writes");
    let table = Table::open(&path).expect("the header and index are good");
    let in_block = |k: u64| Row::at(k * TEST_BLOCK as u64, SMALL).position(SMALL, Side::P1);
    assert_eq!(table.value(&in_block(2)), None);
    let problem = table.problem().expect("refused");
    assert!(
        problem.contains("block 2 is not a zstd frame with a content checksum"),
        "{problem}"
    );
}

/// Found by the fuzz target `silo_table`: a 192-byte file whose header
/// (the largest configuration, one entry per block) claims a block index
/// of 543,878,040,926,263,688 bytes had that much allocated before its
/// length was checked: the process aborted. It is refused, saying why.
#[test]
fn fuzz_silo_table_block_index_larger_than_the_file() {
    let config = Config {
        squares: 16,
        per_side: 12,
    };
    let header = Header {
        config,
        entries: config.entries(),
        wins: config.entries(),
        losses: 0,
        draws: 0,
        longest: 0,
        checksum: [0; 32],
        storage: Storage::Blocks {
            per_block: 1,
            data_len: 64,
            stored: [0; 32],
        },
    };
    let mut file = header.to_bytes().to_vec();
    file.extend([0; 64]);
    let path = temp_path("huge-index");
    std::fs::write(&path, &file).expect("writes");
    let err = Table::open(&path).expect_err("refused");
    assert!(
        err.0.contains("block index") && err.0.contains("the file has 192"),
        "{err}"
    );
}
