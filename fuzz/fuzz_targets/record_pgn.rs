//! Record files as `stackfish analyse` reads them (`RecordReader`, then
//! `parse_pgn` for a PGN block): never a panic, whatever the bytes; a PGN
//! game read writes back as annotated PGN, its notes kept, that reads as
//! the same moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stackfish_games::Side;
use stackfish_record::{parse_pgn, RecordKind, RecordReader};

fuzz_target!(|data: &[u8]| {
    for item in RecordReader::new(data) {
        let Ok(game) = item.parse() else { continue };
        if item.kind != RecordKind::Pgn {
            continue;
        }
        let pgn = game
            .record
            .pgn_annotated("fuzz", &[], &game.notes, Side::P1);
        let back = parse_pgn(&pgn).unwrap_or_else(|e| panic!("{pgn:?} does not read: {e}"));
        let moves = |g: &stackfish_record::PgnGame| -> Vec<String> {
            g.record.moves.iter().map(|m| m.mv.clone()).collect()
        };
        assert_eq!(moves(&back), moves(&game), "{pgn:?}");
    }
});
