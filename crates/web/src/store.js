// The page's one state store: the latest state from the server, what the
// player picked on the board, which way the board is turned, the panels
// redrawn with every state, and the requests that change the state. Other
// modules read these through their imports (read-only bindings) and change
// them only through the functions here.

import { $ } from './draw.js';

// The latest state the server sent (GET /api/state, the event stream, or
// the answer to a request), or null before the first.
export let state = null;
// What the player picked: a stack to move from, { from, counts, count }, or
// the reserve to drop from, { drop: true }.
export let selected = null;
// The Flip button turns the board from the side it would be seen from.
export let flipToggled = false;
// When each engine line reached the page, by its server time: the
// end-to-end test reads the delays from here.
export const lineDelays = [];
const seenLines = new Set();
// The stack on each square of the position shown, by square name.
let stacks = new Map();
// The panels: { render(state) } each, in the order they registered (the
// board first: page.js registers it before any panel loads).
const panels = [];

export function registerPanel(panel) {
  panels.push(panel);
  if (state) panel.render(state);
}

// Redraws everything from the state and the selection.
export function render() {
  if (!state) return;
  for (const panel of panels) panel.render(state);
}

export function select(pick) {
  selected = pick;
}

// How many pieces the picked stack moves.
export function pickCount(n) {
  if (selected) selected = { ...selected, count: n };
}

export function toggleFlip() {
  flipToggled = !flipToggled;
}

export function resetFlip() {
  flipToggled = false;
}

// ---- reading the state ----------------------------------------------------

export const opponent = (side) => (side === 'p1' ? 'p2' : 'p1');
export const sideIndex = (side) => (side === 'p1' ? 0 : 1);
export const sideLabel = (side) => (side === 'p1' ? 'player 1' : 'player 2');
export const familyOf = (variant) => variant.split('-')[0];

// The board as the server reads it: squares, counts, moves (board.rs).
export const position = () => (state ? state.position : null);

// The legal moves by their squares: { text, kind, from, to, count }.
export const legal = () => (state && state.position ? state.position.moves : []);

// The pieces on `square`, bottom first ('p1' / 'p2'); [] if empty.
export const stackAt = (square) => stacks.get(square) || [];

export function humanCanMove() {
  return Boolean(state) && !state.thinking && !state.outcome.over;
}

// Seen from player 2's side when only player 1 is an engine, unless flipped.
export function flipped() {
  const p = state.players;
  return (Boolean(p.p1) && !p.p2) !== flipToggled;
}

// 'You' for the human when one side is an engine, the engine's name for
// an engine, 'Player N' otherwise.
export function playerName(side) {
  const num = side === 'p1' ? 'Player 1' : 'Player 2';
  const engine = state.players[side];
  if (engine) return engine.engine;
  return state.players[opponent(side)] ? 'You' : num;
}

// ---- talking to the server -------------------------------------------

// Where a message goes: beside the control it is about. 'message' is under
// the Move box and the buttons above it (moves, take back, navigation);
// the Load-FEN box, the New-game form and the file picker have their own.
export const SLOTS = ['message', 'fen-message', 'new-message', 'open-message'];

// Shows `message` in `slot` (one of SLOTS) and clears the others: one
// message at a time, next to the control that caused it.
export function showMessage(message, slot = 'message') {
  for (const id of SLOTS) $(id).textContent = id === slot ? message : '';
}

// A request to the server; its error goes to `slot` (see showMessage).
export async function api(path, body, slot = 'message') {
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
    showMessage('The server does not answer (' + e.message + '). Is stackfish serve still running?', slot);
    return null;
  }
  if (!response.ok) {
    showMessage(data && data.error ? data.error : 'Error ' + response.status, slot);
    return null;
  }
  if (body !== undefined) showMessage('');
  // An event may already have brought a newer state.
  if (!state || data.version >= state.version) update(data);
  return data;
}

export const post = (path, body, slot) => api(path, body || {}, slot);

// Takes a state from the server and redraws.
export function update(data) {
  const moved = !state || state.fen !== data.fen || state.thinking !== data.thinking;
  noteDelays(data);
  state = data;
  stacks = new Map((data.position ? data.position.squares : []).map((s) => [s.name, s.stack]));
  if (moved) selected = null;
  if (selected && !selected.drop && !legal().some((m) => m.kind === 'move' && m.from === selected.from)) selected = null;
  render();
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
