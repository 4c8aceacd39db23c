// Panel: a new game. The game and, for Mixtour, its board (the standard
// one or a shipped shape), then who plays each side: a human, or an
// engine (stackfish at a level, or any engine the server was started
// with; the static site has stackfish only, and says so); two engines
// play each other move by move. A StackAndConquer board or saved game
// opened here starts a new game from it, with the players chosen; the
// backend reads the file.

import { $ } from './draw.js';
import { gameOf } from './games.js';
import { api, familyOf, local, post, registerPanel, resetFlip, select } from './store.js';

let filled = false;

function fillPlayers(list, engines) {
  const human = document.createElement('option');
  human.value = 'human';
  human.textContent = 'Human';
  list.appendChild(human);
  for (const name of engines) {
    const o = document.createElement('option');
    o.value = name;
    o.textContent = name === 'stackfish' ? 'stackfish (this engine)' : name;
    list.appendChild(o);
  }
}

function fillLevels(list) {
  for (let l = 20; l >= 1; l--) {
    const o = document.createElement('option');
    o.value = l;
    o.textContent = l === 20 ? '20 (full strength)' : l;
    list.appendChild(o);
  }
}

function fill(state) {
  filled = true;
  $('engines-note').hidden = !local;
  const variant = $('new-variant');
  for (const v of state.variants) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v === 'mixtour' ? 'Mixtour (20 pieces, 1 point)'
      : v === 'mixtour-5' ? 'Mixtour-5 (25 pieces, 5 points)' : v;
    variant.appendChild(o);
  }
  variant.value = state.variant;
  for (const side of ['p1', 'p2']) {
    fillPlayers($(side + '-player'), state.engines);
    fillLevels($(side + '-level'));
    const p = state.players[side];
    $(side + '-player').value = p ? p.engine : 'human';
    $(side + '-level').value = p ? p.level : state.engine.level;
  }
  const time = $('new-time');
  if ([...time.options].some((o) => o.value === String(state.engine.movetime_ms))) {
    time.value = String(state.engine.movetime_ms);
  }
  nameSides();
  api('/api/boards').then((data) => {
    if (!data) return;
    for (const b of data.boards) {
      const o = document.createElement('option');
      o.value = b.name;
      o.textContent = b.label + ' (' + b.file + ')';
      $('new-board').appendChild(o);
    }
  });
}

// The side labels name the colours of the game chosen; a level is
// stackfish's only.
function nameSides() {
  const game = gameOf($('new-variant').value);
  const [c1, c2] = game ? game.colours : ['', ''];
  $('p1-label').textContent = 'Player 1' + (c1 ? ' (' + c1 + ', moves first)' : ' (moves first)');
  $('p2-label').textContent = 'Player 2' + (c2 ? ' (' + c2 + ')' : '');
  for (const side of ['p1', 'p2']) {
    $(side + '-level').disabled = $(side + '-player').value !== 'stackfish';
  }
  // Boards of any shape are Mixtour's.
  $('new-board-label').hidden = familyOf($('new-variant').value) !== 'mixtour';
}

// The new game the form describes; `extra` adds a board or a file.
function request(extra) {
  select(null);
  // A new game is seen from the new player's side.
  resetFlip();
  const req = { variant: $('new-variant').value, movetime_ms: parseInt($('new-time').value, 10), ...extra };
  let engines = 0;
  for (const side of ['p1', 'p2']) {
    const who = $(side + '-player').value;
    if (who === 'human') continue;
    engines++;
    req[side] = { engine: who, level: parseInt($(side + '-level').value, 10) };
  }
  if (engines === 0) req.engine = 'none';
  return req;
}

// The file's bytes as base64, so the server reads them exactly.
function base64Of(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

async function openFile() {
  const input = $('open-file');
  const file = input.files && input.files[0];
  if (!file) return;
  input.value = '';
  // A game record: its first game, shown at its end.
  if (/\.(pgn|jsonl|json|txt)$/i.test(file.name)) {
    post('/api/load', { text: await file.text(), name: file.name }, 'open-message');
    return;
  }
  // A StackAndConquer file is a Mixtour game; keep the form's Mixtour variant if chosen.
  const extra = { file: { name: file.name, base64: base64Of(await file.arrayBuffer()) } };
  const req = request(extra);
  if (familyOf(req.variant) !== 'mixtour') delete req.variant;
  post('/api/new', req, 'open-message');
}

$('new-variant').addEventListener('change', nameSides);
$('p1-player').addEventListener('change', nameSides);
$('p2-player').addEventListener('change', nameSides);
$('new-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const board = $('new-board-label').hidden ? '' : $('new-board').value;
  post('/api/new', request(board ? { board } : {}), 'new-message');
});
$('open-file').addEventListener('change', openFile);

registerPanel({
  render: (state) => {
    if (!filled) fill(state);
    // StackAndConquer saves Mixtour games only.
    $('save-row').hidden = familyOf(state.variant) !== 'mixtour';
  },
});
