//! A slow Mixtour written straight from the rules text, on any board:
//! coordinates, vectors of pieces and move texts instead of bitboards,
//! tables and packed moves. It shares nothing with the fast code but the
//! reading of a position (through its public accessors), so the fast move
//! generator, `play` and perft are checked against it on every shape.

use crate::mixtour::{Board, Position};
use crate::{Game, Side};

/// The eight lines through a cell: orthogonal and diagonal.
const LINES: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlowMove {
    Enter(i32, i32),
    /// `n` pieces from a cell onto another.
    Move(u32, (i32, i32), (i32, i32)),
    Pass,
}

fn name((f, r): (i32, i32)) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

impl SlowMove {
    /// The move in the notation of the rules: `c3`, `a1b2`, `3a1c3`, `pass`.
    pub fn text(&self) -> String {
        match self {
            SlowMove::Enter(f, r) => name((*f, *r)),
            SlowMove::Move(1, from, to) => format!("{}{}", name(*from), name(*to)),
            SlowMove::Move(n, from, to) => format!("{n}{}{}", name(*from), name(*to)),
            SlowMove::Pass => "pass".to_string(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Slow {
    pub files: i32,
    pub ranks: i32,
    /// Rank by rank from a1: `None` for a hole, else the pieces bottom to
    /// top (0 = player 1, 1 = player 2).
    pub cells: Vec<Option<Vec<usize>>>,
    pub reserves: [u32; 2],
    pub scores: [u32; 2],
    pub goal: u32,
    pub side: usize,
    /// The move just played, for the take-back rule.
    pub last: Option<SlowMove>,
    /// Passes in a row just played.
    pub passes: u32,
}

impl Slow {
    pub fn of<B: Board>(pos: &Position<B>) -> Slow {
        let (files, ranks) = (pos.board().files(), pos.board().ranks());
        let mut cells = Vec::new();
        for rank in 0..ranks {
            for file in 0..files {
                cells.push(pos.cell(file, rank).map(|cell| {
                    pos.stack(cell)
                        .pieces()
                        .map(|s| s.index())
                        .collect::<Vec<_>>()
                }));
            }
        }
        let mut slow = Slow {
            files: files as i32,
            ranks: ranks as i32,
            cells,
            reserves: Side::BOTH.map(|s| pos.reserve(s) as u32),
            scores: Side::BOTH.map(|s| pos.score(s) as u32),
            goal: pos.goal() as u32,
            side: pos.side_to_move().index(),
            last: None,
            passes: 0,
        };
        // The last move comes as text; a pass just played counts once.
        if let Some(last) = pos.last_move().map(|m| m.to_string()) {
            slow.last = slow.parse(&last);
            slow.passes = u32::from(last == "pass");
        }
        slow
    }

    /// Reads a move text of the notation (`c3`, `a1b2`, `3a10a7`, `pass`).
    fn parse(&self, text: &str) -> Option<SlowMove> {
        if text == "pass" {
            return Some(SlowMove::Pass);
        }
        let (n, rest) = match text.chars().next()? {
            c @ '1'..='4' => (c.to_digit(10)?, &text[1..]),
            _ => (1, text),
        };
        let mut squares = Vec::new();
        let mut chars = rest.chars().peekable();
        while let Some(letter) = chars.next() {
            let mut digits = String::new();
            while let Some(d) = chars.next_if(|c| c.is_ascii_digit()) {
                digits.push(d);
            }
            squares.push((letter as i32 - 'a' as i32, digits.parse::<i32>().ok()? - 1));
        }
        match squares[..] {
            [(f, r)] => Some(SlowMove::Enter(f, r)),
            [from, to] => Some(SlowMove::Move(n, from, to)),
            _ => None,
        }
    }

    fn at(&self, (f, r): (i32, i32)) -> Option<&Option<Vec<usize>>> {
        if f < 0 || r < 0 || f >= self.files || r >= self.ranks {
            return None;
        }
        self.cells.get((r * self.files + f) as usize)
    }

    fn at_mut(&mut self, (f, r): (i32, i32)) -> &mut Vec<usize> {
        let i = (r * self.files + f) as usize;
        self.cells[i].as_mut().expect("a cell of the board")
    }

    pub fn over(&self) -> bool {
        self.scores.iter().any(|&s| s >= self.goal) || self.passes >= 2
    }

    /// The legal moves, straight from the rules.
    pub fn moves(&self) -> Vec<SlowMove> {
        let mut out = Vec::new();
        let cells: Vec<(i32, i32)> = (0..self.ranks)
            .flat_map(|r| (0..self.files).map(move |f| (f, r)))
            .collect();
        // Enter: a piece from a non-empty reserve onto an empty cell of the board.
        if self.reserves[self.side] > 0 {
            for &c in &cells {
                if matches!(self.at(c), Some(Some(stack)) if stack.is_empty()) {
                    out.push(SlowMove::Enter(c.0, c.1));
                }
            }
        }
        // The opponent's last move, if a stack move, may not be undone.
        let forbidden = match &self.last {
            Some(SlowMove::Move(n, from, to)) => Some(SlowMove::Move(*n, *to, *from)),
            _ => None,
        };
        // Move: the top n pieces of any stack, along a line, onto the first
        // stack met, which must be exactly as high as it is far; the cells
        // between must be empty cells of the board (a hole blocks).
        for &from in &cells {
            let Some(Some(source)) = self.at(from) else {
                continue;
            };
            if source.is_empty() {
                continue;
            }
            for (df, dr) in LINES {
                let mut k = 1;
                loop {
                    let to = (from.0 + df * k, from.1 + dr * k);
                    match self.at(to) {
                        None | Some(None) => break,
                        Some(Some(target)) if target.is_empty() => k += 1,
                        Some(Some(target)) => {
                            if target.len() as i32 == k {
                                for n in 1..=source.len() as u32 {
                                    let mv = SlowMove::Move(n, from, to);
                                    if Some(&mv) != forbidden.as_ref() {
                                        out.push(mv);
                                    }
                                }
                            }
                            break;
                        }
                    }
                }
            }
        }
        // Pass: only when nothing else is legal.
        if out.is_empty() {
            out.push(SlowMove::Pass);
        }
        out
    }

    pub fn play(&mut self, mv: &SlowMove) {
        let side = self.side;
        match *mv {
            SlowMove::Enter(f, r) => {
                self.at_mut((f, r)).push(side);
                self.reserves[side] -= 1;
                self.passes = 0;
            }
            SlowMove::Move(n, from, to) => {
                let source = self.at_mut(from);
                let moved = source.split_off(source.len() - n as usize);
                let target = self.at_mut(to);
                target.extend(moved);
                // A stack of five or more leaves the board: pieces back to
                // their owners, a point for the owner of the top piece.
                if target.len() >= 5 {
                    let pieces = std::mem::take(target);
                    for &p in &pieces {
                        self.reserves[p] += 1;
                    }
                    self.scores[*pieces.last().expect("five pieces")] += 1;
                }
                self.passes = 0;
            }
            SlowMove::Pass => self.passes += 1,
        }
        self.last = Some(mv.clone());
        self.side = 1 - side;
    }

    /// Whether the side to move has a move that reaches its goal at once.
    pub fn wins_now(&self) -> bool {
        self.moves().iter().any(|mv| {
            let mut after = self.clone();
            after.play(mv);
            after.scores[self.side] >= self.goal
        })
    }

    /// Whether the opponent would win at once if it were their turn now
    /// (with no take-back ban: their turn would come after a move of ours).
    pub fn threatened(&self) -> bool {
        let mut theirs = self.clone();
        theirs.side = 1 - self.side;
        theirs.last = None;
        theirs.passes = 0;
        theirs.wins_now()
    }

    /// The moves after which the opponent has no win at once: the game
    /// over but not won by them, or going on with no win in one for them.
    pub fn parries(&self) -> Vec<String> {
        let opponent = 1 - self.side;
        self.moves()
            .iter()
            .filter(|mv| {
                let mut after = self.clone();
                after.play(mv);
                if after.over() {
                    after.scores[opponent] < after.goal
                } else {
                    !after.wins_now()
                }
            })
            .map(SlowMove::text)
            .collect()
    }

    /// Leaves of the move tree `depth` plies deep (a finished game has no
    /// children), the last ply counted without playing it.
    pub fn perft(&self, depth: u32) -> u64 {
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
            .iter()
            .map(|mv| {
                let mut child = self.clone();
                child.play(mv);
                child.perft(depth - 1)
            })
            .sum()
    }

    /// The sorted texts of the legal moves.
    pub fn move_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.moves().iter().map(SlowMove::text).collect();
        texts.sort();
        texts
    }
}

/// The sorted texts of the fast generator's moves.
pub fn fast_texts<G: Game>(pos: &G) -> Vec<String> {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    let mut texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    texts.sort();
    texts
}

/// Checks the fast wins in one, threats, towers and parry candidates of
/// `pos` (a game not over) against the rules: `winning_move` is a legal
/// move that wins when the slow rules say one exists, `threatened` is
/// theirs, `noisy_moves` are the towers that do not hand the opponent the
/// game, and with no win in one every move that parries a threat is among
/// the candidates, all legal.
pub fn check_threats<B: Board>(pos: &Position<B>) {
    let slow = Slow::of(pos);
    let legal = fast_texts(pos);
    match pos.winning_move() {
        Some(mv) => {
            assert!(slow.wins_now(), "no win in one in {}", pos.fen());
            assert!(legal.contains(&mv.to_string()), "{mv} in {}", pos.fen());
            let mut after = *pos;
            after.play(mv);
            let won = after.outcome().result().and_then(|r| r.winner());
            assert_eq!(won, Some(pos.side_to_move()), "{mv} in {}", pos.fen());
        }
        None => assert!(!slow.wins_now(), "a win in one missed in {}", pos.fen()),
    }
    assert_eq!(pos.threatened(), slow.threatened(), "{}", pos.fen());
    // The towers quiescence tries: the slow rules' moves that complete a
    // tower, less those that hand the opponent the game.
    let mut noisy = Vec::new();
    pos.noisy_moves(&mut noisy);
    let mut noisy: Vec<String> = noisy.iter().map(|m| m.to_string()).collect();
    noisy.sort();
    let opponent = 1 - slow.side;
    let mut towers: Vec<String> = slow
        .moves()
        .iter()
        .filter(|mv| {
            let mut after = slow.clone();
            after.play(mv);
            let towered = after.scores != slow.scores;
            towered && after.scores[opponent] < after.goal
        })
        .map(SlowMove::text)
        .collect();
    towers.sort();
    assert_eq!(noisy, towers, "towers in {}", pos.fen());
    // (The search asks for parries only when it has no win in one.)
    if pos.threatened() && pos.winning_move().is_none() {
        let mut candidates = Vec::new();
        pos.parry_candidates(&mut candidates);
        let candidates: Vec<String> = candidates.iter().map(|m| m.to_string()).collect();
        for parry in slow.parries() {
            assert!(
                candidates.contains(&parry),
                "the parry {parry} is not a candidate in {}",
                pos.fen()
            );
        }
        for c in &candidates {
            assert!(legal.contains(c), "{c} is not legal in {}", pos.fen());
        }
    }
}
