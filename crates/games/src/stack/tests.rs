//! The stack code checked against the rules' plain picture of a stack, a
//! list of owners from the bottom, for every stack Mixtour (four pieces at
//! most) and Coin Stack / Focus (five) can hold.

use super::{Pile, Stack};
use crate::Side::{self, P1, P2};

/// Every list of owners from 0 to `max` long.
fn every_list(max: usize) -> Vec<Vec<Side>> {
    let mut lists = vec![vec![]];
    let mut last = vec![vec![]];
    for _ in 0..max {
        last = last
            .iter()
            .flat_map(|l: &Vec<Side>| {
                [P1, P2].map(|p| {
                    let mut l = l.clone();
                    l.push(p);
                    l
                })
            })
            .collect();
        lists.extend(last.iter().cloned());
    }
    lists
}

fn stack<const MAX: usize>(pieces: &[Side]) -> Stack<MAX> {
    match Stack::from_pieces(pieces.iter().copied()) {
        Some(stack) => stack,
        None => panic!("{pieces:?} is no stack of {MAX}"),
    }
}

fn pieces<const MAX: usize>(stack: Stack<MAX>) -> Vec<Side> {
    stack.pieces().collect()
}

fn codes_cover_the_range<const MAX: usize>(codes: usize) {
    assert_eq!(Stack::<MAX>::CODES, codes);
    let lists = every_list(MAX);
    // 2^h stacks of each height h = 0..=MAX: every code but 0.
    assert_eq!(lists.len(), codes - 1);
    let mut seen = vec![false; codes];
    for list in &lists {
        let s = stack::<MAX>(list);
        let code = s.code() as usize;
        assert!((1..codes).contains(&code), "{list:?}: code {code}");
        assert!(!seen[code], "{list:?}: code {code} twice");
        seen[code] = true;
        assert_eq!(Stack::<MAX>::from_code(s.code()), Some(s));
    }
    assert_eq!(Stack::<MAX>::from_code(0), None);
    assert_eq!(Stack::<MAX>::from_code(codes as u8), None);
    assert_eq!(Stack::<MAX>::from_code(255), None);
    assert_eq!(Stack::<MAX>::from_pieces(vec![P2; MAX + 1]), None);
    assert_eq!(Stack::<MAX>::from_pieces([]), Some(Stack::EMPTY));
}

#[test]
fn each_stack_has_one_code_below_the_bound() {
    codes_cover_the_range::<4>(32);
    codes_cover_the_range::<5>(64);
}

fn reads_its_pieces<const MAX: usize>() {
    for list in every_list(MAX) {
        let s = stack::<MAX>(&list);
        assert_eq!(s.height() as usize, list.len(), "{list:?}");
        assert_eq!(s.is_empty(), list.is_empty(), "{list:?}");
        assert_eq!(s.top(), list.last().copied(), "{list:?}");
        assert_eq!(pieces(s), list);
        for (i, &p) in list.iter().enumerate() {
            assert_eq!(s.piece(i as u32), p, "{list:?} piece {i}");
        }
        for side in [P1, P2] {
            let n = list.iter().filter(|&&p| p == side).count();
            assert_eq!(s.count(side) as usize, n, "{list:?} {side:?}");
        }
    }
}

#[test]
fn a_stack_reads_its_height_top_pieces_and_counts() {
    reads_its_pieces::<4>();
    reads_its_pieces::<5>();
    assert_eq!(Stack::<4>::single(P1), stack(&[P1]));
    assert_eq!(Stack::<5>::single(P2), stack(&[P2]));
    assert_eq!(format!("{:?}", Stack::<4>::EMPTY), "x");
    assert_eq!(format!("{:?}", stack::<5>(&[P1, P2, P2, P1, P2])), "12212");
}

#[test]
fn a_stack_is_read_from_its_digits_bottom_first() {
    assert_eq!(Stack::<4>::parse("1"), Some(stack(&[P1])));
    assert_eq!(Stack::<4>::parse("1222"), Some(stack(&[P1, P2, P2, P2])));
    assert_eq!(
        Stack::<5>::parse("21121"),
        Some(stack(&[P2, P1, P1, P2, P1]))
    );
    for bad in ["", "12221", "3", "1x", " 1", "x"] {
        assert_eq!(Stack::<4>::parse(bad), None, "{bad:?}");
    }
    assert_eq!(Stack::<5>::parse("122211"), None);
    for list in every_list(5).into_iter().skip(1) {
        let s = stack::<5>(&list);
        assert_eq!(Stack::parse(&format!("{s:?}")), Some(s));
    }
}

fn splits<const MAX: usize>() {
    for list in every_list(MAX) {
        let s = stack::<MAX>(&list);
        for n in 1..=list.len() {
            let (left, moved) = s.split(n as u32);
            let at = list.len() - n;
            assert_eq!(pieces(left), list[..at], "{list:?} less its top {n}");
            assert_eq!(pieces(moved), list[at..], "{list:?}'s top {n}");
        }
    }
}

#[test]
fn a_split_takes_the_top_n_pieces_off_in_their_order() {
    splits::<4>();
    splits::<5>();
    let (left, moved) = stack::<4>(&[P1, P2, P2, P1]).split(3);
    assert_eq!((pieces(left), pieces(moved)), (vec![P1], vec![P2, P2, P1]));
}

fn joins<const MAX: usize>() {
    let lists = every_list(MAX);
    for below in &lists {
        for above in &lists {
            let all: Vec<Side> = below.iter().chain(above).copied().collect();
            let what = format!("{above:?} onto {below:?}");
            let pile: Pile = stack::<MAX>(below).join(stack(above));
            assert_eq!(pile.height() as usize, all.len(), "{what}");
            assert_eq!(pile.top(), all.last().copied(), "{what}");
            for side in [P1, P2] {
                let n = all.iter().filter(|&&p| p == side).count();
                assert_eq!(pile.count(side) as usize, n, "{what} {side:?}");
            }
            // A pile up to MAX is a stack; above it, none.
            let fits = pile.stack::<MAX>().map(pieces);
            assert_eq!(fits, (all.len() <= MAX).then(|| all.clone()), "{what}");
            // Cut to its top MAX pieces, the rest below (a stack too: a
            // pile is at most twice MAX).
            let (cut, kept) = pile.cut::<MAX>();
            let at = all.len().saturating_sub(MAX);
            assert_eq!(pieces(kept), all[at..], "{what}: kept");
            let cut = cut.stack::<MAX>().map(pieces);
            assert_eq!(cut, Some(all[..at].to_vec()), "{what}: cut");
        }
    }
}

#[test]
fn a_join_puts_one_stack_on_another_and_a_cut_keeps_the_top() {
    joins::<4>();
    joins::<5>();
    let pile = stack::<5>(&[P1, P1, P2, P2]).join(stack(&[P2, P1, P1]));
    let (cut, kept) = pile.cut::<5>();
    assert_eq!(pieces(kept), [P2, P2, P2, P1, P1]);
    assert_eq!((cut.height(), cut.count(P1)), (2, 2));
    assert_eq!(pile.stack::<5>(), None);
}
