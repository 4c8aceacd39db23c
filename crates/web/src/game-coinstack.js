// Coin Stack's and Focus's board: the 52 squares with their stacks, each
// player's reserve (click it to drop) and captures beside the board.

import { LETTERS, drawCoords, drawMarks, drawStack, el, grid, setViewBox, squareGroup, text } from './draw.js';

const COLOURS = ['red', 'green'];
const CELL = 62;

function draw(svg, pos, ctx) {
  const geo = grid(8, 8, CELL, CELL, 30, 5, ctx.flip);
  setViewBox(svg, 690, 5 + 8 * CELL + 25, ctx.variant + ' board');
  const dims = { w: 46, h: 10, gap: 1 };
  for (const { name, file, rank, stack } of pos.squares) {
    const [x, y] = [geo.x(file), geo.y(rank)];
    const g = squareGroup(svg, ctx, name, stack, x, y, CELL, CELL, (file + rank) % 2 ? 'light' : 'dark');
    drawStack(g, ctx, name, stack, x + CELL / 2 + 4, y + CELL - 3, dims);
    if (stack.length) text(g, x + 3, y + 13, 'height small', stack.length);
    drawMarks(g, ctx.hl, name, x, y, CELL, CELL, stack.length > 0);
  }
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
  const [top, bottom] = ctx.flip ? ['p1', 'p2'] : ['p2', 'p1'];
  drawReserve(svg, pos, ctx, top, 30 + 8 * CELL + 10, 5);
  drawReserve(svg, pos, ctx, bottom, 30 + 8 * CELL + 10, 5 + 4 * CELL + 4);
}

// One player's reserve pile and the coins they captured, in a box.
function drawReserve(svg, pos, ctx, side, x, y) {
  const i = side === 'p1' ? 0 : 1;
  const [w, h] = [146, 4 * CELL - 4];
  const canDrop = ctx.canDrop(side);
  const chosen = canDrop && ctx.hl.drop;
  const g = el('g', { class: 'reserve' + (canDrop ? ' can-drop' : '') + (chosen ? ' selected' : ''), 'data-side': side }, svg);
  el('rect', { class: 'reserve-box', x, y, width: w, height: h, rx: 8 }, g);
  text(g, x + w / 2, y + 18, 'reserve-title', 'Player ' + (i + 1) + ' · ' + COLOURS[i]);
  text(g, x + 10, y + 42, 'reserve-label', 'Reserve ' + pos.reserves[i]);
  pile(g, side, pos.reserves[i], x + 12, y + 52, 'rdisc');
  const goal = pos.capture_goal;
  text(g, x + 10, y + 150, 'reserve-label', 'Captured ' + pos.captured[i] + (goal ? ' / ' + goal : ''));
  pile(g, side === 'p1' ? 'p2' : 'p1', pos.captured[i], x + 12, y + 160, 'rdisc captured');
  if (canDrop) text(g, x + w / 2, y + h - 10, 'reserve-hint', chosen ? 'click a square' : 'click to drop');
  g.addEventListener('click', () => ctx.clickReserve(side));
}

// `n` small coins of `side` in rows of six.
function pile(g, side, n, x, y, cls) {
  for (let k = 0; k < n; k++) {
    el('circle', { class: cls + ' ' + side, cx: x + 10 + (k % 6) * 20, cy: y + 10 + Math.floor(k / 6) * 20, r: 8 }, g);
  }
}

// The rules in short (docs/rules/coinstack.md has them whole); Focus and
// Coin Stack differ in the direction of moves and the capture win.
const help = (variant) => [
  'Each turn: move the top coins of a stack with your coin on top, as many squares as coins you take, in a straight line (' + (variant === 'focus' ? 'along a rank or a file' : 'diagonally') + '), onto any square; or drop a coin from your reserve on any square.',
  'A stack higher than five loses coins from its bottom: yours go to your reserve, your opponent\'s are captured.',
  variant === 'focus'
    ? 'Reserve: coins you can drop. Captured: your opponent\'s coins you took. You win when your opponent cannot move or drop.'
    : 'Reserve: coins you can drop. Captured: your opponent\'s coins you took; nine captured win at once, as does leaving your opponent without a move or a drop.',
];

export default {
  colours: COLOURS,
  help,
  draw,
  stats: (pos, i) => [['reserve', pos.reserves[i]], ['captured', pos.captured[i] + (pos.capture_goal ? '/' + pos.capture_goal : '')]],
  pickCount: true,
  example: 'c3d4 (a move), d4 (a drop)',
};
