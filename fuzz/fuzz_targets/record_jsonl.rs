//! The JSONL game records as the arena (`parse_jsonl`) and the tools
//! (`records`) read them: never a panic; a record read writes back as JSON
//! that reads as the same record, and as PGN whose tag section is its
//! thirteen tags, one line each, whatever the fields hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stackfish_record::{move_comment, parse_jsonl, records, GameRecord};

/// The tags `GameRecord::pgn` writes.
const PGN_TAGS: usize = 13;

fn check(record: &GameRecord) {
    let json = serde_json::to_string(record).expect("a record writes as JSON");
    let again =
        GameRecord::from_json(&json).unwrap_or_else(|e| panic!("{json} does not read: {e}"));
    assert_eq!(&again, record, "{json} reads as another record");
    let _ = record.game_result();
    for m in &record.moves {
        let _ = move_comment(m);
    }
    let pgn = record.pgn();
    let tags: Vec<&str> = pgn.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(tags.len(), PGN_TAGS, "the tag section of {pgn:?}");
    for tag in tags {
        assert!(
            tag.starts_with('[') && tag.ends_with("\"]"),
            "a tag line {tag:?} in {pgn:?}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(all) = parse_jsonl(text, "fuzz.jsonl") {
        all.iter().for_each(check);
    }
    for (_, record) in records(text) {
        if let Ok(record) = record {
            check(&record);
        }
    }
});
