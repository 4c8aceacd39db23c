//! Every game's position string, then moves: the input's first byte picks
//! the variant (`variants::variant_names`), its first line is a position
//! string (empty: the start), and each further line is a move: a line of one
//! byte plays the legal move of that number, a longer line is played as
//! text (legal or not). After every step the position must read back from
//! its own string with the same hash, its moves must read back from their
//! texts, and an illegal move must change nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stackfish_games::line::Line;
use stackfish_games::variants::{variant_names, with_variant, VariantVisitor};
use stackfish_games::{find_legal, Game};

/// Lines of moves played from one input at most.
const MAX_STEPS: usize = 64;
/// Positions a Silo proof may explore at each step.
const PROOF_POSITIONS: usize = 64;
/// Every this many legal moves is also checked by `find_legal`.
const LEGAL_CHECK_EVERY: usize = 16;

struct Run<'a> {
    fen: Option<&'a str>,
    steps: Vec<&'a [u8]>,
}

impl VariantVisitor for Run<'_> {
    type Output = ();

    fn visit<G: Game>(self, _name: &'static str, variant: G::Variant) {
        play::<G>(&variant, self.fen, &self.steps);
    }

    /// Both types of a shaped game (Mixtour): the fast one must play its
    /// standard board exactly as the general one does.
    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        _name: &'static str,
        variant: G::Variant,
    ) {
        let general = play::<G>(&variant, self.fen, &self.steps);
        let fast = play::<F>(&variant, self.fen, &self.steps);
        if let Some(fast) = fast {
            assert_eq!(
                Some(&fast),
                general.as_ref(),
                "the fast and the general type differ"
            );
        }
    }
}

/// Plays the steps on `G`; what each step gave (its legal moves, then the
/// move played or the error), `None` when the position string is refused.
fn play<G: Game>(variant: &G::Variant, fen: Option<&str>, steps: &[&[u8]]) -> Option<Vec<String>> {
    let mut line = match fen {
        None => Line::<G>::new(variant.clone()),
        Some(fen) => Line::<G>::from_fen(variant.clone(), fen).ok()?,
    };
    let mut trace = Vec::new();
    check(variant, line.position());
    for step in steps.iter().take(MAX_STEPS) {
        let pos = line.position().clone();
        let mut moves = Vec::new();
        pos.generate_moves(&mut moves);
        trace.push(
            moves
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        );
        let played = match step {
            [n] if !moves.is_empty() => {
                let text = moves[*n as usize % moves.len()].to_string();
                if line.outcome().is_over() {
                    assert!(
                        line.play_text(&text).is_err(),
                        "{text} played after the end"
                    );
                    continue;
                }
                line.play_text(&text)
                    .unwrap_or_else(|e| panic!("legal move {text} refused: {e}"));
                Some(text)
            }
            _ => {
                let Ok(text) = std::str::from_utf8(step) else {
                    continue;
                };
                let before = (pos.fen(), line.moves().len());
                match line.play_text(text) {
                    Ok(mv) => Some(mv.to_string()),
                    Err(e) => {
                        assert!(!e.to_string().contains('\n'), "a two-line error: {e}");
                        assert_eq!(
                            (line.position().fen(), line.moves().len()),
                            before,
                            "the refused move {text:?} changed the game"
                        );
                        trace.push(format!("refused {text:?}"));
                        None
                    }
                }
            }
        };
        let Some(played) = played else {
            continue;
        };
        check(variant, line.position());
        let _ = line.outcome();
        // Now and then the move is taken back and played again.
        if line.moves().len() % 7 == 3 {
            let after = line.position().fen();
            assert!(line.undo(), "a move to take back");
            assert_eq!(line.position().fen(), pos.fen(), "undo of {played}");
            line.play_text(&played)
                .unwrap_or_else(|e| panic!("{played}, taken back, is refused: {e}"));
            assert_eq!(line.position().fen(), after, "{played} played again");
        }
        trace.push(played);
    }
    Some(trace)
}

/// What must hold in every position the rules reach.
fn check<G: Game>(variant: &G::Variant, pos: &G) {
    let fen = pos.fen();
    let again = G::from_fen(variant, &fen)
        .unwrap_or_else(|e| panic!("its own position string {fen:?} is refused: {e}"));
    assert_eq!(again.fen(), fen, "the position string does not read back");
    assert_eq!(
        again.hash(),
        pos.hash(),
        "{fen:?} reads back with another hash"
    );
    let _ = (pos.evaluate(), pos.pretty(), pos.outcome(), pos.null_move());
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    assert_eq!(
        pos.count_moves(),
        moves.len() as u64,
        "count_moves in {fen:?}"
    );
    let over = pos.outcome().is_over();
    for (i, &mv) in moves.iter().enumerate() {
        let text = mv.to_string();
        assert_eq!(pos.parse_move(&text), Ok(mv), "{text} in {fen:?}");
        // find_legal generates every move again: a few of them suffice.
        if !over && i % LEGAL_CHECK_EVERY == 0 {
            assert_eq!(find_legal(pos, &text), Ok(mv), "{text} in {fen:?}");
        }
        assert_ne!(G::move_bits(mv), 0, "{text} packs to 0");
        let _ = pos.is_noisy(mv);
    }
    let _ = pos.prove(PROOF_POSITIONS, &std::sync::atomic::AtomicBool::new(false));
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let names = variant_names();
    let name = names[pick as usize % names.len()];
    let mut lines = rest.split(|&b| b == b'\n');
    let fen = match lines.next().map(std::str::from_utf8) {
        Some(Ok(fen)) if !fen.trim().is_empty() => Some(fen),
        Some(Err(_)) => return,
        _ => None,
    };
    let steps: Vec<&[u8]> = lines.collect();
    with_variant(name, Run { fen, steps }).expect("a name of variant_names");
});
