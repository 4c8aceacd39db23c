// Panel: the evaluation graph. One point per position of the line the
// engines have looked at, from player 1's side (up: player 1 is better),
// squashed so that +-4 pawns is most of the height; inaccuracies, mistakes
// and blunders marked on the position they led to; the position shown as
// a bar. A click goes to the position nearest to it.

import { $, el, text } from './draw.js';
import { goTo } from './page.js';
import { registerPanel, state } from './store.js';

const W = 400, H = 120, PAD = 6;
// Centi-units at which the curve reaches 76% of the half-height.
const SCALE_CP = 400;

const clampedCp = (e) => (e.mate !== null && e.mate !== undefined ? (e.mate > 0 ? 1000 : -1000) : Math.max(-1000, Math.min(1000, e.cp)));
const yOf = (e) => H / 2 - Math.tanh(clampedCp(e) / SCALE_CP) * (H / 2 - PAD);

// The scale: faint lines at these pawns (100 centi-units) either way,
// labelled on the right.
const TICKS_CP = [100, 300];

let total = 0;
const xOf = (ply) => PAD + (total === 0 ? 0 : ply * (W - 2 * PAD) / total);

function render(state) {
  const svg = $('graph');
  svg.replaceChildren();
  total = state.moves.length + state.future.length;
  el('rect', { class: 'graph-bg', x: 0, y: 0, width: W, height: H }, svg);
  el('line', { class: 'graph-zero', x1: 0, y1: H / 2, x2: W, y2: H / 2 }, svg);
  for (const cp of TICKS_CP.flatMap((t) => [t, -t])) {
    const y = yOf({ cp });
    el('line', { class: 'graph-tick', x1: 0, y1: y, x2: W, y2: y }, svg);
    text(svg, W - 2, y, 'graph-label graph-scale', (cp > 0 ? '+' : '') + cp / 100);
  }
  text(svg, W - 2, H / 2, 'graph-label graph-scale', '0');
  text(svg, PAD, PAD + 4, 'graph-label graph-side', 'player 1 better');
  text(svg, PAD, H - PAD - 2, 'graph-label graph-side', 'player 2 better');
  text(svg, W / 2, H - PAD - 2, 'graph-label graph-moves', total + (total === 1 ? ' move' : ' moves'));
  const points = state.evals.map((e, ply) => (e ? { ply, x: xOf(ply), y: yOf(e) } : null)).filter(Boolean);
  svg.dataset.points = points.length;
  if (points.length > 1) {
    const path = points.map((p) => p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' ');
    el('polygon', { class: 'graph-area', points: `${points[0].x},${H / 2} ${path} ${points[points.length - 1].x},${H / 2}` }, svg);
    el('polyline', { class: 'graph-line', points: path }, svg);
  }
  const cursor = xOf(state.moves.length);
  el('line', { class: 'graph-cursor', x1: cursor, y1: 0, x2: cursor, y2: H }, svg);
  for (const p of points) {
    const mark = p.ply > 0 ? state.marks[p.ply - 1] : null;
    const c = el('circle', { class: 'graph-point' + (mark ? ' ' + mark : ''), cx: p.x, cy: p.y, r: mark ? 4 : 2.5, 'data-ply': p.ply }, svg);
    const t = el('title', {}, c);
    t.textContent = 'after ' + p.ply + ' moves';
  }
}

// A click anywhere goes to the nearest position of the line.
$('graph').addEventListener('click', (event) => {
  if (!state) return;
  const svg = $('graph');
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  const ctm = svg.getScreenCTM();
  if (!ctm) return;
  const x = pt.matrixTransform(ctm.inverse()).x;
  const ply = total === 0 ? 0 : Math.round((x - PAD) / ((W - 2 * PAD) / total));
  goTo(Math.max(0, Math.min(total, ply)));
});

registerPanel({ render });
