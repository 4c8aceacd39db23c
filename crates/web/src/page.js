// The stackfish board page, core: the connection to the server (a stream
// of states, server-sent events), the board of each game, clicks turned
// into moves, the players and the position string. The panels beside the
// board are files of their own (panel-*.js), each registered with
// `registerPanel` and redrawn with every state. The server decides every
// rule; the page only reads its list of legal moves.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const LETTERS = 'abcdefghijklmnopqrs';
// Without a state from the server for this long, ask for one (the stream
// may have been cut by a proxy or a sleeping laptop).
const STALE_MS = 20000;
const REASONS = {
  'goal reached': 'reached the goal',
  'double pass': 'both players had to pass',
  'threefold repetition': 'the same position occurred a third time',
  'one unbroken run': 'all their checkers stand in one unbroken run',
  'nine coins captured': 'captured nine coins',
  'no legal action': 'the other side had no legal action',
  'enemy key taken': 'took the enemy key',
  'last knight captured': 'captured the last enemy knight',
  'no legal move': 'the other side had no legal move',
  'ply 400 reached': '400 plies were played (decided by knights, then passes)',
};

const $ = (id) => document.getElementById(id);
let state = null;
// The position and legal moves of `state`, read once per answer.
let current = null;
// What the player picked: a stack to move from, { from, counts, count }, or
// the reserve to drop from, { drop: true }.
let selected = null;
// The panels: { render(state) } each, in the order they registered.
const panels = [];
function registerPanel(panel) {
  panels.push(panel);
  if (state) panel.render(state);
}
// When each engine line reached the page, by its server time: the
// end-to-end test reads the delays from here.
const lineDelays = [];
const seenLines = new Set();
// The Flip button turns the board from the side it would be seen from.
let flipToggled = false;

// ---- talking to the server -------------------------------------------

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
  let response, data;
  try {
    response = await fetch(path, options);
    data = await response.json();
  } catch (e) {
    showMessage('The server does not answer (' + e.message + '). Is stackfish serve still running?');
    return null;
  }
  if (!response.ok) {
    showMessage(data && data.error ? data.error : 'Error ' + response.status);
    return null;
  }
  if (body !== undefined) showMessage('');
  // An event may already have brought a newer state.
  if (!state || data.version >= state.version) update(data);
  return data;
}

const post = (path, body) => api(path, body || {});

// The state as it changes: one event per change, merged by the server
// when they come faster than the page reads.
let lastEvent = 0;
function connect() {
  const events = new EventSource('/api/events');
  events.addEventListener('state', (event) => {
    lastEvent = Date.now();
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (e) {
      showMessage('A bad state came from the server: ' + e.message);
      return;
    }
    if ($('message').dataset.lost) { $('message').dataset.lost = ''; showMessage(''); }
    // Answers to our own requests may be newer than an event in flight.
    if (!state || data.version >= state.version) update(data);
  });
  events.addEventListener('error', () => {
    // EventSource reconnects by itself.
    $('message').dataset.lost = '1';
    showMessage('Lost the connection to the server; reconnecting…');
  });
  setInterval(() => { if (Date.now() - lastEvent > STALE_MS) api('/api/state'); }, STALE_MS);
}

// Notes how late every engine line arrived, once per line.
function noteDelays(data) {
  const now = Date.now();
  for (const report of Object.values(data.reports || {})) {
    if (!report) continue;
    for (const line of report.lines) {
      const key = report.engine + '/' + report.ply + '/' + line.multipv + '/' + line.at_ms + '/' + line.depth;
      if (seenLines.has(key)) continue;
      seenLines.add(key);
      lineDelays.push(now - line.at_ms);
    }
  }
}

// ---- reading positions and moves ---------------------------------------

const squareName = (file, rank) => LETTERS[file] + (rank + 1);
const opponent = (side) => (side === 'p1' ? 'p2' : 'p1');
const sideIndex = (side) => (side === 'p1' ? 0 : 1);

// One rank of a position string: cells separated by ',', `x` / `xN` for
// empty cells, `#` / `#N` for holes (not part of the board). Returns
// `width` cells: '' for empty, '#' for a hole, else the stack.
function readRank(text, width) {
  const cells = [];
  for (const cell of text.split(',')) {
    if (cell.startsWith('x') || cell.startsWith('#')) {
      const n = cell.length > 1 ? parseInt(cell.slice(1), 10) : 1;
      for (let k = 0; k < n; k++) cells.push(cell[0] === 'x' ? '' : '#');
    } else {
      cells.push(cell);
    }
  }
  return cells.slice(0, width);
}

// How many cells a rank has (holes included).
const rankWidth = (text) => readRank(text, Infinity).length;

// Ranks from the top down, each cell on the board named by `files(rank)`:
// the files of that rank (all of them, or fewer on a cut board).
function readBoard(text, ranks, files) {
  const stacks = {};
  text.split('/').forEach((row, i) => {
    const rank = ranks - 1 - i;
    const onRank = files(rank);
    readRank(row, onRank.length).forEach((cell, k) => { stacks[squareName(onRank[k], rank)] = cell; });
  });
  return stacks;
}

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// Move text of the games on a grid: `c3` (an entry or a drop), `2a1c3` or
// `j9j11` (a move, the count optional), `pass`.
function gridMove(text) {
  if (text === 'pass') return { kind: 'pass' };
  const m = /^(\d?)([a-s]\d{1,2})([a-s]\d{1,2})$/.exec(text);
  if (m) return { kind: 'move', count: m[1] ? parseInt(m[1], 10) : 1, from: m[2], to: m[3] };
  if (/^[a-s]\d{1,2}$/.test(text)) return { kind: 'place', to: text };
  return { kind: 'unknown' };
}

const fileOf = (square) => LETTERS.indexOf(square[0]);
const rankOf = (square) => parseInt(square.slice(1), 10) - 1;

// Mixtour: `board side reserves scores goal last`. The board is R ranks of
// C cells, 5 x 5 on the standard board; holes are not squares.
function parseMixtour(fen) {
  const [board, side, reserves, scores, goal, last] = fen.split(' ');
  const rows = board.split('/');
  const files = Math.max(...rows.map(rankWidth));
  const all = readBoard(board, rows.length, () => range(0, files - 1));
  const stacks = {};
  const holes = new Set();
  for (const [square, cell] of Object.entries(all)) {
    if (cell === '#') holes.add(square);
    else stacks[square] = cell;
  }
  return {
    ranks: rows.length,
    files,
    holes,
    stacks,
    side,
    reserves: reserves.split(','),
    scores: scores.split(','),
    goal,
    last: last === '-' ? null : last,
  };
}

// Silo: `a/b/c/... side`, every square of the row bottom to top.
function parseSilo(fen) {
  const [row, side] = fen.split(' ');
  const cells = row.split('/');
  const stacks = {};
  cells.forEach((cell, i) => { stacks[LETTERS[i]] = cell === 'x' ? '' : cell; });
  return { stacks, side, files: cells.length, pieces: row.replace(/[^12]/g, '').length };
}

// A Silo move is its source square; the mover takes its highest checker and
// everything above it one square on, towards higher files for player 1.
function siloMove(text, pos, mover) {
  if (text === 'pass') return { kind: 'pass' };
  const step = mover === 'p1' ? 1 : -1;
  const to = LETTERS[LETTERS.indexOf(text) + step];
  const stack = pos.stacks[text] || '';
  const count = stack.length - stack.lastIndexOf(mover === 'p1' ? '1' : '2');
  return { kind: 'move', from: text, to, count };
}

// The 52 squares of Coin Stack and Focus: ranks 1 and 8 have c..f, ranks 2
// and 7 b..g, the others a..h.
function coinFiles(rank) {
  const cut = rank === 0 || rank === 7 ? 2 : rank === 1 || rank === 6 ? 1 : 0;
  return range(cut, 7 - cut);
}

// Coin Stack: `board side reserves captured`.
function parseCoinStack(fen) {
  const [board, side, reserves, captured] = fen.split(' ');
  return {
    stacks: readBoard(board, 8, coinFiles),
    side,
    reserves: reserves.split(',').map(Number),
    captured: captured.split(',').map(Number),
  };
}

// A drop is a square; a move of n coins goes n squares, so n is its length.
function coinMove(text) {
  const m = gridMove(text);
  if (m.kind === 'place') return { kind: 'drop', to: m.to };
  if (m.kind === 'move') {
    m.count = Math.max(Math.abs(fileOf(m.to) - fileOf(m.from)), Math.abs(rankOf(m.to) - rankOf(m.from)));
  }
  return m;
}

// Castle: `board side passes skulls ply`; the terrain comes in `state.board`.
function parseCastle(fen) {
  const [board, side, passes, skulls, ply] = fen.split(' ');
  const stacks = readBoard(board, 19, () => range(0, 18));
  const pieces = Object.values(stacks).join('');
  return {
    stacks,
    side,
    passes: passes.split(',').map(Number),
    skulls: new Set(skulls === '-' ? [] : skulls.split(',')),
    ply: Number(ply),
    knights: [pieces.split('1').length - 1, pieces.split('2').length - 1],
  };
}

// ---- the games the page draws --------------------------------------------

// Per game: its colours' names, how to read its position and move texts,
// how to draw it, what to show beside each player's name, and whether the
// player picks how many pieces to move.
const GAMES = {
  mixtour: {
    colours: ['ivory', 'red'],
    parse: parseMixtour,
    move: gridMove,
    draw: drawMixtour,
    stats: (pos, i) => [['in hand', pos.reserves[i]], ['score', pos.scores[i] + '/' + pos.goal]],
    pickCount: true,
    example: 'c3, a1b2, 2a1c3, pass',
  },
  silo: {
    colours: ['red', 'blue'],
    parse: parseSilo,
    move: siloMove,
    draw: drawSilo,
    stats: (pos, i) => [['moves', i === 0 ? 'a → ' + LETTERS[pos.files - 1] : LETTERS[pos.files - 1] + ' → a']],
    pickCount: false,
    example: 'c (the square to move from), pass',
  },
  coinstack: {
    colours: ['red', 'green'],
    parse: parseCoinStack,
    move: coinMove,
    draw: drawCoinStack,
    stats: (pos, i) => [['reserve', pos.reserves[i]], ['captured', pos.captured[i] + (captureGoal() ? '/' + captureGoal() : '')]],
    pickCount: true,
    example: 'c3d4 (a move), d4 (a drop)',
  },
  castle: {
    colours: ['yellow', 'blue'],
    parse: parseCastle,
    move: gridMove,
    draw: drawCastle,
    stats: (pos, i) => [['knights', pos.knights[i]], ['passes', pos.passes[i]]],
    pickCount: false,
    example: 'j8j9, j9j11',
  },
};
GAMES.focus = GAMES.coinstack;

const familyOf = (variant) => variant.split('-')[0];
const gameOf = (variant) => GAMES[familyOf(variant)];
const captureGoal = () => (state.variant === 'coinstack' ? 9 : null);

// The position and the parsed legal moves of the state just received.
function readState() {
  const game = gameOf(state.variant);
  if (!game) return null;
  const pos = game.parse(state.fen);
  const moves = state.legal_moves.map((text) => ({ text, ...game.move(text, pos, state.side_to_move) }));
  // After a loaded FEN a Mixtour last move is only in the position string.
  const lastText = state.last_move || pos.last || '';
  const last = lastText ? game.move(lastText, pos, opponent(state.side_to_move)) : { kind: 'none' };
  return { game, pos, moves, last };
}

function legal() {
  return current ? current.moves : [];
}

function humanCanMove() {
  return state && !state.thinking && !state.outcome.over;
}

// Seen from player 2's side when only player 1 is an engine, unless flipped.
function flipped() {
  const p = state.players;
  return (Boolean(p.p1) && !p.p2) !== flipToggled;
}

function colourName(side) {
  const game = gameOf(state.variant);
  return game ? game.colours[sideIndex(side)] : '';
}

// 'You' for the human when one side is an engine, the engine's name for
// an engine, 'Player N' otherwise.
function playerName(side) {
  const num = side === 'p1' ? 'Player 1' : 'Player 2';
  const engine = state.players[side];
  if (engine) return engine.engine;
  return state.players[opponent(side)] ? 'You' : num;
}

const sideLabel = (side) => (side === 'p1' ? 'player 1' : 'player 2');


// ---- acting on clicks --------------------------------------------------

function clickSquare(square, depth) {
  if (!humanCanMove()) return;
  const moves = legal();
  if (selected && selected.drop) {
    const drop = moves.find((m) => m.kind === 'drop' && m.to === square);
    if (drop) {
      play(drop.text);
      return;
    }
    selected = null;
  }
  if (selected) {
    if (square === selected.from) {
      // A click on a piece of the chosen stack picks how many to take.
      if (depth && selected.counts.includes(depth) && depth !== selected.count) {
        selected.count = depth;
      } else {
        selected = null;
      }
      render();
      return;
    }
    const move = moves.find((m) => m.kind === 'move' && m.from === selected.from
      && m.to === square && m.count === selected.count);
    if (move) {
      play(move.text);
      return;
    }
  }
  const place = moves.find((m) => m.kind === 'place' && m.to === square);
  if (place) {
    play(place.text);
    return;
  }
  const from = moves.filter((m) => m.kind === 'move' && m.from === square);
  if (from.length > 0) {
    const counts = [...new Set(from.map((m) => m.count))].sort((a, b) => a - b);
    selected = { from: square, counts, count: counts[0] };
    showMessage('');
  } else {
    selected = null;
    const occupied = current.pos.stacks[square];
    const enters = moves.some((m) => m.kind === 'place');
    showMessage(occupied || !enters ? 'No legal move from ' + square + '.' : 'You cannot enter a piece on ' + square + '.');
  }
  render();
}

// A click on a reserve: drop one of its coins next.
function clickReserve(side) {
  if (!humanCanMove() || side !== state.side_to_move) return;
  if (selected && selected.drop) {
    selected = null;
  } else if (legal().some((m) => m.kind === 'drop')) {
    selected = { drop: true };
    showMessage('');
  } else {
    showMessage('No coin in reserve to drop.');
  }
  render();
}

async function play(text) {
  selected = null;
  await post('/api/move', { move: text });
}

// ---- drawing helpers shared by the games ---------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, cls, content) {
  const t = el('text', { x, y, class: cls }, parent);
  t.textContent = content;
  return t;
}

// What every square's drawing needs to know: the last move's squares, the
// selected source, the legal targets of the selection.
function highlights() {
  const last = current.last;
  const lastSquares = new Set(last.kind === 'move' ? [last.from, last.to]
    : last.kind === 'place' || last.kind === 'drop' ? [last.to] : []);
  const targets = new Set();
  if (selected && humanCanMove()) {
    for (const m of legal()) {
      if (selected.drop ? m.kind === 'drop'
        : m.kind === 'move' && m.from === selected.from && m.count === selected.count) targets.add(m.to);
    }
  }
  return { last: lastSquares, targets, from: selected && humanCanMove() ? selected.from : null };
}

// A board of `files` x `ranks` cells of `w` x `h` units, its top-left
// corner at (left, top); turned half a circle when flipped.
function grid(files, ranks, w, h, left, top) {
  const flip = flipped();
  return {
    files, ranks, w, h, left, top,
    x: (file) => left + (flip ? files - 1 - file : file) * w,
    y: (rank) => top + (flip ? rank : ranks - 1 - rank) * h,
  };
}

// Files under the board and ranks left of it, each beside its own cells.
function drawCoords(svg, geo, fileLabel, rankLabel) {
  for (let f = 0; f < geo.files; f++) {
    text(svg, geo.x(f) + geo.w / 2, geo.top + geo.ranks * geo.h + 16, 'coord', fileLabel(f));
  }
  if (!rankLabel) return;
  for (let r = 0; r < geo.ranks; r++) {
    text(svg, geo.left / 2, geo.y(r) + geo.h / 2, 'coord', rankLabel(r));
  }
}

// The clickable group of one square with its background cell and, if it
// was part of the last move, a highlight over the cell.
function squareGroup(svg, hl, square, stack, x, y, w, h, cellClass) {
  const classes = ['sq'];
  if (hl.last.has(square)) classes.push('last');
  if (hl.from === square) classes.push('selected');
  if (hl.targets.has(square)) classes.push('target');
  const g = el('g', { class: classes.join(' '), 'data-square': square, 'data-stack': stack }, svg);
  el('rect', { class: 'cell ' + (cellClass || ''), x, y, width: w, height: h }, g);
  if (hl.last.has(square)) el('rect', { class: 'last-mark', x, y, width: w, height: h }, g);
  g.addEventListener('click', (event) => {
    const depth = parseInt(event.target.getAttribute('data-depth') || '0', 10);
    clickSquare(square, depth);
  });
  return g;
}

// A stack seen from the side: one disc per piece, bottom first, the pieces
// the selection would take outlined. `dims`: disc width, height and gap.
function drawStack(g, hl, square, stack, cx, bottom, dims) {
  for (let i = 0; i < stack.length; i++) {
    const depth = stack.length - i;  // 1 = the top piece
    const taking = hl.from === square && selected && depth <= selected.count;
    el('rect', {
      class: 'disc p' + stack[i] + (taking ? ' taking' : ''),
      x: cx - dims.w / 2,
      y: bottom - (i + 1) * (dims.h + dims.gap),
      width: dims.w, height: dims.h, rx: Math.min(dims.h / 2, 7),
      'data-depth': depth,
    }, g);
  }
}

// The selection and target marks, drawn over the pieces of a square.
function drawMarks(g, hl, square, x, y, w, h, occupied) {
  const inset = Math.max(3, w / 20);
  const ring = { x: x + inset, y: y + inset, width: w - 2 * inset, height: h - 2 * inset, rx: inset * 1.5 };
  if (hl.from === square) el('rect', { class: 'select-ring', ...ring }, g);
  if (!hl.targets.has(square)) return;
  if (occupied) el('rect', { class: 'target-ring', ...ring }, g);
  else el('circle', { class: 'target-mark', cx: x + w / 2, cy: y + h / 2, r: Math.min(w, h) / 8 + 2 }, g);
}

function setViewBox(svg, width, height, label) {
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('aria-label', label);
}

// ---- one drawing per game ------------------------------------------------

// Mixtour: R x C squares (5 x 5 by default), stacks of discs with their
// height in the corner; holes drawn as not-board.
function drawMixtour(svg, pos, hl) {
  const geo = grid(pos.files, pos.ranks, 100, 100, 30, 5);
  setViewBox(svg, 30 + pos.files * 100 + 10, 5 + pos.ranks * 100 + 35, 'Mixtour board');
  const dims = { w: 64, h: 15, gap: 2 };
  for (let rank = 0; rank < pos.ranks; rank++) {
    for (let file = 0; file < pos.files; file++) {
      const square = squareName(file, rank);
      const [x, y] = [geo.x(file), geo.y(rank)];
      if (pos.holes.has(square)) {
        el('rect', { class: 'hole', x: x + 2, y: y + 2, width: 96, height: 96, 'data-hole': square }, svg);
        continue;
      }
      const stack = pos.stacks[square];
      const g = squareGroup(svg, hl, square, stack, x, y, 100, 100, 'wood');
      drawStack(g, hl, square, stack, x + 50, y + 100 - 12, dims);
      if (stack) text(g, x + 7, y + 19, 'height', stack.length);
      drawMarks(g, hl, square, x, y, 100, 100, stack !== '');
    }
  }
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
}

// Silo: the row as upright silos, each stack's checkers from the bottom up;
// the players' directions under the row.
function drawSilo(svg, pos, hl) {
  const colW = pos.files > 6 ? 72 : 88;
  const tubeH = 400;
  const geo = grid(pos.files, 1, colW, tubeH, 12, 8);
  const width = 24 + pos.files * colW;
  setViewBox(svg, width, tubeH + 70, 'Silo row');
  const discH = Math.min(24, (tubeH - 34) / Math.max(pos.pieces, 1) - 2);
  const dims = { w: colW - 26, h: discH, gap: 2 };
  for (let file = 0; file < pos.files; file++) {
    const square = LETTERS[file];
    const stack = pos.stacks[square];
    const x = geo.x(file);
    const g = squareGroup(svg, hl, square, stack, x + 4, 8, colW - 8, tubeH, 'silo');
    drawStack(g, hl, square, stack, x + colW / 2, 8 + tubeH - 6, dims);
    if (stack) text(g, x + colW / 2, 26, 'height centred', stack.length);
    drawMarks(g, hl, square, x + 4, 8, colW - 8, tubeH, stack !== '');
  }
  drawCoords(svg, geo, (f) => LETTERS[f]);
  // Each player's direction, written on the side it starts from.
  const [p1, p2] = GAMES.silo.colours.map((c) => c[0].toUpperCase() + c.slice(1));
  const [left, right] = flipped() ? [`${p2} moves →`, `← ${p1} moves`] : [`${p1} moves →`, `← ${p2} moves`];
  text(svg, 12, tubeH + 56, 'note-text', left);
  text(svg, width - 12, tubeH + 56, 'note-text end', right);
}

// Coin Stack and Focus: the 52 squares with their stacks, each player's
// reserve (click it to drop) and captures beside the board.
function drawCoinStack(svg, pos, hl) {
  const cell = 62;
  const geo = grid(8, 8, cell, cell, 30, 5);
  setViewBox(svg, 690, 5 + 8 * cell + 25, state.variant + ' board');
  const dims = { w: 46, h: 10, gap: 1 };
  for (let rank = 0; rank < 8; rank++) {
    for (const file of coinFiles(rank)) {
      const square = squareName(file, rank);
      const stack = pos.stacks[square];
      const [x, y] = [geo.x(file), geo.y(rank)];
      const g = squareGroup(svg, hl, square, stack, x, y, cell, cell, (file + rank) % 2 ? 'light' : 'dark');
      drawStack(g, hl, square, stack, x + cell / 2 + 4, y + cell - 3, dims);
      if (stack) text(g, x + 3, y + 13, 'height small', stack.length);
      drawMarks(g, hl, square, x, y, cell, cell, stack !== '');
    }
  }
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
  const [top, bottom] = flipped() ? ['p1', 'p2'] : ['p2', 'p1'];
  drawReserve(svg, pos, top, 30 + 8 * cell + 10, 5);
  drawReserve(svg, pos, bottom, 30 + 8 * cell + 10, 5 + 4 * cell + 4);
}

// One player's reserve pile and the coins they captured, in a box.
function drawReserve(svg, pos, side, x, y) {
  const i = sideIndex(side);
  const [w, h] = [146, 4 * 62 - 4];
  const canDrop = humanCanMove() && side === state.side_to_move && legal().some((m) => m.kind === 'drop');
  const chosen = canDrop && selected && selected.drop;
  const g = el('g', { class: 'reserve' + (canDrop ? ' can-drop' : '') + (chosen ? ' selected' : ''), 'data-side': side }, svg);
  el('rect', { class: 'reserve-box', x, y, width: w, height: h, rx: 8 }, g);
  text(g, x + w / 2, y + 18, 'reserve-title', 'Player ' + (i + 1) + ' · ' + colourName(side));
  text(g, x + 10, y + 42, 'reserve-label', 'Reserve ' + pos.reserves[i]);
  pile(g, side, pos.reserves[i], x + 12, y + 52, 'rdisc');
  const goal = captureGoal();
  text(g, x + 10, y + 150, 'reserve-label', 'Captured ' + pos.captured[i] + (goal ? ' / ' + goal : ''));
  pile(g, opponent(side), pos.captured[i], x + 12, y + 160, 'rdisc captured');
  if (canDrop) text(g, x + w / 2, y + h - 10, 'reserve-hint', chosen ? 'click a square' : 'click to drop');
  g.addEventListener('click', () => clickReserve(side));
}

// `n` small coins of `side` in rows of six.
function pile(g, side, n, x, y, cls) {
  for (let k = 0; k < n; k++) {
    el('circle', { class: cls + ' p' + (side === 'p1' ? 1 : 2), cx: x + 10 + (k % 6) * 20, cy: y + 10 + Math.floor(k / 6) * 20, r: 8 }, g);
  }
}

const CASTLE_TERRAIN = { '#': 'wall', C: 'channel', ':': 'courtyard', K: 'key', ',': 'middle', '.': 'ground' };

// Castle: the 19 x 19 terrain, the skulls, the keys, and the knights.
function drawCastle(svg, pos, hl) {
  const cell = 30;
  const geo = grid(19, 19, cell, cell, 30, 5);
  setViewBox(svg, 30 + 19 * cell + 6, 5 + 19 * cell + 25, 'Castle board');
  const terrain = state.board.terrain;
  const keys = { [state.board.keys.p1]: 'p1', [state.board.keys.p2]: 'p2' };
  for (let rank = 0; rank < 19; rank++) {
    for (let file = 0; file < 19; file++) {
      const square = squareName(file, rank);
      const knight = pos.stacks[square];
      const [x, y] = [geo.x(file), geo.y(rank)];
      const kind = CASTLE_TERRAIN[terrain[18 - rank][file]] + (keys[square] ? ' key-' + keys[square] : '');
      const g = squareGroup(svg, hl, square, knight, x, y, cell, cell, 't-' + kind);
      if (keys[square]) drawKey(g, x, y, cell, keys[square]);
      if (pos.skulls.has(square)) drawSkull(g, x, y, cell);
      if (knight) drawKnight(g, x, y, cell, knight, hl.from === square);
      drawMarks(g, hl, square, x, y, cell, cell, knight !== '');
    }
  }
  drawCoords(svg, geo, (f) => LETTERS[f], (r) => r + 1);
}

function drawKey(g, x, y, cell, owner) {
  const k = el('g', { class: 'key-mark ' + owner, transform: `translate(${x + cell / 2},${y + cell / 2})` }, g);
  el('circle', { cx: -6, cy: 0, r: 5 }, k);
  el('path', { d: 'M-1 0 H11 M7 0 V5 M11 0 V5' }, k);
}

function drawSkull(g, x, y, cell) {
  const s = el('g', { class: 'skull', transform: `translate(${x + cell / 2},${y + cell / 2})` }, g);
  el('path', { d: 'M-8 1 A8 8 0 1 1 8 1 L5 4 L5 8 L-5 8 L-5 4 Z' }, s);
  el('circle', { class: 'eye', cx: -3.2, cy: -1, r: 2.3 }, s);
  el('circle', { class: 'eye', cx: 3.2, cy: -1, r: 2.3 }, s);
}

// A knight: a token in its side's colour with a crest, outlined when picked.
function drawKnight(g, x, y, cell, side, picked) {
  const cx = x + cell / 2, cy = y + cell / 2;
  el('circle', { class: 'knight p' + side + (picked ? ' taking' : ''), cx, cy, r: cell * 0.38, 'data-depth': 1 }, g);
  el('path', { class: 'crest', d: `M${cx - 5} ${cy + 6} L${cx - 4} ${cy - 2} L${cx + 1} ${cy - 7} L${cx + 2} ${cy - 3} L${cx + 6} ${cy + 1} L${cx + 3} ${cy + 3} L${cx + 1} ${cy + 1} L${cx + 2} ${cy + 6} Z` }, g);
}

function drawUndrawable(svg) {
  setViewBox(svg, 540, 540, state.variant);
  const lines = ['No board drawing for ' + state.variant + ' yet:', 'play by typing moves. Legal now:']
    .concat(state.legal_moves.slice(0, 20).join(' ').match(/.{1,40}(\s|$)/g) || []);
  lines.forEach((line, i) => text(svg, 20, 40 + i * 28, 'note-text', line.trim()));
}

function drawBoard() {
  const svg = $('board');
  svg.replaceChildren();
  if (!current) {
    drawUndrawable(svg);
    return;
  }
  svg.dataset.flipped = flipped();
  current.game.draw(svg, current.pos, highlights());
}

// ---- the panel ------------------------------------------------------------

function drawCounts() {
  const picker = $('count-picker');
  const show = selected && !selected.drop && humanCanMove() && current && current.game.pickCount;
  picker.hidden = !show;
  if (!show) return;
  const counts = $('counts');
  counts.replaceChildren();
  for (const n of selected.counts) {
    const b = document.createElement('button');
    b.textContent = n;
    b.dataset.count = n;
    if (n === selected.count) b.classList.add('chosen');
    b.addEventListener('click', () => { selected.count = n; render(); });
    counts.appendChild(b);
  }
}

function statusText() {
  const o = state.outcome;
  if (o.over) {
    const how = REASONS[o.reason] || o.reason;
    if (!o.winner) return 'Draw: ' + how + '.';
    const who = playerName(o.winner) + ' (' + sideLabel(o.winner) + ')';
    return who + (playerName(o.winner) === 'You' ? ' win' : ' wins') + ': ' + how + '. ' + o.result;
  }
  const side = state.side_to_move;
  const name = playerName(side);
  if (state.thinking) return name + ' is thinking…';
  if (state.future.length > 0) return 'Move ' + state.moves.length + ' of ' + (state.moves.length + state.future.length) + ': ' + (side === 'p1' ? 'player 1' : 'player 2') + ' to move.';
  if (name === 'You') return 'Your move.';
  if (state.players[side]) return name + ' to move: press "Engine, move", or play its move yourself.';
  return (side === 'p1' ? 'Player 1' : 'Player 2') + ' to move.';
}

function drawPlayers() {
  for (const side of ['p1', 'p2']) {
    const i = sideIndex(side);
    const colour = colourName(side);
    const anyEngine = state.players.p1 || state.players.p2;
    const who = anyEngine ? ' · ' + playerName(side) : '';
    $('name-' + side).textContent = 'Player ' + (i + 1) + (colour ? ' (' + colour + ')' : '') + who;
    const stats = $('stats-' + side);
    stats.replaceChildren();
    for (const [label, value] of current ? current.game.stats(current.pos, i) : []) {
      const s = document.createElement('span');
      s.className = 'stat';
      s.append(label + ' ');
      const b = document.createElement('b');
      b.textContent = value;
      s.append(b);
      stats.append(s);
    }
    $('player-' + side).classList.toggle('to-move', !state.outcome.over && state.side_to_move === side);
  }
}

function render() {
  if (!state) return;
  const body = document.body.dataset;
  body.fen = state.fen;
  body.thinking = state.thinking;
  body.analysing = state.analysing;
  body.version = state.version;
  body.moves = state.moves.length;
  body.over = state.outcome.over;
  body.game = familyOf(state.variant);
  document.title = 'stackfish — ' + state.variant;
  $('variant-name').textContent = state.variant;
  $('status').textContent = statusText();
  drawPlayers();

  const result = $('result');
  result.hidden = !state.outcome.over;
  if (state.outcome.over) result.textContent = 'Game over. ' + statusText();

  const onlyPass = state.legal_moves.length === 1 && state.legal_moves[0] === 'pass';
  $('pass-button').hidden = !(onlyPass && humanCanMove());
  $('go-button').hidden = state.thinking || state.outcome.over;
  $('stop-button').hidden = !state.thinking;
  $('undo-button').disabled = state.moves.length === 0;
  $('nav-start').disabled = $('nav-back').disabled = state.moves.length === 0;
  $('nav-forward').disabled = $('nav-end').disabled = state.future.length === 0;

  $('fen').textContent = state.fen;
  $('move-input').placeholder = current ? current.game.example : 'a move';
  $('fen-input').placeholder = state.start_fen;

  drawCounts();
  drawBoard();
  for (const panel of panels) panel.render(state);
}

function update(data) {
  const moved = !state || state.fen !== data.fen || state.thinking !== data.thinking;
  noteDelays(data);
  state = data;
  current = readState();
  if (moved) selected = null;
  if (selected && !selected.drop && !legal().some((m) => m.kind === 'move' && m.from === selected.from)) selected = null;
  render();
}

function showMessage(message) {
  $('message').textContent = message;
}

async function copy(content, what) {
  try {
    await navigator.clipboard.writeText(content);
    showMessage('');
    $('status').textContent = what + ' copied.';
  } catch (e) {
    // Without clipboard access, leave the text selected for Ctrl-C.
    window.prompt('Copy the ' + what + ':', content);
  }
}

// Shows the position after `ply` moves of the line.
function goTo(ply) {
  const total = state.moves.length + state.future.length;
  if (ply < 0 || ply > total || ply === state.moves.length) return;
  selected = null;
  post('/api/goto', { ply });
}

// ---- wiring ------------------------------------------------------------

$('pass-button').addEventListener('click', () => play('pass'));
$('go-button').addEventListener('click', () => post('/api/go'));
$('stop-button').addEventListener('click', () => post('/api/stop'));
$('undo-button').addEventListener('click', () => { selected = null; post('/api/undo'); });
$('nav-start').addEventListener('click', () => goTo(0));
$('nav-back').addEventListener('click', () => goTo(state.moves.length - 1));
$('nav-forward').addEventListener('click', () => goTo(state.moves.length + 1));
$('nav-end').addEventListener('click', () => goTo(state.moves.length + state.future.length));
$('flip-button').addEventListener('click', () => { flipToggled = !flipToggled; render(); });
$('move-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const move = $('move-input').value.trim();
  if (!move) return;
  play(move).then(() => {
    if ($('message').textContent === '') $('move-input').value = '';
  });
});
$('fen-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const fen = $('fen-input').value.trim();
  if (fen) post('/api/fen', { fen }).then((s) => { if (s) $('fen-input').value = ''; });
});
$('copy-fen').addEventListener('click', () => copy(state.fen, 'FEN'));
document.addEventListener('keydown', (event) => {
  if (event.target.closest && event.target.closest('input, select, textarea')) return;
  if (event.key === 'Escape' && selected) { selected = null; render(); }
  if (!state) return;
  if (event.key === 'ArrowLeft') goTo(state.moves.length - 1);
  if (event.key === 'ArrowRight') goTo(state.moves.length + 1);
});

api('/api/state').then(connect);
