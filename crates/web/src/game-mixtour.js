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
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
}

export default {
  colours: ['ivory', 'red'],
  draw,
  stats: (pos, i) => [['in hand', pos.reserves[i]], ['score', pos.scores[i] + '/' + pos.goal]],
  pickCount: true,
  example: 'c3, a1b2, 2a1c3, pass',
};
