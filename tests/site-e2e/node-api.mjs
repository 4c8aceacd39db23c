// The JS API of the npm package (target/npm/stackfish, tools/build-site.sh)
// in Node: the worker engine and the one on the calling thread give the
// Mixtour start's perft 4 (330384, protocol.md's table), `bench` gives the
// native binary's node count (the same search), and `stop` ends a search at
// once with a move of its last principal variation while the engine keeps
// its position and the lines sent during the search; a failing worker is
// restarted and told of through onCrash. Prints the bench nps
// of both. Usage: STACKFISH=<native binary> node node-api.mjs <package dir>.
// Exits non-zero on any failure.

import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const [pkgDir] = process.argv.slice(2);
const native = process.env.STACKFISH;
if (!pkgDir || !native) {
  console.error('usage: STACKFISH=<binary> node node-api.mjs <package dir>');
  process.exit(2);
}
const api = await import(pathToFileURL(join(resolve(pkgDir), 'stackfish.js')).href);

let failures = 0;
function check(cond, what) {
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures += 1;
}

// An engine in a worker, with `until(re)`: the next line matching `re`
// after the last one `until` returned (lines that came before the call
// count).
async function workerEngine(module) {
  const engine = await api.createEngine({ module });
  const lines = [];
  let next = 0;
  let waiter = null;
  const take = (test) => {
    for (; next < lines.length; next += 1) {
      if (test.test(lines[next].line)) return lines[next++].line;
    }
    return null;
  };
  engine.onLine = (line) => {
    lines.push({ line, at: performance.now() });
    if (waiter) {
      const found = take(waiter.test);
      if (found !== null) waiter.resolve(found);
    }
  };
  engine.until = (test, ms = 60000) => new Promise((resolve, reject) => {
    const found = take(test);
    if (found !== null) return resolve(found);
    const timer = setTimeout(() => reject(new Error(`no line matching ${test} in ${ms} ms`)), ms);
    waiter = { test, resolve: (l) => { waiter = null; clearTimeout(timer); resolve(l); } };
  });
  engine.lines = lines;
  return engine;
}

const module = await api.compile();

// perft 4 from the start, on the calling thread and in a worker.
{
  const out = [];
  const sync = new api.Stackfish(module, (line) => out.push(line));
  sync.send('ugi');
  sync.send('go perft 4');
  check(out.at(-1) === 'Nodes searched: 330384', `calling thread: go perft 4 -> ${out.at(-1)}`);
  check(sync.send('quit') === false, 'calling thread: quit ends the engine');
}
const engine = await workerEngine(module);
engine.send('ugi');
await engine.until(/^ugiok$/);
engine.send('go perft 4');
const perft = await engine.until(/^Nodes searched:/);
check(perft === 'Nodes searched: 330384', `worker: go perft 4 -> ${perft}`);

// bench: the same node count as the native binary.
const nativeLine = execFileSync(native, ['bench'], { encoding: 'utf8' }).trim().split('\n').at(-1);
engine.send('bench');
const wasmLine = await engine.until(/^\d+ nodes \d+ nps$/, 120000);
const [nativeNodes, nativeNps] = nativeLine.split(' ').filter((_, i) => i % 2 === 0).map(Number);
const [wasmNodes, wasmNps] = wasmLine.split(' ').filter((_, i) => i % 2 === 0).map(Number);
check(nativeNodes > 0 && wasmNodes === nativeNodes, `bench nodes: wasm ${wasmNodes}, native ${nativeNodes}`);
// A first bench of the release profile while the tests run: a sign of
// life, not the figure (tools/js-speed.sh measures the shipped build).
console.log(`bench nps, release profile, first bench: Node ${wasmNps}, native ${nativeNps} (${Math.round((100 * wasmNps) / nativeNps)}%)`);

// stop: a search ends at once with the first move of its last PV, and the
// position and the lines queued during the search survive the restart.
engine.send('position startpos moves c3 b2');
engine.send('go infinite');
await engine.until(/^info depth 6 /);
engine.send('position startpos moves c3');
engine.send('isready');
const ready = await engine.until(/^readyok$/);
check(ready === 'readyok', 'isready is answered during a search');
const lastPv = engine.lines.filter((l) => / pv /.test(l.line)).at(-1).line.match(/ pv (\S+)/)[1];
const stopAt = performance.now();
engine.send('stop');
const best = await engine.until(/^bestmove /, 5000);
const stopMs = performance.now() - stopAt;
check(best === `bestmove ${lastPv}`, `stop answers the last PV's move: ${best} (pv ${lastPv})`);
check(stopMs < 1000, `stop answered in ${stopMs.toFixed(1)} ms`);
engine.send('d');
const fen = await engine.until(/^Fen: /);
const expected = execFileSync(native, [], { input: 'position startpos moves c3\nd\nquit\n', encoding: 'utf8' })
  .split('\n').find((l) => l.startsWith('Fen: '));
check(fen === expected, `after the restart the position queued during the search holds: ${fen}`);
engine.send('go depth 3');
const again = await engine.until(/^bestmove /);
check(/^bestmove \S+$/.test(again), `the restarted engine searches: ${again}`);
engine.send('quit');

// A failing engine (a module whose every line traps, as a panic in the
// engine does): one error line per failure, a restart, and no endless
// restarts from replaying the line that failed.
{
  const trap = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // types: (i32) -> i32, (i32, i32) -> i32, () -> ()
    0x01, 0x0f, 0x03, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x00,
    0x03, 0x04, 0x03, 0x00, 0x01, 0x02,
    0x05, 0x03, 0x01, 0x00, 0x01,
    0x07, 0x2a, 0x04,
    0x06, ...Buffer.from('memory'), 0x02, 0x00,
    0x08, ...Buffer.from('sf_alloc'), 0x00, 0x00,
    0x07, ...Buffer.from('sf_line'), 0x00, 0x01,
    0x08, ...Buffer.from('sf_reset'), 0x00, 0x02,
    // sf_alloc: 0; sf_line: unreachable; sf_reset: nothing
    0x0a, 0x0d, 0x03, 0x04, 0x00, 0x41, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x0b, 0x02, 0x00, 0x0b,
  ]);
  const broken = await workerEngine(await api.compile(trap));
  const crashes = [];
  broken.onCrash = (why) => crashes.push({ why, lines: broken.lines.length });
  broken.send('ugi');
  const first = await broken.until(/^info string error: the engine stopped/);
  check(/restarted/.test(first), `a failing engine is restarted: ${first}`);
  await new Promise((r) => setTimeout(r, 1000));
  const errors = broken.lines.filter((l) => /^info string error/.test(l.line)).length;
  check(errors === 2 && /as a new engine/.test(broken.lines.at(-1).line),
    `failing again on the replay, it starts as a new engine and stops there (${errors} errors)`);
  check(crashes.length === 2 && /unreachable/.test(crashes[0].why) && crashes[0].lines === 0,
    `onCrash hears of each failure before its error line: ${JSON.stringify(crashes)}`);
  broken.terminate();
}

if (failures > 0) {
  console.error(`node api: ${failures} check(s) failed`);
  process.exit(1);
}
console.log('node api: all checks passed');
