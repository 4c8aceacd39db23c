//! One game as the engine holds it: the rules crate's erased game (fen,
//! moves, outcome, display all come from there) and beside it the search
//! driver of the game's type, which keeps what persists between searches.

use std::sync::Arc;

use stackfish_games::{
    variants, with_variant, AnyGame, Game, Networks, PositionError, ShapedLine, VariantVisitor,
};
use stackfish_search::{Info, Shared};

use crate::answer::{Driver, Searcher, Shaped};
use crate::{BestMove, GoParams, Options};

/// One game of one variant, with its search heuristics.
pub struct Session {
    game: Box<dyn AnyGame>,
    /// Made for the game's type from the same variant name, and told of
    /// every change of board type (`Searcher::follow`).
    searcher: Box<dyn Searcher>,
}

/// A session for variant `name` at its start position, playing the
/// built-in networks.
pub fn new_session(name: &str) -> Option<Session> {
    new_session_with(name, &Networks::default())
}

/// A session for variant `name` at its start position, whose searches
/// evaluate with its game's networks of `networks`.
pub fn new_session_with(name: &str, networks: &Networks) -> Option<Session> {
    Some(Session {
        game: variants::new_game(name)?,
        searcher: with_variant(name, NewSearcher(networks))?,
    })
}

/// A session of a game played on boards of many shapes (`F` the fast type
/// of its standard board, `G` the general one), as `new_session` makes it
/// for the variant `name`, but with the types fixed at compile time: a
/// host that plays that one game (the StackAndConquer script plays
/// Mixtour) then carries none of the other games and their networks.
/// Plays the built-in networks.
pub fn new_shaped_session<F: Game, G: Game<Variant = F::Variant>>(
    name: &'static str,
    variant: G::Variant,
) -> Session {
    Session {
        game: Box::new(ShapedLine::<F, G>::new(name, variant.clone())),
        searcher: NewSearcher(&Networks::default()).visit_shaped::<F, G>(name, variant),
    }
}

impl Session {
    /// The game: position, moves, outcome, board, perft.
    pub fn game(&self) -> &dyn AnyGame {
        &*self.game
    }

    pub fn variant(&self) -> &'static str {
        self.game.variant_name()
    }

    /// Forget the previous game: position back to the start, heuristics cleared.
    pub fn new_game(&mut self) {
        self.game.reset();
        self.searcher.follow(&*self.game);
        self.searcher.new_game();
    }

    /// `fen = None` is the start position. Atomic: on error nothing changes.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), PositionError> {
        self.game.set_position(fen, moves)?;
        self.searcher.follow(&*self.game);
        Ok(())
    }

    /// Searches the current position: see `answer` for who answers.
    pub fn go(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove {
        self.searcher
            .go(&*self.game, shared, params, options, report)
    }

    /// What is wrong with a `searchmoves` list in the current position: one
    /// message per move that is malformed or illegal (`go` ignores those),
    /// and one more if no move of the list is legal (`go` then searches
    /// every move). Empty when the list is fine, empty, or the game is over.
    pub fn check_search_moves(&self, moves: &[String]) -> Vec<String> {
        self.searcher.check_search_moves(&*self.game, moves)
    }
}

/// Makes the search driver of a variant's game type, with that game's
/// networks of the set.
struct NewSearcher<'a>(&'a Networks);

impl VariantVisitor for NewSearcher<'_> {
    type Output = Box<dyn Searcher>;
    fn visit<G: Game>(self, _name: &'static str, _variant: G::Variant) -> Box<dyn Searcher> {
        Box::new(Driver::<G>::new(G::nets(self.0)))
    }

    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        _name: &'static str,
        _variant: G::Variant,
    ) -> Box<dyn Searcher> {
        Box::new(Shaped::<F, G>::new(self.0))
    }
}
