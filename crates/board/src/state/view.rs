//! The state view the page reads, built from the game under its lock.

use super::super::eval;
use super::super::position;
use super::super::view::*;
use super::{App, Player, Role, Search, State};
use stackfish_games::{variants, Outcome};

impl App {
    /// The explorer's view of the position shown, if it is Silo and a
    /// table covers it.
    fn explore(&self, st: &State) -> Option<TableView> {
        let explorer = self.explorer.as_ref()?;
        let variant = st.game.variant_name();
        if variant.split('-').next() != Some("silo") {
            return None;
        }
        explorer.explore(variant, &st.game.fen(), st.game.outcome().is_over())
    }

    pub(super) fn view(&self, st: &State) -> StateView {
        let outcome = st.game.outcome();
        let moves = st.game.moves();
        let legal_moves = st.game.legal_moves();
        let side_of = |p: &Option<Player>| p.is_some();
        let engine_side = match (side_of(&st.players[0]), side_of(&st.players[1])) {
            (true, true) => "both",
            (true, false) => "p1",
            (false, true) => "p2",
            (false, false) => "none",
        };
        let [r1, r2, ra] = st.reports.clone();
        let mut evals = st.evals.clone();
        let mut marks = eval::marks(
            &st.evals,
            &(0..st.total()).map(|i| st.side_at(i)).collect::<Vec<_>>(),
            st.game.variant_name(),
        );
        self.with_review(st, &mut evals, &mut marks);
        StateView {
            version: st.version,
            variant: st.game.variant_name(),
            variants: variants::variant_names().to_vec(),
            fen: st.game.fen(),
            start_fen: st.game.start_fen(),
            last_move: moves.last().cloned(),
            moves,
            future: st.future.iter().rev().cloned().collect(),
            side_to_move: side_name(st.game.side_to_move()),
            position: position::position_view(st.game.as_ref(), &legal_moves),
            legal_moves,
            outcome: match outcome {
                Outcome::Ongoing => OutcomeView {
                    over: false,
                    result: "*",
                    winner: None,
                    reason: None,
                },
                Outcome::Over { result, reason } => OutcomeView {
                    over: true,
                    result: result.pgn(),
                    winner: result.winner().map(side_name),
                    reason: Some(reason),
                },
            },
            engine: SettingsView {
                side: engine_side,
                level: st.default_player.level,
                movetime_ms: st.default_player.movetime_ms,
                depth: st.default_player.depth,
            },
            players: PlayersView {
                p1: st.players[0].as_ref().map(Player::view),
                p2: st.players[1].as_ref().map(Player::view),
            },
            engines: self.engines.clone(),
            thinking: st.player_thinking(),
            analysing: matches!(
                st.search,
                Some(Search {
                    role: Role::Analysis,
                    ..
                })
            ),
            analysis_mode: st.analysis.clone(),
            analysis: st.last_best.clone(),
            reports: ReportsView {
                p1: r1,
                p2: r2,
                analysis: ra,
            },
            evals,
            marks,
            review: self.review_view(st),
            loaded: st.loaded.as_ref().map(|l| l.view()),
            engine_error: st.engine_error.clone(),
            board: board_view(st.game.variant_name()),
            table: self.explore(st),
            silo_tables: self
                .explorer
                .as_ref()
                .map(|e| e.configs())
                .unwrap_or_default(),
        }
    }
}
