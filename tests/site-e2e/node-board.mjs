// The board without a server (board.js of the npm package) in Node: the
// same API as `stackfish serve`, its searches on the engine in a worker.
// A new game with stackfish as player 2 (level 1, 100 ms), a move and the
// engine's answer, analysis with three lines, an illegal move answered
// with the native server's very status and body, a .stacksav download
// uploaded again, and no Silo tables or external engines. Usage:
// STACKFISH=<native binary> node node-board.mjs <package dir>. Exits
// non-zero on any failure.

import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const [pkgDir] = process.argv.slice(2);
const native = process.env.STACKFISH;
if (!pkgDir || !native) {
  console.error('usage: STACKFISH=<binary> node node-board.mjs <package dir>');
  process.exit(2);
}
const { createLocalBackend } = await import(pathToFileURL(join(resolve(pkgDir), 'board.js')).href);

let failures = 0;
function check(cond, what) {
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures += 1;
}

const states = [];
let waiter = null;
const errors = [];
const backend = await createLocalBackend({
  onState: (s) => {
    states.push(s);
    if (waiter && waiter.test(s)) waiter.resolve(s);
  },
  onError: (m) => errors.push(m),
});
/** The first state (from now, or the latest) that passes `test`. */
const until = (test, what, ms = 30000) => new Promise((resolve, reject) => {
  const last = states.at(-1);
  if (last && test(last)) return resolve(last);
  const timer = setTimeout(() => reject(new Error(`no state with ${what} in ${ms} ms`)), ms);
  waiter = { test, resolve: (s) => { waiter = null; clearTimeout(timer); resolve(s); } };
});
const post = (path, body) => backend.request('POST', path, body === undefined ? '' : JSON.stringify(body));

check(states.length === 1 && states[0].variant === 'mixtour', 'onState is called at creation');
const got = await backend.request('GET', '/api/state');
check(got.status === 200 && got.type.startsWith('application/json'), `GET /api/state -> ${got.status} ${got.type}`);
check(got.json.engines.length === 1 && got.json.engines[0] === 'stackfish',
  `the engines are stackfish alone: ${JSON.stringify(got.json.engines)}`);
check(Array.isArray(got.json.silo_tables) && got.json.silo_tables.length === 0 && got.json.table === null,
  'no Silo tables, no explorer');

let r = await post('/api/new', { engine: 'p2', level: 1, movetime_ms: 100 });
check(r.status === 200 && r.json.players.p2?.level === 1 && r.json.players.p2?.movetime_ms === 100,
  `POST /api/new with stackfish for player 2 -> ${r.status}`);
const first = r.json.legal_moves[0];
r = await post('/api/move', { move: first });
check(r.status === 200 && r.json.moves.length === 1, `POST /api/move ${first} -> ${r.status}`);
const answered = await until((s) => s.moves.length === 2 && !s.thinking, 'two plies');
check(answered.moves[0] === first && answered.reports.p2?.lines.length > 0,
  `the engine answered ${answered.moves[1]} with ${answered.reports.p2?.lines.length} report line(s)`);
check(answered.engine_error === null, `no engine error: ${answered.engine_error}`);

r = await post('/api/analyse', { on: true, multipv: 3 });
check(r.status === 200 && r.json.analysis_mode?.multipv === 3, `POST /api/analyse multipv 3 -> ${r.status}`);
const analysed = await until((s) => (s.reports.analysis?.lines.length ?? 0) >= 3, 'three analysis lines');
check(analysed.analysing && analysed.reports.analysis.lines.map((l) => l.multipv).join() === '1,2,3',
  `three lines: ${analysed.reports.analysis.lines.map((l) => l.pv[0]).join(', ')}`);
const line = analysed.reports.analysis.lines[0];
check(Math.abs(line.at_ms - Date.now()) < 60000, `at_ms is wall-clock time (${line.at_ms})`);

// An illegal move (a piece placed on the square taken by the first one):
// the native server's answer, exactly.
const illegal = { move: first };
const local = await post('/api/move', illegal);
const server = spawn(native, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/play at (\S+)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`stackfish serve exited (${code})`)));
});
try {
  await fetch(new URL('api/new', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"engine":"none"}' });
  await fetch(new URL('api/move', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ move: first }) });
  await fetch(new URL('api/move', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ move: answered.moves[1] }) });
  const nat = await fetch(new URL('api/move', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(illegal) });
  const natBody = await nat.text();
  check(local.status === 422 && local.status === nat.status && local.body === natBody && local.type === nat.headers.get('content-type'),
    `an illegal move: ${local.status} ${local.body} (native: ${nat.status} ${natBody})`);
  const natBad = await fetch(new URL('api/goto', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ply":99}' });
  const localBad = await post('/api/goto', { ply: 99 });
  const natBadBody = await natBad.text();
  check(localBad.status === natBad.status && localBad.body === natBadBody,
    `a bad ply: ${localBad.status} ${localBad.body} (native: ${natBad.status} ${natBadBody})`);
  const natSav = await fetch(new URL('api/stacksav', url));
  const localSav = await backend.request('GET', '/api/stacksav');
  // The same two moves on both boards (analysis does not move).
  const natSavBody = await natSav.text();
  check(localSav.status === 200 && localSav.type === natSav.headers.get('content-type') && localSav.body === natSavBody,
    `GET /api/stacksav is the native server's file (${localSav.filename})`);
} finally {
  server.kill();
}

// The download, uploaded again: the same position.
const sav = await backend.request('GET', '/api/stacksav');
const fen = (await backend.request('GET', '/api/state')).json.fen;
r = await post('/api/analyse', { on: false });
check(r.status === 200 && !r.json.analysing, 'analysis off');
r = await post('/api/new', { engine: 'none', file: { name: sav.filename, base64: Buffer.from(sav.body).toString('base64') } });
// A saved game keeps no last move (Mixtour's take-back rule): the rest is
// the position.
const board = (f) => f.split(' ').slice(0, -1).join(' ');
check(r.status === 200 && board(r.json.fen) === board(fen),
  `the .stacksav uploaded again is the position (${r.status} ${r.json?.fen ?? r.body}; was ${fen})`);

// What only the server has.
r = await post('/api/new', { opponent: 'other-engine' });
check(r.status === 400 && r.json.error.startsWith('unknown engine "other-engine"; known: stackfish'),
  `an external engine: ${r.status} ${r.body}`);
r = await backend.request('GET', '/api/events');
check(r.status === 404, `no event stream: ${r.status} ${r.body}`);
check(errors.length === 0, `no engine crash: ${errors.join('; ')}`);

backend.close();
console.log(failures === 0 ? 'node board: all passed' : `node board: ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
