//! AP's Mixtour against a slow generator written from AP's rules text (not
//! from our code), and against the counts AP's own code gives.

use super::*;
use crate::{find_legal, perft, perft::perft_with};
use rand::{Rng, SeedableRng};

/// AP's Mixtour as its rules text states it, with plain vectors: squares
/// `rank * 5 + file` from a1, stacks bottom to top, pieces 1 and 2.
#[derive(Clone, Debug)]
struct Slow {
    board: Vec<Vec<u8>>,
    hands: [u8; 2],
    scores: [u8; 2],
    goal: u8,
    /// 1 or 2.
    mover: u8,
    passes: u8,
}

fn name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 5) as u8) as char, sq / 5 + 1)
}

impl Slow {
    fn start(goal: u8) -> Slow {
        Slow {
            board: vec![Vec::new(); 25],
            hands: [20, 20],
            scores: [0, 0],
            goal,
            mover: 1,
            passes: 0,
        }
    }

    fn over(&self) -> bool {
        self.scores.iter().any(|&s| s >= self.goal) || self.passes >= 2
    }

    /// (text, action): action is None for pass, Some((None, to)) to enter,
    /// Some((Some((from, n)), to)) to move the top n of `from`.
    #[allow(clippy::type_complexity)]
    fn moves(&self) -> Vec<(String, Option<(Option<(usize, usize)>, usize)>)> {
        let mut out = Vec::new();
        // "put one piece from your hand on an empty square"
        if self.hands[self.mover as usize - 1] > 0 {
            for sq in 0..25 {
                if self.board[sq].is_empty() {
                    out.push((name(sq), Some((None, sq))));
                }
            }
        }
        // "along a rank, a file or a diagonal; the distance equals the
        // height of the target; every square between empty; ends on an
        // occupied square"; any stack, any part of it.
        for from in 0..25 {
            let height = self.board[from].len();
            if height == 0 {
                continue;
            }
            for (df, dr) in [
                (1, 0),
                (-1, 0),
                (0, 1),
                (0, -1),
                (1, 1),
                (1, -1),
                (-1, 1),
                (-1, -1),
            ] {
                for dist in 1..=4i32 {
                    let f = (from % 5) as i32 + df * dist;
                    let r = (from / 5) as i32 + dr * dist;
                    if !(0..5).contains(&f) || !(0..5).contains(&r) {
                        break;
                    }
                    let to = (r * 5 + f) as usize;
                    let clear = (1..dist).all(|k| {
                        let sq = ((from / 5) as i32 + dr * k) * 5 + (from % 5) as i32 + df * k;
                        self.board[sq as usize].is_empty()
                    });
                    if clear && self.board[to].len() == dist as usize {
                        for n in 1..=height {
                            let count = if n == 1 { String::new() } else { n.to_string() };
                            let text = format!("{count}{}{}", name(from), name(to));
                            out.push((text, Some((Some((from, n)), to))));
                        }
                    }
                }
            }
        }
        // "pass: only when nothing else is legal"
        if out.is_empty() {
            out.push(("pass".to_string(), None));
        }
        out
    }

    fn play(&mut self, action: Option<(Option<(usize, usize)>, usize)>) {
        match action {
            None => self.passes += 1,
            Some((None, to)) => {
                self.board[to].push(self.mover);
                self.hands[self.mover as usize - 1] -= 1;
                self.passes = 0;
            }
            Some((Some((from, n)), to)) => {
                let at = self.board[from].len() - n;
                let moved = self.board[from].split_off(at);
                self.board[to].extend(moved);
                // "every stack of height >= 5 is removed; the owner of its
                // top piece scores 1; every piece goes back to its owner"
                if self.board[to].len() >= 5 {
                    let tower = std::mem::take(&mut self.board[to]);
                    let top = *tower.last().unwrap();
                    self.scores[top as usize - 1] += 1;
                    for p in tower {
                        self.hands[p as usize - 1] += 1;
                    }
                }
                self.passes = 0;
            }
        }
        self.mover = 3 - self.mover;
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.over() {
            return 0;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|(_, a)| {
                let mut c = self.clone();
                c.play(a);
                c.perft(depth - 1)
            })
            .sum()
    }

    fn texts(&self) -> Vec<String> {
        let mut t: Vec<String> = self.moves().into_iter().map(|(t, _)| t).collect();
        t.sort();
        t
    }
}

fn texts(p: &ApMixtour) -> Vec<String> {
    let mut moves = Vec::new();
    p.generate_moves(&mut moves);
    let mut t: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    t.sort();
    t
}

fn after(moves: &[&str]) -> ApMixtour {
    let mut p = ApMixtour::start(&ap_variant(1));
    for m in moves {
        let mv = find_legal(&p, m).unwrap_or_else(|e| panic!("{e} in {}", p.fen()));
        p.play(mv);
    }
    p
}

#[test]
fn perft_from_the_start_is_aps() {
    // Counts of AP's own code; depth 6 includes 6,432 take-back sequences
    // that the standard rules refuse.
    let start = ApMixtour::start(&ap_variant(1));
    let counts = [25, 600, 14_088, 330_384, 7_883_472, 193_965_600];
    for (i, count) in counts.into_iter().enumerate() {
        assert_eq!(perft(&start, i as u32 + 1), count, "depth {}", i + 1);
    }
}

#[test]
fn perft_agrees_with_the_slow_generator() {
    let slow = Slow::start(1);
    let fast = ApMixtour::start(&ap_variant(1));
    for depth in 1..=4 {
        assert_eq!(perft(&fast, depth), slow.perft(depth), "depth {depth}");
    }
    assert_eq!(perft_with(&fast, 3, false), perft(&fast, 3));
}

#[test]
fn random_games_have_the_slow_generators_moves() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(25);
    let mut take_backs = 0;
    for goal in AP_GOALS {
        for _ in 0..60 {
            let mut slow = Slow::start(goal);
            let mut fast = ApMixtour::start(&ap_variant(goal));
            let mut last: Option<(usize, usize, usize)> = None;
            for _ in 0..300 {
                assert_eq!(fast.outcome().is_over(), slow.over(), "{}", fast.fen());
                if slow.over() {
                    break;
                }
                let moves = slow.moves();
                assert_eq!(texts(&fast), slow.texts(), "{}", fast.fen());
                assert_eq!(fast.count_moves(), moves.len() as u64, "{}", fast.fen());
                let (text, action) = moves[rng.gen_range(0..moves.len())].clone();
                if let (Some((Some((from, n)), to)), Some((lf, ln, lt))) = (action, last) {
                    take_backs += (from == lt && to == lf && n == ln) as u32;
                }
                last = match action {
                    Some((Some((from, n)), to)) => Some((from, n, to)),
                    _ => None,
                };
                fast.play(find_legal(&fast, &text).unwrap());
                slow.play(action);
                assert_eq!(fast.hash(), fast.standard().compute_hash());
            }
        }
    }
    assert!(take_backs > 0, "the random games never took a move back");
}

#[test]
fn the_last_move_may_be_taken_back() {
    // AP: after c3 b2 b2-c3 d4 c3:1-d4 it allows d4:1-c3.
    let p = after(&["c3", "b2", "b2c3", "d4", "c3d4"]);
    assert!(texts(&p).contains(&"d4c3".to_string()));
    let standard = {
        let mut s = Mixtour::start(&ap_variant(1));
        for m in ["c3", "b2", "b2c3", "d4", "c3d4"] {
            s.play(find_legal(&s, m).unwrap());
        }
        s
    };
    assert!(find_legal(&standard, "d4c3").is_err());
    // The ban is not part of the position: the same position reached
    // from a position string without a last move is the same position.
    let fen = p.fen();
    assert!(fen.ends_with(" -"), "{fen}");
    let read = ApMixtour::from_fen(&ap_variant(1), &standard.fen()).unwrap();
    assert_eq!(read.hash(), p.hash());
    assert_eq!(read, p);
}

#[test]
fn a_repetition_does_not_end_the_game() {
    assert_eq!(after(&["c3"]).repetition_outcome(), Outcome::Ongoing);
}

#[test]
fn best_of_three_goes_on_after_a_point() {
    // Player 1 completes a tower: 1 from e5 onto the 4 on e1.
    let fen = "x4,1/x5/x5/x5/x4,2121 1 10,10 0,0 2 -";
    let mut p = ApMixtour::from_fen(&ap_variant(2), fen).unwrap();
    assert_eq!(p.standard().goal(), 2);
    p.play(find_legal(&p, "e5e1").unwrap());
    assert_eq!(p.standard().score(Side::P1), 1);
    assert_eq!(p.outcome(), Outcome::Ongoing);
    let mut won = ApMixtour::from_fen(&ap_variant(1), &fen.replace(" 2 -", " 1 -")).unwrap();
    won.play(find_legal(&won, "e5e1").unwrap());
    assert!(won.outcome().is_over());
}
