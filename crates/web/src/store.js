// The page's one state store: the latest state from the backend (the
// server, or the board in the page), what the player picked on the board,
// which way the board is turned, the panels redrawn with every state, and
// the requests that change the state through the backend. Other
// modules read these through their imports (read-only bindings) and change
// them only through the functions here.

import { $ } from './draw.js';

// The latest state the backend sent (GET /api/state, the event stream, or
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

// ---- the backend ---------------------------------------------------------

// The page talks to one backend: `request(method, path, body)` answers
// { status, type, body, json } for the routes of protocol.md's HTTP API,
// and a state callback brings every change. Served by `stackfish serve`:
// HTTP (fetch, and the event stream /api/events). The static site
// (tools/build-site.sh writes `content="local"` into this meta tag): the
// board and the engine in this page, board.js on stackfish.wasm.
export const local = document.querySelector('meta[name="stackfish-backend"]')?.content === 'local';
let backend = null;

// An engine failure the backend reported beside the state's own
// (`engine_error`): the in-page engine's worker crashed and was restarted.
// Shown beside the analysis until the player's next request.
export let engineFault = '';

// Where a message goes: beside the control it is about. 'message' is under
// the Move box and the buttons above it (moves, take back, navigation);
// the Load-FEN box, the New-game form and the file picker have their own.
export const SLOTS = ['message', 'fen-message', 'new-message', 'open-message', 'review-message'];

// Shows `message` in `slot` (one of SLOTS) and clears the others: one
// message at a time, next to the control that caused it.
export function showMessage(message, slot = 'message') {
  for (const id of SLOTS) $(id).textContent = id === slot ? message : '';
}

// A request to the backend: its answer, or null with the failure shown in
// `slot` (see showMessage).
async function ask(method, path, body, slot) {
  if (!backend) {
    showMessage('The board is still loading.', slot);
    return null;
  }
  try {
    const answer = await backend.request(method, path, body);
    if (answer.status < 400 || (answer.json && answer.json.error)) return answer;
    showMessage('Error ' + answer.status, slot);
  } catch (e) {
    showMessage(backend.failed(e), slot);
  }
  return null;
}

// A request with a JSON answer (a state, the boards); an error answer goes
// to `slot` (see showMessage).
export async function api(path, body, slot = 'message') {
  const answer = await ask(body === undefined ? 'GET' : 'POST', path,
    body === undefined ? undefined : JSON.stringify(body), slot);
  if (!answer) return null;
  const data = answer.json;
  if (answer.status >= 400) {
    showMessage(data.error, slot);
    return null;
  }
  if (body !== undefined) {
    showMessage('');
    engineFault = '';
  }
  // An event may already have brought a newer state.
  if (data && data.version !== undefined) receive(data);
  return data;
}

export const post = (path, body, slot) => api(path, body || {}, slot);

// Saves what GET `path` answers (a record, a StackAndConquer file) as the
// file the answer names. The HTTP page's links download by themselves; in
// the static site the answer becomes a Blob.
export async function saveFile(path) {
  const answer = await ask('GET', path, undefined, 'message');
  if (!answer) return;
  if (answer.status >= 400) {
    showMessage(answer.json.error);
    return;
  }
  const bytes = answer.base64 ? Uint8Array.from(atob(answer.body), (c) => c.charCodeAt(0)) : answer.body;
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type: answer.type }));
  link.download = answer.filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 0);
}

// A state from the backend, unless it is older than the one shown.
function receive(data) {
  if (!state || data.version >= state.version) update(data);
}

// Without a state from the server for this long, ask for one (the stream
// may have been cut by a proxy or a sleeping laptop).
const STALE_MS = 20000;

// The HTTP backend: `stackfish serve`'s API beside the page, found
// relative to it (so a proxy may serve the board under any path).
function httpBackend() {
  const url = (path) => new URL('.' + path, document.baseURI);
  return {
    async request(method, path, body) {
      const options = body === undefined ? { method } : {
        method,
        headers: { 'Content-Type': 'application/json' },
        body,
      };
      const response = await fetch(url(path), options);
      const type = response.headers.get('Content-Type') || '';
      const text = await response.text();
      return { status: response.status, type, body: text, json: type.startsWith('application/json') ? JSON.parse(text) : null };
    },
    failed: (e) => 'The server does not answer (' + e.message + '). Is stackfish serve still running?',
    // The state as it changes: one event per change, merged by the server
    // when they come faster than the page reads.
    listen() {
      let lastEvent = 0;
      const events = new EventSource(url('/api/events'));
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
        receive(data);
      });
      events.addEventListener('error', () => {
        // EventSource reconnects by itself.
        $('message').dataset.lost = '1';
        showMessage('Lost the connection to the server; reconnecting…');
      });
      setInterval(() => { if (Date.now() - lastEvent > STALE_MS) api('/api/state'); }, STALE_MS);
    },
  };
}

// The "Loading…" box over the board until the first state: what is
// loading, or why it failed.
function loading(text, failed = false) {
  const box = $('loading');
  box.textContent = text;
  box.classList.toggle('failed', failed);
  box.setAttribute('role', failed ? 'alert' : 'status');
}

// The engine's .wasm beside the page, compiled, with its download
// progress in the loading box.
async function loadEngine() {
  const response = await fetch('stackfish.wasm');
  if (!response.ok) throw new Error('stackfish.wasm answered ' + response.status + ' ' + response.statusText);
  const total = Number(response.headers.get('Content-Length')) || 0;
  const chunks = [];
  let got = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    const mb = (n) => (n / 1e6).toFixed(1);
    loading('Loading the engine: ' + mb(got) + (total ? ' of ' + mb(total) : '') + ' MB…');
  }
  loading('Starting the engine…');
  return WebAssembly.compile(await new Blob(chunks).arrayBuffer());
}

// The local backend: board.js, the board and the engine in this page.
async function localBackend() {
  const { createLocalBackend } = await import('./board.js');
  const module = await loadEngine();
  // The first state may come before createLocalBackend returns.
  let first = null;
  const board = await createLocalBackend({
    module,
    onState: (json) => {
      const data = typeof json === 'string' ? JSON.parse(json) : json;
      if (backend) receive(data);
      else first = data;
    },
    onError: (message) => {
      engineFault = message + '; it was restarted, the game goes on.';
      render();
    },
  });
  return {
    request: (method, path, body) => board.request(method, path, body),
    failed: (e) => 'The board in this page failed (' + e.message + '); reload the page.',
    listen() {
      if (first) receive(first);
      // Offline after the first visit: every site file from the cache.
      if ('serviceWorker' in navigator) {
        navigator.serviceWorker.register('sw.js').catch((e) => {
          console.warn('stackfish: no offline copy: ' + e.message);
        });
      }
    },
  };
}

// Connects the page to its backend and shows the first state.
export async function start() {
  try {
    if (local) {
      if (location.protocol === 'file:') throw new Error('this page must be served by a web server, not opened as a file (docs/playing.md)');
      loading('Loading the board…');
      backend = await localBackend();
    } else {
      backend = httpBackend();
      await api('/api/state');
    }
  } catch (e) {
    loading('The board could not be loaded: ' + e.message, true);
    return;
  }
  backend.listen();
}

// Takes a state from the backend and redraws.
export function update(data) {
  if (!state) document.body.classList.remove('loading');
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
