//! A stack of two players' pieces as one byte, shared by Mixtour (four
//! pieces at most) and Coin Stack / Focus (five): its height, its pieces,
//! and the split and join of a move that carries the top pieces of one
//! stack onto another.
//!
//! The code: a sentinel bit at position `height`, and below it one bit per
//! piece from the bottom (0 = player 1, 1 = player 2). The empty stack is
//! `1`, and the code is never 0. The sentinel makes the height a bit scan,
//! and a split or a join a shift and a mask, with no loop over the pieces.

use std::fmt;

use crate::Side;

/// A stack of at most `MAX` pieces, on the board: its code is in
/// `1..Stack::<MAX>::CODES`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stack<const MAX: usize>(u8);

/// The pieces of a stack with others put on top, before the rules take any
/// off (Mixtour: a stack of five or more leaves the board; Focus: a stack
/// above five loses pieces from the bottom): up to 15 pieces, coded as a
/// `Stack` is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pile(u16);

impl<const MAX: usize> Stack<MAX> {
    pub const EMPTY: Self = Stack(1);
    /// The most pieces a stack holds.
    pub const MAX_HEIGHT: usize = MAX;
    /// The number of codes of stacks 0 to `MAX` high: every code is below
    /// it (one code per stack of each height h, 2^h of them, plus the unused
    /// code 0).
    pub const CODES: usize = 2 << MAX;

    /// The stack of this code, if it is one of a stack of at most `MAX`
    /// pieces.
    pub fn from_code(code: u8) -> Option<Self> {
        (code != 0 && (code as usize) < Self::CODES).then_some(Stack(code))
    }

    #[inline(always)]
    pub fn code(self) -> u8 {
        self.0
    }

    /// One piece of `side`.
    #[inline(always)]
    pub fn single(side: Side) -> Self {
        Stack(0b10 | side.index() as u8)
    }

    /// The stack of these pieces, bottom first; `None` above `MAX`.
    pub fn from_pieces(pieces: impl IntoIterator<Item = Side>) -> Option<Self> {
        let (mut colours, mut height) = (0u8, 0);
        for p in pieces {
            if height == MAX {
                return None;
            }
            colours |= (p.index() as u8) << height;
            height += 1;
        }
        Some(Stack(colours | 1 << height))
    }

    /// The stack a position string writes as its owners' digits, bottom
    /// first (`1221`): `None` for an empty text, another character, or more
    /// than `MAX` pieces. Its `Debug` writes it so.
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || !text.bytes().all(|b| b == b'1' || b == b'2') {
            return None;
        }
        Self::from_pieces(
            text.bytes()
                .map(|b| if b == b'1' { Side::P1 } else { Side::P2 }),
        )
    }

    /// The sentinel's bit: a bit scan, with no zero case to handle (or
    /// `lzcnt`) since the code is never 0.
    #[inline(always)]
    pub fn height(self) -> u32 {
        (self.0 | 1).ilog2()
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0 == 1
    }

    /// The owner of the top piece, if any: the player who controls the
    /// stack where control counts.
    #[inline(always)]
    pub fn top(self) -> Option<Side> {
        self.pile().top()
    }

    /// The owner of piece `i` counted from the bottom (`i` below the height).
    #[inline(always)]
    pub fn piece(self, i: u32) -> Side {
        piece_side(self.0 as u16 >> i)
    }

    /// Pieces from bottom to top.
    pub fn pieces(self) -> impl Iterator<Item = Side> {
        (0..self.height()).map(move |i| self.piece(i))
    }

    /// Pieces of `side` in the stack.
    #[inline(always)]
    pub fn count(self, side: Side) -> u32 {
        self.pile().count(side)
    }

    /// The top `n` pieces (1 to the height) taken off: what stays, and the
    /// `n` pieces as a stack of their own, in their order.
    #[inline(always)]
    pub fn split(self, n: u32) -> (Self, Self) {
        let (left, moved) = self.pile().split_at(self.height(), n);
        (Stack(left.0 as u8), Stack(moved.0 as u8))
    }

    /// `top` put on this stack: a pile as high as both together.
    #[inline(always)]
    pub fn join(self, top: Self) -> Pile {
        let h = self.height();
        // This stack loses its sentinel; `top`'s pieces start at bit h and
        // its sentinel lands at h + top's height, the pile's.
        Pile((self.0 as u16 ^ 1 << h) | (top.0 as u16) << h)
    }

    #[inline(always)]
    fn pile(self) -> Pile {
        Pile(self.0 as u16)
    }
}

impl Pile {
    #[inline(always)]
    pub fn height(self) -> u32 {
        (self.0 | 1).ilog2()
    }

    /// The owner of the top piece, if any.
    #[inline(always)]
    pub fn top(self) -> Option<Side> {
        let h = self.height();
        (h > 0).then(|| piece_side(self.0 >> (h - 1)))
    }

    /// Pieces of `side` in the pile.
    #[inline(always)]
    pub fn count(self, side: Side) -> u32 {
        let h = self.height();
        let p2 = (self.0 ^ 1 << h).count_ones();
        match side {
            Side::P1 => h - p2,
            Side::P2 => p2,
        }
    }

    /// The top `n` pieces (at most the height) taken off: the pieces below
    /// them and the `n` pieces, each a pile of its own.
    #[inline(always)]
    pub fn split(self, n: u32) -> (Pile, Pile) {
        self.split_at(self.height(), n)
    }

    /// `split` of a pile `h` high, with the height its caller has at hand.
    #[inline(always)]
    fn split_at(self, h: u32, n: u32) -> (Pile, Pile) {
        debug_assert!(h == self.height() && n <= h, "{n} pieces off {self:?}");
        let below = h - n;
        (
            Pile((self.0 & ((1 << below) - 1)) | 1 << below),
            Pile(self.0 >> below),
        )
    }

    /// The pile as a stack on the board, if it is at most `MAX` high.
    #[inline(always)]
    pub fn stack<const MAX: usize>(self) -> Option<Stack<MAX>> {
        ((self.0 as usize) < Stack::<MAX>::CODES).then_some(Stack(self.0 as u8))
    }

    /// The pile cut down to a stack of its top `MAX` pieces: the pieces cut
    /// off its bottom (none if it is at most `MAX` high), and that stack.
    #[inline(always)]
    pub fn cut<const MAX: usize>(self) -> (Pile, Stack<MAX>) {
        let (below, kept) = self.split(self.height().min(MAX as u32));
        (below, Stack(kept.0 as u8))
    }
}

/// The owner a piece's bit (bit 0 of `bits`) names.
#[inline(always)]
fn piece_side(bits: u16) -> Side {
    if bits & 1 == 0 {
        Side::P1
    } else {
        Side::P2
    }
}

impl<const MAX: usize> fmt::Debug for Stack<MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("x");
        }
        self.pieces().try_for_each(|p| write!(f, "{}", p.digit()))
    }
}

#[cfg(test)]
mod tests;
