// The games the page draws, one module each, by the name of their family
// (the variant name up to its dash); Focus is drawn as Coin Stack.

import castle from './game-castle.js';
import coinstack from './game-coinstack.js';
import mixtour from './game-mixtour.js';
import silo from './game-silo.js';

const GAMES = { mixtour, silo, coinstack, focus: coinstack, castle };

// The drawing of `variant`, or undefined for a game the page cannot draw.
export const gameOf = (variant) => GAMES[variant.split('-')[0]];

// The colour of `side` in `variant`, '' for a game the page cannot draw.
export function colourName(variant, side) {
  const game = gameOf(variant);
  return game ? game.colours[side === 'p1' ? 0 : 1] : '';
}
