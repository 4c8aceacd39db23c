// The stackfish board page, core: the board drawn by its game's module,
// clicks turned into moves, the players and the position string. The
// state and the backend it comes from (stackfish serve, or the board in
// the page on the static site) live in store.js; the panels beside the
// board are modules of their own (panel-*.js), each registered with
// `registerPanel` and redrawn with every state. The backend decides every
// rule and reads every position: the page draws `state.position` and
// picks among its moves.

import { $, setViewBox, text } from './draw.js';
import { colourName, gameOf } from './games.js';
import {
  familyOf, flipped, humanCanMove, legal, pickCount, playerName, position, post,
  registerPanel, render, select, selected, showMessage, sideIndex, sideLabel, stackAt, start,
  state, toggleFlip,
} from './store.js';

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

// ---- acting on the game ------------------------------------------------

export async function play(move) {
  select(null);
  await post('/api/move', { move });
}

// Shows the position after `ply` moves of the line.
export function goTo(ply) {
  const total = state.moves.length + state.future.length;
  if (ply < 0 || ply > total || ply === state.moves.length) return;
  select(null);
  post('/api/goto', { ply });
}

export async function copy(content, what) {
  try {
    await navigator.clipboard.writeText(content);
    showMessage('');
    $('status').textContent = what + ' copied.';
  } catch (e) {
    // Without clipboard access, leave the text selected for Ctrl-C.
    window.prompt('Copy the ' + what + ':', content);
  }
}

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
    select(null);
  }
  if (selected) {
    if (square === selected.from) {
      // A click on a piece of the chosen stack picks how many to take.
      if (depth && selected.counts.includes(depth) && depth !== selected.count) {
        pickCount(depth);
      } else {
        select(null);
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
    select({ from: square, counts, count: counts[0] });
    showMessage('');
  } else {
    select(null);
    const occupied = stackAt(square).length > 0;
    const enters = moves.some((m) => m.kind === 'place');
    showMessage(occupied || !enters ? 'No legal move from ' + square + '.' : 'You cannot enter a piece on ' + square + '.');
  }
  render();
}

// Whether `side`'s reserve may be clicked to drop a coin.
const canDrop = (side) => humanCanMove() && side === state.side_to_move && legal().some((m) => m.kind === 'drop');

// A click on a reserve: drop one of its coins next.
function clickReserve(side) {
  if (!humanCanMove() || side !== state.side_to_move) return;
  if (selected && selected.drop) {
    select(null);
  } else if (legal().some((m) => m.kind === 'drop')) {
    select({ drop: true });
    showMessage('');
  } else {
    showMessage('No coin in reserve to drop.');
  }
  render();
}

// ---- the board -------------------------------------------------------------

// What every square's drawing needs to know: the last move's squares, the
// selected source and how many it takes, the legal targets of the
// selection.
function highlights() {
  const last = position().last;
  const lastSquares = new Set(last ? [last.from, last.to].filter(Boolean) : []);
  const targets = new Set();
  const picking = selected && humanCanMove();
  if (picking) {
    for (const m of legal()) {
      if (selected.drop ? m.kind === 'drop'
        : m.kind === 'move' && m.from === selected.from && m.count === selected.count) targets.add(m.to);
    }
  }
  return {
    last: lastSquares,
    targets,
    from: picking ? selected.from || null : null,
    count: picking ? selected.count || 0 : 0,
    drop: Boolean(picking && selected.drop),
  };
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
  const game = gameOf(state.variant);
  if (!game || !position()) {
    drawUndrawable(svg);
    return;
  }
  svg.dataset.flipped = flipped();
  game.draw(svg, position(), {
    hl: highlights(),
    flip: flipped(),
    variant: state.variant,
    board: state.board,
    clickSquare,
    clickReserve,
    canDrop,
  });
}

// ---- the panel ------------------------------------------------------------

function drawCounts() {
  const picker = $('count-picker');
  const game = gameOf(state.variant);
  const show = Boolean(selected && !selected.drop && humanCanMove() && game && game.pickCount);
  picker.hidden = !show;
  if (!show) return;
  const counts = $('counts');
  counts.replaceChildren();
  for (const n of selected.counts) {
    const b = document.createElement('button');
    b.textContent = n;
    b.dataset.count = n;
    if (n === selected.count) b.classList.add('chosen');
    b.addEventListener('click', () => { pickCount(n); render(); });
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
  if (state.future.length > 0) return 'Move ' + state.moves.length + ' of ' + (state.moves.length + state.future.length) + ': ' + sideLabel(side) + ' to move.';
  if (name === 'You') return 'Your move.';
  if (state.players[side]) return name + ' to move: press "Engine, move", or play its move yourself.';
  return (side === 'p1' ? 'Player 1' : 'Player 2') + ' to move.';
}

function drawPlayers() {
  const game = gameOf(state.variant);
  for (const side of ['p1', 'p2']) {
    const i = sideIndex(side);
    const colour = colourName(state.variant, side);
    const anyEngine = state.players.p1 || state.players.p2;
    const who = anyEngine ? ' · ' + playerName(side) : '';
    $('name-' + side).textContent = 'Player ' + (i + 1) + (colour ? ' (' + colour + ')' : '') + who;
    const stats = $('stats-' + side);
    stats.replaceChildren();
    for (const [label, value] of game && position() ? game.stats(position(), i) : []) {
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

// The rules panel: the game's rules in short, redrawn when the game changes.
let helpFor = null;
function drawHelp(game) {
  if (helpFor === state.variant) return;
  helpFor = state.variant;
  $('help-game').textContent = state.variant;
  const paragraphs = game && game.help ? game.help(state.variant) : ['The rules of this game: docs/rules in the stackfish sources.'];
  $('help-text').replaceChildren(...paragraphs.map((t) => {
    const p = document.createElement('p');
    p.textContent = t;
    return p;
  }));
}

function renderBoard() {
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
  const game = gameOf(state.variant);
  $('move-input').placeholder = game ? game.example : 'a move';
  $('fen-input').placeholder = state.start_fen;
  drawHelp(game);

  drawCounts();
  drawBoard();
}

// ---- wiring ------------------------------------------------------------

// The board first: every panel registers after it.
registerPanel({ render: renderBoard });

$('pass-button').addEventListener('click', () => play('pass'));
$('go-button').addEventListener('click', () => post('/api/go'));
$('stop-button').addEventListener('click', () => post('/api/stop'));
$('undo-button').addEventListener('click', () => { select(null); post('/api/undo'); });
$('nav-start').addEventListener('click', () => goTo(0));
$('nav-back').addEventListener('click', () => goTo(state.moves.length - 1));
$('nav-forward').addEventListener('click', () => goTo(state.moves.length + 1));
$('nav-end').addEventListener('click', () => goTo(state.moves.length + state.future.length));
$('flip-button').addEventListener('click', () => { toggleFlip(); render(); });
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
  const moves = $('fen-moves').value.trim();
  if (fen) {
    post('/api/fen', moves ? { fen, moves } : { fen }, 'fen-message').then((s) => {
      if (s) $('fen-input').value = $('fen-moves').value = '';
    });
  }
});
$('copy-fen').addEventListener('click', () => copy(state.fen, 'FEN'));
document.addEventListener('keydown', (event) => {
  if (event.target.closest && event.target.closest('input, select, textarea')) return;
  if (event.key === 'Escape' && selected) { select(null); render(); }
  if (!state) return;
  if (event.key === 'ArrowLeft') goTo(state.moves.length - 1);
  if (event.key === 'ArrowRight') goTo(state.moves.length + 1);
});

start();
