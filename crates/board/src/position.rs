//! The position shown as the page draws it, read from the rules crate's own
//! position types: every square with its stack, each player's counts, the
//! legal moves and the last move by their squares. The page parses neither
//! position strings nor move texts; the rules are read in one place.

use serde::Serialize;

use super::view::side_name;
use stackfish_games::castle::{self, Castle};
use stackfish_games::coinstack::{self, CoinStack};
use stackfish_games::mixtour::{self, Board, MoveKind as MixtourMove, Position as Mixtour};
use stackfish_games::silo::{self, Silo};
use stackfish_games::{AnyGame, Game, Side};

/// `position` in the state: the board as drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionView {
    /// The grid: `files` x `ranks` cells (Silo: its row, one rank).
    pub files: usize,
    pub ranks: usize,
    /// Every square of the board, rank 1 first and each rank from file a.
    pub squares: Vec<SquareView>,
    /// Cells of the grid that are not part of the board: a Mixtour board's
    /// holes, drawn as such (Coin Stack's cut corners are not drawn at all).
    pub holes: Vec<String>,
    /// The legal moves, in the order of `legal_moves`.
    pub moves: Vec<MoveView>,
    /// The move that led here: the line's last, or the one a Mixtour
    /// position string names.
    pub last: Option<MoveView>,
    /// The stack the last move made and took off the board at once (a
    /// Mixtour tower of five or more), bottom first: the page draws it on
    /// the move's target square, so a winning tower is seen. Absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tower: Option<Vec<&'static str>>,
    /// `game` (`mixtour`, `silo`, `coinstack`, `castle`: how it is drawn)
    /// and the counts of that game.
    #[serde(flatten)]
    pub counts: Counts,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SquareView {
    /// `c3`; a Silo square is its file letter.
    pub name: String,
    pub file: usize,
    pub rank: usize,
    /// The pieces from the bottom up, `p1` or `p2` each (a Castle knight
    /// is a stack of one).
    pub stack: Vec<&'static str>,
}

/// Each game's numbers beside the board, per player (player 1 first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum Counts {
    Mixtour {
        /// Pieces in hand.
        reserves: [u8; 2],
        scores: [u8; 2],
        goal: u8,
    },
    Silo {
        checkers: [u32; 2],
    },
    /// Coin Stack and Focus.
    Coinstack {
        reserves: [u8; 2],
        captured: [u8; 2],
        /// Captures that win (Coin Stack); none in Focus.
        capture_goal: Option<u8>,
    },
    Castle {
        knights: [u32; 2],
        passes: [u8; 2],
        skulls: Vec<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    pub text: String,
    pub kind: MoveKind,
    pub from: Option<String>,
    pub to: Option<String>,
    /// The pieces that move: the player picks it where several are possible.
    pub count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveKind {
    /// A piece entered from the hand (Mixtour).
    Place,
    /// A coin from the reserve (Coin Stack, Focus).
    Drop,
    Move,
    Pass,
}

impl MoveView {
    fn new(text: String, kind: MoveKind, from: Option<String>, to: Option<String>) -> MoveView {
        MoveView {
            text,
            kind,
            from,
            to,
            count: 1,
        }
    }
}

/// What a game's position shows of itself.
trait Drawn: Game {
    /// `files`, `ranks`, the squares and the holes.
    fn squares(&self) -> (usize, usize, Vec<SquareView>, Vec<String>);
    fn counts(&self) -> Counts;
    /// `mv` of the side to move here, by its squares.
    fn move_view(&self, mv: Self::Move) -> MoveView;
    /// The previous move when the position itself knows it (Mixtour's
    /// take-back rule keeps it), for a line that starts here.
    fn own_last(&self) -> Option<MoveView> {
        None
    }
    /// The stack `mv` of the side to move here made and removed at once,
    /// bottom first (a Mixtour tower), `after` the position it led to.
    fn tower(&self, _mv: Self::Move, _after: &Self) -> Option<Vec<&'static str>> {
        None
    }
}

fn stack_of(pieces: impl IntoIterator<Item = Side>) -> Vec<&'static str> {
    pieces.into_iter().map(side_name).collect()
}

fn both<T>(f: impl Fn(Side) -> T) -> [T; 2] {
    [f(Side::P1), f(Side::P2)]
}

impl<B: Board> Drawn for Mixtour<B> {
    fn squares(&self) -> (usize, usize, Vec<SquareView>, Vec<String>) {
        let (files, ranks) = (self.board().files(), self.board().ranks());
        let mut squares = Vec::new();
        let mut holes = Vec::new();
        for rank in 0..ranks {
            for file in 0..files {
                match self.cell(file, rank) {
                    Some(cell) => squares.push(SquareView {
                        name: mixtour::square_name::<B>(cell),
                        file,
                        rank,
                        stack: stack_of(self.stack(cell).pieces()),
                    }),
                    None => holes.push(mixtour::square_name::<B>((rank * B::STRIDE + file) as u8)),
                }
            }
        }
        (files, ranks, squares, holes)
    }

    fn counts(&self) -> Counts {
        Counts::Mixtour {
            reserves: both(|s| self.reserve(s)),
            scores: both(|s| self.score(s)),
            goal: self.goal(),
        }
    }

    fn move_view(&self, mv: Self::Move) -> MoveView {
        let name = mixtour::square_name::<B>;
        let text = mv.to_string();
        match mv.kind() {
            MixtourMove::Place(cell) => {
                MoveView::new(text, MoveKind::Place, None, Some(name(cell)))
            }
            MixtourMove::Stack { count, from, to } => MoveView {
                count: u32::from(count),
                ..MoveView::new(text, MoveKind::Move, Some(name(from)), Some(name(to)))
            },
            MixtourMove::Pass => MoveView::new(text, MoveKind::Pass, None, None),
        }
    }

    fn own_last(&self) -> Option<MoveView> {
        self.last_move().map(|mv| self.move_view(mv))
    }

    fn tower(&self, mv: Self::Move, after: &Self) -> Option<Vec<&'static str>> {
        let MixtourMove::Stack { count, from, to } = mv.kind() else {
            return None;
        };
        // A stack move always ends on a stack: an empty target afterwards
        // means the rules took the stack it made off the board.
        if after.height(to) > 0 {
            return None;
        }
        let source = self.stack(from);
        let taken = source
            .pieces()
            .skip(source.height().saturating_sub(u32::from(count)) as usize);
        Some(stack_of(self.stack(to).pieces().chain(taken)))
    }
}

impl Drawn for Silo {
    fn squares(&self) -> (usize, usize, Vec<SquareView>, Vec<String>) {
        let squares = (0..self.squares())
            .map(|file| SquareView {
                name: silo::square_name(file as u8).to_string(),
                file,
                rank: 0,
                stack: stack_of(self.stack(file)),
            })
            .collect();
        (self.squares(), 1, squares, Vec::new())
    }

    fn counts(&self) -> Counts {
        Counts::Silo {
            checkers: both(|s| self.checkers(s)),
        }
    }

    /// Rule: the mover takes its highest checker of the stack and every
    /// checker above it one square on, in its own direction.
    fn move_view(&self, mv: Self::Move) -> MoveView {
        let text = mv.to_string();
        let Some(from) = mv.square().map(usize::from) else {
            return MoveView::new(text, MoveKind::Pass, None, None);
        };
        let side = self.side_to_move();
        let stack = self.stack(from);
        let highest = stack.iter().rposition(|&s| s == side).unwrap_or(0);
        let to = self.target(side, from);
        MoveView {
            count: (stack.len() - highest) as u32,
            ..MoveView::new(
                text,
                MoveKind::Move,
                Some(silo::square_name(from as u8).to_string()),
                Some(silo::square_name(to as u8).to_string()),
            )
        }
    }
}

impl Drawn for CoinStack {
    fn squares(&self) -> (usize, usize, Vec<SquareView>, Vec<String>) {
        use coinstack::tables::{RANK_FILES, SIZE};
        let mut squares = Vec::new();
        for (rank, &(first, last)) in RANK_FILES.iter().enumerate() {
            for file in first..=last {
                let square = (rank * SIZE + file) as u8;
                squares.push(SquareView {
                    name: coinstack::square_name(square),
                    file,
                    rank,
                    stack: stack_of(self.stack(square).pieces()),
                });
            }
        }
        (SIZE, SIZE, squares, Vec::new())
    }

    fn counts(&self) -> Counts {
        Counts::Coinstack {
            reserves: both(|s| self.reserve(s)),
            captured: both(|s| self.captured(s)),
            capture_goal: self.variant().capture_goal(),
        }
    }

    fn move_view(&self, mv: Self::Move) -> MoveView {
        let name = coinstack::square_name;
        let text = mv.to_string();
        match mv.kind() {
            coinstack::MoveKind::Drop(to) => {
                MoveView::new(text, MoveKind::Drop, None, Some(name(to)))
            }
            coinstack::MoveKind::Step { count, from, to } => MoveView {
                count: u32::from(count),
                ..MoveView::new(text, MoveKind::Move, Some(name(from)), Some(name(to)))
            },
        }
    }
}

impl Drawn for Castle {
    fn squares(&self) -> (usize, usize, Vec<SquareView>, Vec<String>) {
        use castle::tables::{square, SIZE};
        let mut squares = Vec::new();
        for rank in 0..SIZE {
            for file in 0..SIZE {
                let sq = square(file, rank);
                let knight = [Side::P1, Side::P2]
                    .into_iter()
                    .filter(|&s| self.knights(s).has(sq));
                squares.push(SquareView {
                    name: castle::square_name(sq),
                    file,
                    rank,
                    stack: stack_of(knight),
                });
            }
        }
        (SIZE, SIZE, squares, Vec::new())
    }

    fn counts(&self) -> Counts {
        Counts::Castle {
            knights: both(|s| self.knight_count(s)),
            passes: both(|s| self.passes(s)),
            skulls: self.skull_squares().map(castle::square_name).collect(),
        }
    }

    fn move_view(&self, mv: Self::Move) -> MoveView {
        MoveView::new(
            mv.to_string(),
            MoveKind::Move,
            Some(castle::square_name(mv.from())),
            Some(castle::square_name(mv.to())),
        )
    }
}

/// The view of `game`'s position, whose legal moves are `legal` (empty
/// when the game is over); `None` for a game the page does not draw.
pub fn position_view(game: &dyn AnyGame, legal: &[String]) -> Option<PositionView> {
    // Every Mixtour variant is played on the general board type.
    view_of::<Mixtour<mixtour::Grid>>(game, legal)
        .or_else(|| view_of::<Mixtour<mixtour::Standard>>(game, legal))
        .or_else(|| view_of::<Silo>(game, legal))
        .or_else(|| view_of::<CoinStack>(game, legal))
        .or_else(|| view_of::<Castle>(game, legal))
}

fn view_of<G: Drawn>(game: &dyn AnyGame, legal: &[String]) -> Option<PositionView> {
    let pos = game.position_any().downcast_ref::<G>()?;
    let (files, ranks, squares, holes) = pos.squares();
    let moves = legal
        .iter()
        .filter_map(|text| pos.parse_move(text).ok())
        .map(|mv| pos.move_view(mv))
        .collect();
    // The last move read in the position it was played from, where it was
    // legal (a Silo move's count is that position's).
    let (last, tower) = match game.moves().last() {
        Some(text) => {
            let mut before = game.box_clone();
            before.undo();
            let before = before.position_any().downcast_ref::<G>();
            match before.and_then(|p| Some((p, p.parse_move(text).ok()?))) {
                Some((p, mv)) => (Some(p.move_view(mv)), p.tower(mv, pos)),
                None => (None, None),
            }
        }
        None => (pos.own_last(), None),
    };
    Some(PositionView {
        files,
        ranks,
        squares,
        holes,
        moves,
        last,
        tower,
        counts: pos.counts(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_games::variants;

    fn view(variant: &str, fen: &str, moves: &[&str]) -> PositionView {
        let mut game = variants::new_game(variant).expect("a variant");
        game.set_fen(fen).expect("a position");
        for mv in moves {
            game.play_text(mv).expect("a legal move");
        }
        position_view(game.as_ref(), &game.legal_moves()).expect("drawn")
    }

    fn stack<'a>(v: &'a PositionView, name: &str) -> &'a [&'static str] {
        &v.squares.iter().find(|s| s.name == name).expect(name).stack
    }

    #[test]
    fn mixtour_stacks_bottom_to_top_and_the_last_move_of_the_string() {
        let v = view("mixtour", "x5/x5/x5/x5/11,2,x3 2 18,19 0,0 1 b1a1", &[]);
        assert_eq!((v.files, v.ranks, v.squares.len()), (5, 5, 25));
        assert!(v.holes.is_empty());
        assert_eq!(stack(&v, "a1"), ["p1", "p1"]);
        assert_eq!(stack(&v, "b1"), ["p2"]);
        assert!(stack(&v, "c3").is_empty());
        // The squares go rank 1 first, file a first.
        assert_eq!(v.squares[0].name, "a1");
        assert_eq!((v.squares[7].file, v.squares[7].rank), (2, 1));
        let last = v.last.as_ref().expect("the string names it");
        assert_eq!(
            (last.kind, last.from.as_deref(), last.to.as_deref()),
            (MoveKind::Move, Some("b1"), Some("a1"))
        );
        assert_eq!(
            v.counts,
            Counts::Mixtour {
                reserves: [18, 19],
                scores: [0, 0],
                goal: 1
            }
        );
        // Every legal move is there, by its squares.
        let two = v.moves.iter().find(|m| m.text == "2a1b1").expect("2a1b1");
        assert_eq!(
            (two.kind, two.count, two.from.as_deref(), two.to.as_deref()),
            (MoveKind::Move, 2, Some("a1"), Some("b1"))
        );
        assert!(v
            .moves
            .iter()
            .any(|m| m.kind == MoveKind::Place && m.to.as_deref() == Some("c3")));
    }

    #[test]
    fn mixtour_tower_that_leaves_the_board_is_shown_with_the_last_move() {
        // a5's piece onto a1's four makes five: the tower leaves at once
        // and player 1, on top, reaches the goal.
        let fen = "1,x4/x5/x5/x5/2121,x4 1 17,18 0,0 1 -";
        let v = view("mixtour", fen, &["a5a1"]);
        assert!(stack(&v, "a1").is_empty());
        assert_eq!(v.tower, Some(vec!["p2", "p1", "p2", "p1", "p1"]));
        // A move that leaves its stack on the board shows no tower.
        let v = view("mixtour", "x5/x5/x5/x5/11,2,x3 1 18,19 0,0 1 -", &["a1b1"]);
        assert_eq!(stack(&v, "b1"), ["p2", "p1"]);
        assert_eq!(v.tower, None);
        // Nor does an entry.
        assert_eq!(view("mixtour", fen, &["c3"]).tower, None);
    }

    #[test]
    fn mixtour_holes_are_named() {
        let v = view("mixtour", "x7/x2,12,x,#2,x/x7 1 19,19 0,0 1 -", &[]);
        assert_eq!((v.files, v.ranks, v.squares.len()), (7, 3, 19));
        assert_eq!(v.holes, ["e2", "f2"]);
        assert_eq!(stack(&v, "c2"), ["p1", "p2"]);
    }

    #[test]
    fn silo_moves_take_the_highest_own_checker_and_all_above() {
        let v = view("silo", "12/21/12/21 1", &[]);
        assert_eq!((v.files, v.ranks), (4, 1));
        let names: Vec<&str> = v.squares.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(stack(&v, "a"), ["p1", "p2"]);
        // Player 1's checker of a is at the bottom: both checkers go.
        let a = v.moves.iter().find(|m| m.text == "a").expect("a");
        assert_eq!(
            (a.from.as_deref(), a.to.as_deref(), a.count),
            (Some("a"), Some("b"), 2)
        );
        // Of b, only the top one.
        let b = v.moves.iter().find(|m| m.text == "b").expect("b");
        assert_eq!((b.to.as_deref(), b.count), (Some("c"), 1));
        assert_eq!(v.counts, Counts::Silo { checkers: [4, 4] });
        // The last move is read in the position it was played from.
        let v = view("silo", "12/21/12/21 1", &["a"]);
        assert_eq!(stack(&v, "b"), ["p2", "p1", "p1", "p2"]);
        let last = v.last.expect("a");
        assert_eq!(
            (last.from.as_deref(), last.to.as_deref(), last.count),
            (Some("a"), Some("b"), 2)
        );
    }

    #[test]
    fn coinstack_has_52_squares_reserves_and_drops() {
        let fen = "x4/2,2,1,1,2,2/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,2,2,1,1/x4 1 1,0 0,0";
        let v = view("coinstack", fen, &[]);
        assert_eq!(v.squares.len(), 52);
        assert_eq!(v.squares[0].name, "c1");
        assert_eq!(stack(&v, "b7"), ["p2"]);
        assert_eq!(
            v.counts,
            Counts::Coinstack {
                reserves: [1, 0],
                captured: [0, 0],
                capture_goal: Some(9)
            }
        );
        assert_eq!(
            v.moves.iter().filter(|m| m.kind == MoveKind::Drop).count(),
            52
        );
        let v = view("coinstack", fen, &["d4"]);
        assert_eq!(stack(&v, "d4"), ["p2", "p1"]);
        assert_eq!(v.last.expect("d4").kind, MoveKind::Drop);
        let focus = view("focus", fen, &[]);
        assert!(matches!(
            focus.counts,
            Counts::Coinstack {
                capture_goal: None,
                ..
            }
        ));
    }

    #[test]
    fn castle_has_its_knights_and_skulls() {
        let mut game = variants::new_game("castle").expect("castle");
        let start = game.fen();
        let v = position_view(game.as_ref(), &game.legal_moves()).expect("drawn");
        assert_eq!(v.squares.len(), 361);
        let knights: usize = v.squares.iter().map(|s| s.stack.len()).sum();
        let Counts::Castle {
            knights: per_side,
            skulls,
            ..
        } = &v.counts
        else {
            panic!("castle counts");
        };
        assert_eq!(knights as u32, per_side[0] + per_side[1]);
        let skulls_in_string = start.split(' ').nth(3).unwrap().split(',').count();
        assert_eq!(skulls.len(), skulls_in_string);
        let mv = v.moves[0].clone();
        game.play_text(&mv.text).expect("legal");
        let after = position_view(game.as_ref(), &game.legal_moves()).expect("drawn");
        assert_eq!(after.last, Some(mv.clone()));
        let to = mv.to.expect("a target");
        assert_eq!(stack(&after, &to).len(), 1);
    }
}
