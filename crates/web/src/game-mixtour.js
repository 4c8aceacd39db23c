// Mixtour's board: R x C squares (5 x 5 by default), stacks of discs with
// their height in the corner; holes drawn as not-board.

import { LETTERS, drawCoords, drawMarks, drawStack, el, grid, setViewBox, squareGroup, squaresByCell, text } from './draw.js';

function draw(svg, pos, ctx) {
  const geo = grid(pos.files, pos.ranks, 100, 100, 30, 5, ctx.flip);
  setViewBox(svg, 30 + pos.files * 100 + 10, 5 + pos.ranks * 100 + 35, 'Mixtour board');
  const dims = { w: 64, h: 15, gap: 2 };
  const holes = new Set(pos.holes);
  const at = squaresByCell(pos);
  for (let rank = 0; rank < pos.ranks; rank++) {
    for (let file = 0; file < pos.files; file++) {
      const [x, y] = [geo.x(file), geo.y(rank)];
      const square = at(file, rank);
      if (!square) {
        const name = LETTERS[file] + (rank + 1);
        if (holes.has(name)) el('rect', { class: 'hole', x: x + 2, y: y + 2, width: 96, height: 96, 'data-hole': name }, svg);
        continue;
      }
      const { name, stack } = square;
      const g = squareGroup(svg, ctx, name, stack, x, y, 100, 100, 'wood');
      drawStack(g, ctx, name, stack, x + 50, y + 100 - 12, dims);
      if (stack.length) text(g, x + 7, y + 19, 'height', stack.length);
      drawMarks(g, ctx.hl, name, x, y, 100, 100, stack.length > 0);
    }
  }
  drawTower(svg, pos, geo);
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
}

// The tower the last move made and the rules took off the board (the
// server's `tower`), drawn faded on its square with its owner's point:
// after a win, the winning tower stays in sight.
function drawTower(svg, pos, geo) {
  const square = pos.tower && pos.last && pos.squares.find((s) => s.name === pos.last.to);
  if (!square) return;
  const [x, y] = [geo.x(square.file), geo.y(square.rank)];
  const g = el('g', { class: 'won-tower', 'data-square': square.name }, svg);
  const h = Math.min(15, 80 / pos.tower.length - 2);
  pos.tower.forEach((side, i) => {
    el('rect', { class: 'tower-disc ' + side, x: x + 18, y: y + 100 - 12 - (i + 1) * (h + 2), width: 64, height: h, rx: Math.min(h / 2, 7) }, g);
  });
  const t = el('title', {}, g);
  t.textContent = 'This tower of ' + pos.tower.length + ' left the board: a point for player ' + pos.tower.at(-1).slice(1);
}

// The rules in short (docs/rules/mixtour.md has them whole).
const help = (variant) => [
  'Each turn: enter a piece from your hand on an empty square, or move the top pieces of any stack (whoever owns them) in a straight line onto another stack exactly as far away as that stack is high, over empty squares only. Pass only when nothing else is legal.',
  'You may not move back the pieces your opponent just moved (the same count from where they landed to where they came from).',
  'A stack of five or more leaves the board at once: its pieces go back to their owners\' hands and the owner of the top piece scores a point.',
  'In hand: pieces you can still enter. Score: your points and the goal (' + (variant === 'mixtour-5' ? 5 : 1) + ' in this game); reaching the goal wins.',
];

export default {
  colours: ['ivory', 'red'],
  help,
  draw,
  stats: (pos, i) => [['in hand', pos.reserves[i]], ['score', pos.scores[i] + '/' + pos.goal]],
  pickCount: true,
  example: 'c3, a1b2, 2a1c3, pass',
};
