// Drawing helpers shared by the games' boards and the panels: SVG
// elements, a grid turned with the board, the clickable square with its
// highlights, a stack of discs seen from the side.

const SVG_NS = 'http://www.w3.org/2000/svg';
export const LETTERS = 'abcdefghijklmnopqrs';

export const $ = (id) => document.getElementById(id);

export function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function text(parent, x, y, cls, content) {
  const t = el('text', { x, y, class: cls }, parent);
  t.textContent = content;
  return t;
}

// A stack as the position string writes it, bottom first: `12` is a piece
// of player 1 under one of player 2 (the squares' `data-stack`).
export const digits = (stack) => stack.map((side) => side.slice(1)).join('');

// A board of `files` x `ranks` cells of `w` x `h` units, its top-left
// corner at (left, top); turned half a circle when `flip`.
export function grid(files, ranks, w, h, left, top, flip) {
  return {
    files, ranks, w, h, left, top,
    x: (file) => left + (flip ? files - 1 - file : file) * w,
    y: (rank) => top + (flip ? rank : ranks - 1 - rank) * h,
  };
}

// Files under the board and ranks left of it, each beside its own cells.
// The labels grow with the board (a 10 x 10 board is drawn at half the
// scale of a 5 x 5 one), up to what the margins hold: readable on a phone.
const COORD_PX = 16, COORD_MAX_PX = 26;

export function drawCoords(svg, geo, fileLabel, rankLabel) {
  const grow = Math.max(1, (Math.max(geo.files, geo.ranks) * Math.max(geo.w, geo.h)) / 500);
  const size = Math.min(COORD_MAX_PX, COORD_PX * grow) + 'px';
  for (let f = 0; f < geo.files; f++) {
    text(svg, geo.x(f) + geo.w / 2, geo.top + geo.ranks * geo.h + 16, 'coord', fileLabel(f)).style.fontSize = size;
  }
  if (!rankLabel) return;
  for (let r = 0; r < geo.ranks; r++) {
    text(svg, geo.left / 2, geo.y(r) + geo.h / 2, 'coord', rankLabel(r)).style.fontSize = size;
  }
}

// The clickable group of one square with its background cell and, if it
// was part of the last move, a highlight over the cell. `ctx` (from
// page.js): the highlights and what a click does.
export function squareGroup(svg, ctx, square, stack, x, y, w, h, cellClass) {
  const hl = ctx.hl;
  const classes = ['sq'];
  if (hl.last.has(square)) classes.push('last');
  if (hl.from === square) classes.push('selected');
  if (hl.targets.has(square)) classes.push('target');
  const g = el('g', { class: classes.join(' '), 'data-square': square, 'data-stack': digits(stack) }, svg);
  el('rect', { class: 'cell ' + (cellClass || ''), x, y, width: w, height: h }, g);
  if (hl.last.has(square)) el('rect', { class: 'last-mark', x, y, width: w, height: h }, g);
  g.addEventListener('click', (event) => {
    const depth = parseInt(event.target.getAttribute('data-depth') || '0', 10);
    ctx.clickSquare(square, depth);
  });
  return g;
}

// A stack seen from the side: one disc per piece, bottom first, the pieces
// the selection would take outlined. `dims`: disc width, height and gap.
export function drawStack(g, ctx, square, stack, cx, bottom, dims) {
  for (let i = 0; i < stack.length; i++) {
    const depth = stack.length - i;  // 1 = the top piece
    const taking = ctx.hl.from === square && depth <= ctx.hl.count;
    el('rect', {
      class: 'disc ' + stack[i] + (taking ? ' taking' : ''),
      x: cx - dims.w / 2,
      y: bottom - (i + 1) * (dims.h + dims.gap),
      width: dims.w, height: dims.h, rx: Math.min(dims.h / 2, 7),
      'data-depth': depth,
    }, g);
  }
}

// The selection and target marks, drawn over the pieces of a square.
export function drawMarks(g, hl, square, x, y, w, h, occupied) {
  const inset = Math.max(3, w / 20);
  const ring = { x: x + inset, y: y + inset, width: w - 2 * inset, height: h - 2 * inset, rx: inset * 1.5 };
  if (hl.from === square) el('rect', { class: 'select-ring', ...ring }, g);
  if (!hl.targets.has(square)) return;
  if (occupied) el('rect', { class: 'target-ring', ...ring }, g);
  else el('circle', { class: 'target-mark', cx: x + w / 2, cy: y + h / 2, r: Math.min(w, h) / 8 + 2 }, g);
}

export function setViewBox(svg, width, height, label) {
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('aria-label', label);
}

// Squares by rank and file, for drawings that walk the grid.
export function squaresByCell(pos) {
  const at = new Map();
  for (const s of pos.squares) at.set(s.file + ',' + s.rank, s);
  return (file, rank) => at.get(file + ',' + rank);
}
