// The stackfish board page: draws the state the server sends, turns clicks
// into moves, and polls while the engine thinks. The server decides every
// rule; the page only reads its list of legal moves.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const FILES = 'abcde';
const SIZE = 5;
// Board geometry in SVG units: room on the left and below for coordinates.
const LEFT = 30, TOP = 5, CELL = 100;
const DISC_W = 64, DISC_H = 15, DISC_GAP = 2;
const POLL_MS = 250;
const REASONS = {
  'goal reached': 'reached the goal',
  'double pass': 'both players had to pass',
  'threefold repetition': 'the same position occurred a third time',
};

const $ = (id) => document.getElementById(id);
let state = null;
// The stack the player picked to move from: { from, counts, count }.
let selected = null;
let pollTimer = null;
let formFilled = false;

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
  update(data);
  return data;
}

const post = (path, body) => api(path, body || {});

function schedulePoll() {
  if (pollTimer !== null) return;
  pollTimer = setTimeout(async () => {
    pollTimer = null;
    await api('/api/state');
  }, POLL_MS);
}

// ---- reading the position ----------------------------------------------

// A Mixtour position string: board, side, reserves, scores, goal, last move.
function parseFen(fen) {
  const [board, side, reserves, scores, goal, last] = fen.split(' ');
  const cells = [];  // cells[rank][file], rank 0 = rank 1; a stack bottom to top
  const ranks = board.split('/');
  ranks.forEach((row, i) => {
    const rank = SIZE - 1 - i;
    cells[rank] = [];
    for (const cell of row.split(',')) {
      if (cell.startsWith('x')) {
        const n = cell.length > 1 ? parseInt(cell.slice(1), 10) : 1;
        for (let k = 0; k < n; k++) cells[rank].push('');
      } else {
        cells[rank].push(cell);
      }
    }
  });
  return {
    cells,
    side,
    reserves: reserves.split(','),
    scores: scores.split(','),
    goal,
    last,
  };
}

const squareName = (file, rank) => FILES[file] + (rank + 1);

// `c3` → placement; `2a1c3` → move of 2; `pass`.
function parseMove(text) {
  if (text === 'pass') return { kind: 'pass' };
  const m = /^(\d?)([a-e][1-5])([a-e][1-5])$/.exec(text);
  if (m) return { kind: 'move', count: m[1] ? parseInt(m[1], 10) : 1, from: m[2], to: m[3] };
  if (/^[a-e][1-5]$/.test(text)) return { kind: 'place', to: text };
  return { kind: 'unknown' };
}

const moveText = (count, from, to) => (count > 1 ? count : '') + from + to;

function legal() {
  return state ? state.legal_moves.map((text) => ({ text, ...parseMove(text) })) : [];
}

function humanCanMove() {
  return state && !state.thinking && !state.outcome.over;
}

function playerName(side) {
  const num = side === 'p1' ? 'Player 1' : 'Player 2';
  if (state.engine.side === 'none') return num;
  return state.engine.side === side ? 'stackfish' : 'You';
}

// ---- acting on clicks --------------------------------------------------

function clickSquare(square, depth) {
  if (!humanCanMove()) return;
  const moves = legal();
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
  if (moves.some((m) => m.kind === 'place' && m.to === square)) {
    play(square);
    return;
  }
  const from = moves.filter((m) => m.kind === 'move' && m.from === square);
  if (from.length > 0) {
    const counts = [...new Set(from.map((m) => m.count))].sort((a, b) => a - b);
    selected = { from: square, counts, count: counts[0] };
    showMessage('');
  } else {
    selected = null;
    const pos = parseFen(state.fen);
    const [f, r] = [FILES.indexOf(square[0]), parseInt(square[1], 10) - 1];
    showMessage(pos.cells[r][f] ? 'No legal move from ' + square + '.' : 'You cannot enter a piece on ' + square + '.');
  }
  render();
}

async function play(text) {
  selected = null;
  await post('/api/move', { move: text });
}

// ---- drawing -----------------------------------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function drawBoard(pos) {
  const svg = $('board');
  svg.replaceChildren();
  // After a loaded FEN the last move is only in the position string.
  const last = parseMove(state.last_move || pos.last || '');
  const lastSquares = last.kind === 'move' ? [last.from, last.to] : last.kind === 'place' ? [last.to] : [];
  const targets = new Set();
  if (selected && humanCanMove()) {
    for (const m of legal()) {
      if (m.kind === 'move' && m.from === selected.from && m.count === selected.count) targets.add(m.to);
    }
  }
  for (let rank = 0; rank < SIZE; rank++) {
    for (let file = 0; file < SIZE; file++) {
      const square = squareName(file, rank);
      const stack = pos.cells[rank][file] || '';
      const x = LEFT + file * CELL;
      const y = TOP + (SIZE - 1 - rank) * CELL;
      const classes = ['sq'];
      if (lastSquares.includes(square)) classes.push('last');
      if (selected && selected.from === square) classes.push('selected');
      if (targets.has(square)) classes.push('target');
      const g = el('g', { class: classes.join(' '), 'data-square': square, 'data-stack': stack }, svg);
      el('rect', { class: 'cell', x, y, width: CELL, height: CELL }, g);
      // Bottom piece first, so the top of the stack is drawn on top.
      const bottom = y + CELL - 12;
      for (let i = 0; i < stack.length; i++) {
        const depth = stack.length - i;  // 1 = the top piece
        const taking = selected && selected.from === square && depth <= selected.count;
        el('rect', {
          class: 'disc p' + stack[i] + (taking ? ' taking' : ''),
          x: x + (CELL - DISC_W) / 2,
          y: bottom - (i + 1) * (DISC_H + DISC_GAP),
          width: DISC_W, height: DISC_H, rx: 7,
          'data-depth': depth,
        }, g);
      }
      if (stack.length > 0) {
        const label = el('text', { class: 'height', x: x + 7, y: y + 19 }, g);
        label.textContent = stack.length;
      }
      if (targets.has(square)) {
        if (stack.length > 0) {
          el('rect', { class: 'target-ring', x: x + 5, y: y + 5, width: CELL - 10, height: CELL - 10, rx: 8 }, g);
        } else {
          el('circle', { class: 'target-mark', cx: x + CELL / 2, cy: y + CELL / 2, r: 12 }, g);
        }
      }
      g.addEventListener('click', (event) => {
        const depth = parseInt(event.target.getAttribute('data-depth') || '0', 10);
        clickSquare(square, depth);
      });
    }
  }
  for (let i = 0; i < SIZE; i++) {
    const f = el('text', { class: 'coord', x: LEFT + i * CELL + CELL / 2, y: TOP + SIZE * CELL + 16 }, svg);
    f.textContent = FILES[i];
    const r = el('text', { class: 'coord', x: LEFT / 2, y: TOP + (SIZE - 1 - i) * CELL + CELL / 2 }, svg);
    r.textContent = i + 1;
  }
}

function drawCounts() {
  const picker = $('count-picker');
  if (!selected || !humanCanMove()) {
    picker.hidden = true;
    return;
  }
  picker.hidden = false;
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

function evalText(a) {
  if (!a) return 'No evaluation yet.';
  if (a.mate !== null && a.mate !== undefined) {
    const side = a.mate > 0 ? 'p1' : 'p2';
    return playerName(side) + ' (' + (side === 'p1' ? 'player 1' : 'player 2') + ') wins by force: mate in ' + Math.abs(a.mate);
  }
  const cp = a.cp;
  const shown = (cp >= 0 ? '+' : '') + (cp / 100).toFixed(2);
  const side = cp > 0 ? 'p1' : 'p2';
  const who = playerName(side) + ' (' + (side === 'p1' ? 'player 1' : 'player 2') + ')';
  let words;
  if (Math.abs(cp) < 30) words = 'About equal';
  else if (Math.abs(cp) < 150) words = who + ' is slightly better';
  else if (Math.abs(cp) < 400) words = who + ' is better';
  else words = who + ' is winning';
  return words + ' (' + shown + ' for player 1)';
}

function statusText() {
  const o = state.outcome;
  if (o.over) {
    const how = REASONS[o.reason] || o.reason;
    if (!o.winner) return 'Draw: ' + how + '.';
    const who = playerName(o.winner) + ' (' + (o.winner === 'p1' ? 'player 1' : 'player 2') + ')';
    return who + (playerName(o.winner) === 'You' ? ' win' : ' wins') + ': ' + how + '. ' + o.result;
  }
  if (state.thinking) return 'stackfish is thinking…';
  const side = state.side_to_move;
  const name = playerName(side);
  if (name === 'You') return 'Your move.';
  if (name === 'stackfish') return 'stackfish to move: press "Engine, move", or play its move yourself.';
  return (side === 'p1' ? 'Player 1' : 'Player 2') + ' to move.';
}

// Games the page can draw. A game added to the engine before its drawing
// is written here is still playable by typed moves.
const DRAWN = ['mixtour'];

function drawable() {
  return DRAWN.includes(state.variant.split('-')[0]);
}

function drawUndrawable() {
  const svg = $('board');
  svg.replaceChildren();
  const lines = ['No board drawing for ' + state.variant + ' yet:', 'play by typing moves. Legal now:']
    .concat(state.legal_moves.slice(0, 20).join(' ').match(/.{1,40}(\s|$)/g) || []);
  lines.forEach((line, i) => {
    const t = el('text', { x: 20, y: 40 + i * 28, class: 'note-text' }, svg);
    t.textContent = line.trim();
  });
}

function render() {
  if (!state) return;
  const pos = drawable() ? parseFen(state.fen) : null;
  document.body.dataset.fen = state.fen;
  document.body.dataset.thinking = state.thinking;
  document.body.dataset.version = state.version;
  document.body.dataset.moves = state.moves.length;
  document.body.dataset.over = state.outcome.over;
  $('variant-name').textContent = state.variant;
  $('status').textContent = statusText();
  for (const side of ['p1', 'p2']) {
    const i = side === 'p1' ? 0 : 1;
    $('name-' + side).textContent = (side === 'p1' ? 'Player 1' : 'Player 2') + ' · ' + playerName(side);
    $('reserve-' + side).textContent = pos ? pos.reserves[i] : '?';
    $('score-' + side).textContent = pos ? pos.scores[i] : '?';
    $('player-' + side).classList.toggle('to-move', !state.outcome.over && state.side_to_move === side);
  }
  for (const g of document.querySelectorAll('.goal')) g.textContent = pos ? pos.goal : '?';

  const result = $('result');
  result.hidden = !state.outcome.over;
  if (state.outcome.over) result.textContent = 'Game over. ' + statusText();

  const a = state.analysis;
  $('eval').textContent = evalText(a);
  $('pv').textContent = a && a.pv.length ? a.pv.join(' ') : '—';
  $('search-info').textContent = a
    ? 'depth ' + a.depth + (a.nodes ? ' · ' + a.nodes.toLocaleString() + ' nodes' : '') + ' · ' + (a.time_ms / 1000).toFixed(1) + ' s'
    : '';

  const onlyPass = state.legal_moves.length === 1 && state.legal_moves[0] === 'pass';
  $('pass-button').hidden = !(onlyPass && humanCanMove());
  $('go-button').hidden = state.thinking || state.outcome.over;
  $('stop-button').hidden = !state.thinking;
  $('undo-button').disabled = state.moves.length === 0;

  const list = $('moves');
  list.replaceChildren();
  for (let i = 0; i < state.moves.length; i += 2) {
    const li = document.createElement('li');
    li.textContent = state.moves.slice(i, i + 2).join('  ');
    if (i + 2 >= state.moves.length) li.classList.add('last');
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
  $('fen').textContent = state.fen;

  if (!formFilled) fillForm();
  drawCounts();
  if (pos) drawBoard(pos); else drawUndrawable();
}

function fillForm() {
  formFilled = true;
  const variant = $('new-variant');
  for (const v of state.variants) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v === 'mixtour' ? 'Mixtour (20 pieces, 1 point)'
      : v === 'mixtour-5' ? 'Mixtour-5 (25 pieces, 5 points)' : v;
    variant.appendChild(o);
  }
  variant.value = state.variant;
  const level = $('new-level');
  for (let l = 20; l >= 1; l--) {
    const o = document.createElement('option');
    o.value = l;
    o.textContent = l === 20 ? '20 (full strength)' : l;
    level.appendChild(o);
  }
  level.value = state.engine.level;
  $('new-side').value = state.engine.side;
  const time = $('new-time');
  if ([...time.options].some((o) => o.value === String(state.engine.movetime_ms))) {
    time.value = String(state.engine.movetime_ms);
  }
}

function update(data) {
  const moved = !state || state.fen !== data.fen || state.thinking !== data.thinking;
  state = data;
  if (moved) selected = null;
  if (selected && !legal().some((m) => m.kind === 'move' && m.from === selected.from)) selected = null;
  render();
  if (state.thinking) schedulePoll();
}

function showMessage(text) {
  $('message').textContent = text;
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    showMessage('');
    $('status').textContent = what + ' copied.';
  } catch (e) {
    // Without clipboard access, leave the text selected for Ctrl-C.
    window.prompt('Copy the ' + what + ':', text);
  }
}

// ---- wiring ------------------------------------------------------------

$('pass-button').addEventListener('click', () => play('pass'));
$('go-button').addEventListener('click', () => post('/api/go'));
$('stop-button').addEventListener('click', () => post('/api/stop'));
$('undo-button').addEventListener('click', () => { selected = null; post('/api/undo'); });
$('move-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('move-input').value.trim();
  if (!text) return;
  play(text).then(() => {
    if ($('message').textContent === '') $('move-input').value = '';
  });
});
$('fen-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const fen = $('fen-input').value.trim();
  if (fen) post('/api/fen', { fen }).then((s) => { if (s) $('fen-input').value = ''; });
});
$('new-form').addEventListener('submit', (event) => {
  event.preventDefault();
  selected = null;
  post('/api/new', {
    variant: $('new-variant').value,
    engine: $('new-side').value,
    level: parseInt($('new-level').value, 10),
    movetime_ms: parseInt($('new-time').value, 10),
  });
});
$('copy-fen').addEventListener('click', () => copy(state.fen, 'FEN'));
$('copy-moves').addEventListener('click', () => copy(state.moves.join(' '), 'move list'));
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && selected) { selected = null; render(); }
});

api('/api/state');
