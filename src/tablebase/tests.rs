//! Tables of the small configurations, built here: the index scheme against
//! its definition, the builder against the existing single-threaded solver
//! entry by entry, the verifier on good and corrupted files, and probing.

use std::path::PathBuf;

use super::build::build;
use super::format::{
    self, colex_rank, colex_unrank, composition_rank, height_code, Config, Header, Row, HEADER_LEN,
};
use super::probe::{describe, explain, Table, TableSet};
use super::verify::{verify, VerifyError};
use crate::game::silo::solve::{self, Value};
use crate::game::silo::{Silo, SiloVariant};
use crate::game::{Game, Side};

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

/// A fresh path in the temporary folder for this test.
fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stackfish-tb-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir.join(format::file_name(if name.contains("medium") {
        MEDIUM
    } else {
        SMALL
    }))
}

fn built_file(config: Config, name: &str) -> PathBuf {
    let path = temp_path(name);
    let built = build(config, &|_, _| {}).expect("builds");
    built.write(&path).expect("writes");
    path
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
    assert_eq!(file.len(), HEADER_LEN + SMALL.entries() as usize);
    let header = Header::parse(&file, file.len() as u64).expect("good header");
    assert_eq!(header.config, SMALL);
    assert_eq!(header.wins + header.losses + header.draws, SMALL.entries());
    assert_eq!(verify(&file, &|_, _| {}), Ok(2 * SMALL.entries()));
    let text = super::verify_command(&path, &|_, _| {}).expect("verifies");
    assert!(text.ends_with(&format!("verified: {} positions\n", 2 * SMALL.entries())));
}

/// The first entry whose stored value satisfies `pick`.
fn first_entry(file: &[u8], pick: impl Fn(Value) -> bool) -> usize {
    (0..file.len() - HEADER_LEN)
        .find(|&i| pick(format::decode(file[HEADER_LEN + i])))
        .expect("such an entry exists")
}

#[test]
fn a_changed_distance_is_caught_with_its_position() {
    let file = std::fs::read(built_file(SMALL, "small-distance")).expect("reads");
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
}

#[test]
fn a_changed_value_is_caught_and_a_changed_byte_fails_the_checksum() {
    let file = std::fs::read(built_file(SMALL, "small-value")).expect("reads");
    let i = first_entry(&file, |v| matches!(v, Value::Loss(d) if d >= 2));
    let mut bad = file.clone();
    bad[HEADER_LEN + i] += 1; // loss in d -> win in d + 1
    let err = verify(&with_checksum(bad.clone()), &|_, _| {}).expect_err("caught");
    assert!(matches!(err, VerifyError::Entry { .. }), "{err}");
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
    let file = std::fs::read(built_file(SMALL, "small-finished")).expect("reads");
    let i = first_entry(&file, |v| v == Value::Loss(0));
    let mut bad = file.clone();
    bad[HEADER_LEN + i] = format::encode(Value::Loss(2)).expect("encodable");
    match verify(&with_checksum(bad), &|_, _| {}) {
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
                b[14] = 1;
                b
            },
            "compression",
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
fn the_explorer_text_gives_the_value_and_every_move() {
    let path = built_file(SMALL, "small-explain");
    let (set, _) = TableSet::open_folder(path.parent().expect("folder")).expect("opens");
    let root = start("11/22/11/22 1");
    let old = solve::solve_full(&root).expect("solves");
    let shown = explain(&set, &root).expect("covered");
    assert_eq!(shown.value, describe(&root, old.value));
    let mut moves = Vec::new();
    root.generate_moves(&mut moves);
    assert_eq!(shown.moves.len(), moves.len());
    for (mv, (text, after)) in moves.iter().zip(&shown.moves) {
        let mut child = root;
        child.play(*mv);
        assert_eq!(text, &mv.to_string());
        let v = old.table.value(&child).expect("covered");
        assert_eq!(after, &describe(&child, v));
        assert!(after.starts_with("Blue to move"), "{after}");
    }
    assert_eq!(
        describe(&root, Value::Win(37)),
        "Red to move wins in 37 plies"
    );
    assert_eq!(describe(&root, Value::Win(1)), "Red to move wins in 1 ply");
    assert_eq!(explain(&set, &start("111/222/111/222/111/222 1")), None);
}
