//! The Abstract Play webhook as the bot's server reads it: the signature
//! check over the raw body, then the notification and its history. The
//! input's first line gives the signature headers: empty, the body signed
//! as AP signs it (a fresh timestamp, a good nonce); `<timestamp> <nonce>`,
//! signed with those; `<timestamp> <nonce> <signature>`, sent as they are
//! (`-`: the header is missing). The rest is the body. A move the history
//! allows must then be answered with a move AP's history accepts after it.
#![no_main]

use std::sync::{Arc, OnceLock};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use libfuzzer_sys::fuzz_target;
use ring::signature::{Ed25519KeyPair, KeyPair};
use stackfish_apbot::games::replay;
use stackfish_apbot::games::{focus_from_ap, focus_to_ap, mixtour_from_ap, mixtour_to_ap};
use stackfish_apbot::webhook::Notification;
use stackfish_apbot::{Choice, PlayError, PublicKey, Replayed, Think};
use stackfish_games::{find_legal, Game, Networks};
use stackfish_search::Shared;

/// The clock of the check (Unix seconds), fixed so that a run repeats.
const NOW: u64 = 1_780_000_000;
const GOOD_NONCE: &str = "0123456789abcdef0123456789abcdef";

fuzz_target!(|data: &[u8]| {
    let (head, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[][..], data),
    };
    let Ok(head) = std::str::from_utf8(head) else {
        return;
    };
    let pair = Ed25519KeyPair::from_seed_unchecked(&[7; 32]).expect("a key from a seed");
    let key = PublicKey(pair.public_key().as_ref().try_into().expect("32 bytes"));
    let sign = |ts: &str, nonce: &str| {
        let mut message = format!("{ts}.{nonce}.").into_bytes();
        message.extend_from_slice(body);
        BASE64.encode(pair.sign(&message))
    };
    let given = |t: &str| (t != "-").then(|| t.to_string());
    let words: Vec<&str> = head.split(' ').collect();
    let (ts, nonce, signature) = match words[..] {
        [""] => {
            let ts = NOW.to_string();
            let sig = sign(&ts, GOOD_NONCE);
            (Some(ts), Some(GOOD_NONCE.to_string()), Some(sig))
        }
        [ts, nonce] => (given(ts), given(nonce), Some(sign(ts, nonce))),
        [ts, nonce, sig] => (given(ts), given(nonce), given(sig)),
        _ => return,
    };
    let verified = key.verify(
        ts.as_deref(),
        nonce.as_deref(),
        signature.as_deref(),
        body,
        NOW,
    );
    if verified.is_err() {
        return;
    }
    let Ok(note) = Notification::read(body) else {
        return;
    };
    for text in note.flat_moves() {
        // Whatever AP's move strings hold, the notation's readers answer.
        let _ = (focus_from_ap(&text), focus_to_ap(&text));
    }
    match note.verb.as_str() {
        "challenge" => {
            let _ = note.game();
        }
        "move" => {
            let Ok((key, replayed)) = note.check_move() else {
                return;
            };
            assert_eq!(key.plies, note.flat_moves().len());
            every_legal_move_is_written_and_read_back(&replayed);
            answer_is_accepted(&note, &replayed);
        }
        _ => {}
    }
});

/// Each of our moves in AP's notation and back is the same move.
fn every_legal_move_is_written_and_read_back(replayed: &Replayed) {
    match replayed {
        Replayed::Mixtour(pos) => {
            let mut moves = Vec::new();
            pos.generate_moves(&mut moves);
            for mv in moves {
                let ours = mv.to_string();
                let _ = mixtour_from_ap(pos, &ours);
                if pos.outcome().is_over() {
                    continue;
                }
                let ap = mixtour_to_ap(pos, &ours).unwrap_or_else(|e| panic!("{ours}: {e}"));
                let back = mixtour_from_ap(pos, &ap).unwrap_or_else(|e| panic!("{ap}: {e}"));
                assert_eq!(find_legal(pos, &back), Ok(mv), "{ours} -> {ap} -> {back}");
            }
        }
        Replayed::Focus(pos) => {
            let mut moves = Vec::new();
            pos.generate_moves(&mut moves);
            for mv in moves {
                let ours = mv.to_string();
                let ap = focus_to_ap(&ours).unwrap_or_else(|e| panic!("{ours}: {e}"));
                let back = focus_from_ap(&ap).unwrap_or_else(|e| panic!("{ap}: {e}"));
                assert_eq!(find_legal(pos, &back), Ok(mv), "{ours} -> {ap} -> {back}");
            }
        }
    }
}

/// The bot's answer, in AP's notation, replays after AP's history.
fn answer_is_accepted(note: &Notification, replayed: &Replayed) {
    let think = Think {
        // Depth bounds the search; the time is never reached.
        move_ms: 60_000,
        depth: Some(1),
    };
    // One small table for every run, as each of the bot's search threads
    // keeps one, armed before each search.
    static TABLE: OnceLock<Arc<Shared>> = OnceLock::new();
    let table = TABLE.get_or_init(|| Arc::new(Shared::new(1)));
    table.arm();
    let Ok(Choice::Move { text, .. }) = replayed.choose(&think, &Networks::default(), table) else {
        return;
    };
    let mut moves = note.flat_moves();
    moves.push(text.clone());
    let game = note.game().expect("the game was read before");
    match replay(game, &moves) {
        Ok(_) | Err(PlayError::Over(_)) => {}
        Err(e) => panic!("the answer {text} is refused: {e}"),
    }
}
