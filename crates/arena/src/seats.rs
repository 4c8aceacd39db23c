//! The engines a worker keeps from game to game, for the match runner and
//! the tuner alike: a seat starts its engine when a game needs it, a
//! handshake that fails forfeits the game, and after the game only the
//! engines it left faulty are killed (to start again at the next game).

use super::config::{EngineSpec, Timeouts};
use super::referee::{forfeit_record, play_game, GameSetup, Played};
use super::ArenaError;
use stackfish_client::engine::{Engine, FaultKind, Logger, Spawner, StartError};

/// One engine process per seat, started on demand.
pub struct Seats<'a> {
    /// The engine each seat runs (the tuner seats one engine twice).
    specs: Vec<&'a EngineSpec>,
    variant: &'a str,
    timeouts: Timeouts,
    log: Logger,
    spawn: Spawner<'a>,
    engines: Vec<Option<Engine>>,
}

impl<'a> Seats<'a> {
    pub fn new(
        specs: Vec<&'a EngineSpec>,
        variant: &'a str,
        timeouts: Timeouts,
        log: Logger,
        spawn: Spawner<'a>,
    ) -> Self {
        let engines = specs.iter().map(|_| None).collect();
        Seats {
            specs,
            variant,
            timeouts,
            log,
            spawn,
            engines,
        }
    }

    /// Plays `setup` between the engines of `seats` (player 1's, player
    /// 2's), which [`Seats::start`] started; kills the engines the game
    /// left faulty and keeps the others for the next game.
    pub fn play(&mut self, seats: [usize; 2], setup: &GameSetup) -> Played {
        let (Some(mut e1), Some(mut e2)) =
            (self.engines[seats[0]].take(), self.engines[seats[1]].take())
        else {
            return stopped();
        };
        let played = play_game(setup, [&mut e1, &mut e2]);
        for (side, e) in [e1, e2].into_iter().enumerate() {
            if played.restart[side] {
                e.kill();
            } else {
                self.engines[seats[side]] = Some(e);
            }
        }
        played
    }

    /// Starts the engines of `seats` (player 1's, player 2's) that are not
    /// running, in player order, and hands each to `prepare`. `Some` when
    /// the game ends before it starts: an engine that fails its handshake
    /// forfeits it, a stop (Ctrl-C) during a handshake leaves no record.
    /// `Err` when an engine cannot be run at all: the run cannot go on.
    pub fn start(
        &mut self,
        seats: [usize; 2],
        setup: &GameSetup,
        prepare: &mut dyn FnMut(usize, &mut Engine),
    ) -> Result<Option<Played>, ArenaError> {
        for (side, seat) in seats.into_iter().enumerate() {
            if self.engines[seat].is_none() {
                let started = Engine::start(
                    self.specs[seat],
                    self.variant,
                    self.timeouts,
                    self.log.clone(),
                    setup.game,
                    self.spawn,
                );
                match started {
                    Ok(e) => self.engines[seat] = Some(e),
                    Err(StartError::Spawn(e)) => return Err(e.into()),
                    Err(StartError::Fault(f)) if f.kind == FaultKind::Interrupted => {
                        return Ok(Some(stopped()))
                    }
                    Err(StartError::Fault(f)) => {
                        let record = forfeit_record(setup, side, &f.text, setup.opening);
                        return Ok(Some(Played {
                            record: Some(record),
                            restart: [false; 2],
                        }));
                    }
                }
            }
            if let Some(e) = self.engines[seat].as_mut() {
                prepare(seat, e);
            }
        }
        Ok(None)
    }

    /// Ends every running engine with `quit`.
    pub fn quit(self) {
        for e in self.engines.into_iter().flatten() {
            e.quit();
        }
    }
}

/// A game the stop cut off: nothing to record, nothing to restart.
fn stopped() -> Played {
    Played {
        record: None,
        restart: [false; 2],
    }
}
