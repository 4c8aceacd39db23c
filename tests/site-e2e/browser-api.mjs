// The JS API of the npm package in headless chromium: the page imports
// stackfish.js, whose engine runs in a module Web Worker; perft 4 from the
// Mixtour start is 330384, `bench` gives the native binary's node count,
// and `stop` answers at once. Prints the bench nps against the native
// binary's. The package is served by a plain static server (this script's,
// no special headers). Usage: STACKFISH=<native binary> node
// browser-api.mjs <package dir>. Uses tests/web-e2e's playwright-core.
// Exits non-zero on any failure.

import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../web-e2e/package.json'));
const { chromium } = require('playwright-core');

const [pkgDir] = process.argv.slice(2);
const native = process.env.STACKFISH;
if (!pkgDir || !native) {
  console.error('usage: STACKFISH=<binary> node browser-api.mjs <package dir>');
  process.exit(2);
}
const root = resolve(pkgDir);
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    return res.end('<!doctype html><title>stackfish.js</title>');
  }
  const file = normalize(join(root, path));
  if (!file.startsWith(root) || !existsSync(file)) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { 'Content-Type': TYPES[file.slice(file.lastIndexOf('.'))] || 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

let failures = 0;
function check(cond, what) {
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures += 1;
}

const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'stackfish-api-')), {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = context.pages()[0] || await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(String(e)));
await page.goto(url);

const result = await page.evaluate(async () => {
  const { createEngine } = await import('./stackfish.js');
  const engine = await createEngine();
  const lines = [];
  let waiter = null;
  engine.onLine = (line) => {
    lines.push(line);
    if (waiter && waiter.re.test(line)) waiter.resolve(line);
  };
  const until = (re) => new Promise((resolve) => {
    const seen = lines.find((l) => re.test(l));
    if (seen) resolve(seen);
    else waiter = { re, resolve: (l) => { waiter = null; lines.length = 0; resolve(l); } };
  });
  engine.send('ugi');
  await until(/^ugiok$/);
  lines.length = 0;
  engine.send('go perft 4');
  const perft = await until(/^Nodes searched:/);
  lines.length = 0;
  engine.send('bench');
  const bench = await until(/^\d+ nodes \d+ nps$/);
  lines.length = 0;
  engine.send('go infinite');
  await until(/^info depth 5 /);
  const t = performance.now();
  engine.send('stop');
  const best = await until(/^bestmove /);
  const stopMs = performance.now() - t;
  engine.terminate();
  return { perft, bench, best, stopMs };
});

check(result.perft === 'Nodes searched: 330384', `chromium: go perft 4 -> ${result.perft}`);
const nativeLine = execFileSync(native, ['bench'], { encoding: 'utf8' }).trim().split('\n').at(-1);
const [nativeNodes, nativeNps] = nativeLine.split(' ').filter((_, i) => i % 2 === 0).map(Number);
const [wasmNodes, wasmNps] = result.bench.split(' ').filter((_, i) => i % 2 === 0).map(Number);
check(nativeNodes > 0 && wasmNodes === nativeNodes, `chromium: bench nodes ${wasmNodes}, native ${nativeNodes}`);
// A first bench of the release profile while the tests run: a sign of
// life, not the figure (tools/js-speed.sh measures the shipped build).
console.log(`bench nps, release profile, first bench: chromium ${wasmNps}, native ${nativeNps} (${Math.round((100 * wasmNps) / nativeNps)}%)`);
check(/^bestmove \S+$/.test(result.best), `chromium: stop -> ${result.best}`);
check(result.stopMs < 1000, `chromium: stop answered in ${result.stopMs.toFixed(1)} ms`);
check(pageErrors.length === 0, `no page errors ${pageErrors.join('; ')}`);

await context.close();
server.close();
if (failures > 0) {
  console.error(`browser api: ${failures} check(s) failed`);
  process.exit(1);
}
console.log('browser api: all checks passed');
