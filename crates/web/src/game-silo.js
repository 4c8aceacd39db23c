// Silo's row: upright silos, each stack's checkers from the bottom up, the
// players' directions written under the row.

import { LETTERS, drawCoords, drawMarks, drawStack, grid, setViewBox, squareGroup, text } from './draw.js';

const COLOURS = ['red', 'blue'];

function draw(svg, pos, ctx) {
  const colW = pos.files > 6 ? 72 : 88;
  const tubeH = 400;
  const geo = grid(pos.files, 1, colW, tubeH, 12, 8, ctx.flip);
  const width = 24 + pos.files * colW;
  setViewBox(svg, width, tubeH + 70, 'Silo row');
  const pieces = pos.squares.reduce((n, s) => n + s.stack.length, 0);
  const discH = Math.min(24, (tubeH - 34) / Math.max(pieces, 1) - 2);
  const dims = { w: colW - 26, h: discH, gap: 2 };
  for (const { name, file, stack } of pos.squares) {
    const x = geo.x(file);
    const g = squareGroup(svg, ctx, name, stack, x + 4, 8, colW - 8, tubeH, 'silo');
    drawStack(g, ctx, name, stack, x + colW / 2, 8 + tubeH - 6, dims);
    if (stack.length) text(g, x + colW / 2, 26, 'height centred', stack.length);
    drawMarks(g, ctx.hl, name, x + 4, 8, colW - 8, tubeH, stack.length > 0);
  }
  drawCoords(svg, geo, (f) => LETTERS[f]);
  // Each player's direction, written on the side it starts from.
  const [p1, p2] = COLOURS.map((c) => c[0].toUpperCase() + c.slice(1));
  const [left, right] = ctx.flip ? [`${p2} moves →`, `← ${p1} moves`] : [`${p1} moves →`, `← ${p2} moves`];
  text(svg, 12, tubeH + 56, 'note-text', left);
  text(svg, width - 12, tubeH + 56, 'note-text end', right);
}

// The rules in short (docs/rules/silo.md has them whole).
const help = () => [
  'Each turn: pick a square holding one of your checkers; your highest checker there and everything above it moves onto the neighbouring square in your direction (player 1 to the right, player 2 to the left).',
  'A player who cannot move passes. You win when all your checkers are in one stack as one unbroken run (your opponent\'s checkers may lie below or above it, not inside).',
];

export default {
  colours: COLOURS,
  help,
  draw,
  stats: (pos, i) => [['moves', i === 0 ? 'a → ' + LETTERS[pos.files - 1] : LETTERS[pos.files - 1] + ' → a']],
  pickCount: false,
  example: 'c (the square to move from), pass',
};
