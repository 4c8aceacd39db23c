// Castle's board: the 19 x 19 terrain (sent by the server as `board`), the
// skulls, the keys, and the knights.

import { LETTERS, drawCoords, drawMarks, el, grid, setViewBox, squareGroup } from './draw.js';

const TERRAIN = { '#': 'wall', C: 'channel', ':': 'courtyard', K: 'key', ',': 'middle', '.': 'ground' };
const CELL = 30;

function draw(svg, pos, ctx) {
  const geo = grid(19, 19, CELL, CELL, 30, 5, ctx.flip);
  setViewBox(svg, 30 + 19 * CELL + 6, 5 + 19 * CELL + 25, 'Castle board');
  const terrain = ctx.board.terrain;
  const keys = { [ctx.board.keys.p1]: 'p1', [ctx.board.keys.p2]: 'p2' };
  const skulls = new Set(pos.skulls);
  for (const { name, file, rank, stack } of pos.squares) {
    const [x, y] = [geo.x(file), geo.y(rank)];
    const kind = TERRAIN[terrain[18 - rank][file]] + (keys[name] ? ' key-' + keys[name] : '');
    const g = squareGroup(svg, ctx, name, stack, x, y, CELL, CELL, 't-' + kind);
    if (keys[name]) drawKey(g, x, y, keys[name]);
    if (skulls.has(name)) drawSkull(g, x, y);
    if (stack.length) drawKnight(g, x, y, stack[0], ctx.hl.from === name);
    drawMarks(g, ctx.hl, name, x, y, CELL, CELL, stack.length > 0);
  }
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
}

function drawKey(g, x, y, owner) {
  const k = el('g', { class: 'key-mark ' + owner, transform: `translate(${x + CELL / 2},${y + CELL / 2})` }, g);
  el('circle', { cx: -6, cy: 0, r: 5 }, k);
  el('path', { d: 'M-1 0 H11 M7 0 V5 M11 0 V5' }, k);
}

function drawSkull(g, x, y) {
  const s = el('g', { class: 'skull', transform: `translate(${x + CELL / 2},${y + CELL / 2})` }, g);
  el('path', { d: 'M-8 1 A8 8 0 1 1 8 1 L5 4 L5 8 L-5 8 L-5 4 Z' }, s);
  el('circle', { class: 'eye', cx: -3.2, cy: -1, r: 2.3 }, s);
  el('circle', { class: 'eye', cx: 3.2, cy: -1, r: 2.3 }, s);
}

// A knight: a token in its side's colour with a crest, outlined when picked.
function drawKnight(g, x, y, side, picked) {
  const cx = x + CELL / 2, cy = y + CELL / 2;
  el('circle', { class: 'knight ' + side + (picked ? ' taking' : ''), cx, cy, r: CELL * 0.38, 'data-depth': 1 }, g);
  el('path', { class: 'crest', d: `M${cx - 5} ${cy + 6} L${cx - 4} ${cy - 2} L${cx + 1} ${cy - 7} L${cx + 2} ${cy - 3} L${cx + 6} ${cy + 1} L${cx + 3} ${cy + 3} L${cx + 1} ${cy + 1} L${cx + 2} ${cy + 6} Z` }, g);
}

// The rules in short (docs/rules/castle.md has them whole).
const help = () => [
  'Each turn: move a knight like a rook over free squares, also along the walls; stepping onto or off a wall is one square. Landing on an enemy knight captures it. A knight never enters its own key square.',
  'Going through a channel into a castle, or across a skull in the middle, costs a pass; passes: how many are left.',
  'You win by standing on the enemy key or capturing every enemy knight; knights: how many you have.',
];

export default {
  colours: ['yellow', 'blue'],
  help,
  draw,
  stats: (pos, i) => [['knights', pos.knights[i]], ['passes', pos.passes[i]]],
  pickCount: false,
  example: 'j8j9, j9j11',
};
