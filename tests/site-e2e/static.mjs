// End-to-end test of the static site (tools/build-site.sh's target/site) in
// headless Debian chromium, served by a plain static file server
// (python3 -m http.server) under /stackfish/, as a project page host
// serves it: the loading box (and a failed load), every game's start
// drawn, a full Mixtour game against the engine played by clicks, analysis
// with 3 lines that stops when the position changes, a .stacksav opened
// and saved again, the network off after one visit (the service worker's
// cache) with the engine still playing, and not one request to an /api/
// path. Screenshots at 1280 x 800 and 390 x 844 land in the output folder.
// Usage: STACKFISH=<binary> node static.mjs <site dir> <output dir>. Uses
// tests/web-e2e's playwright-core. Exits non-zero on any failure.

import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  boardOf, check, clickMixtour, crashed, family, launch, newGameOn, stacksOf, tally, watchErrors,
} from '../web-e2e/page-model.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// The service worker's own requests (its cache filling) are seen too.
process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS = '1';
const require = createRequire(join(here, '../web-e2e/package.json'));
const { chromium } = require('playwright-core');

const [siteArg, outDir] = process.argv.slice(2);
if (!siteArg || !outDir || !process.env.STACKFISH) {
  console.error('usage: STACKFISH=<binary> node static.mjs <site dir> <output dir>');
  process.exit(2);
}
const site = resolve(siteArg);
mkdirSync(outDir, { recursive: true });
const stackfish = (...args) => execFileSync(process.env.STACKFISH, args, { encoding: 'utf8' });
// Engine replies are waited for this long at most; it thinks 0.1 s a move.
const ENGINE_WAIT_MS = 30000;


// ---- the static server ------------------------------------------------

// The site as /stackfish/ of a folder, served by python's http.server on a
// free port of 127.0.0.1; every path it is asked for is kept.
const root = mkdtempSync(join(tmpdir(), 'stackfish-site-'));
symlinkSync(site, join(root, 'stackfish'));
const served = [];
const server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root],
  { stdio: ['ignore', 'pipe', 'pipe'] });
server.stderr.on('data', (chunk) => {
  for (const m of String(chunk).matchAll(/"[A-Z]+ (\S+) HTTP/g)) served.push(m[1]);
});
const port = await new Promise((ok, fail) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const m = /port (\d+)/.exec(out);
    if (m) ok(Number(m[1]));
  });
  server.on('exit', (code) => fail(new Error('python3 -m http.server exited with ' + code + ': ' + out)));
});
const url = `http://127.0.0.1:${port}/stackfish/`;
console.log('static site at ' + url);

// ---- the browser ------------------------------------------------------

const userDataDir = mkdtempSync(join(tmpdir(), 'stackfish-site-e2e-'));
const context = await launch(chromium, userDataDir, { viewport: { width: 1280, height: 800 } });
const requested = [];
context.on('request', (r) => requested.push(r.url()));
const page = context.pages()[0] || await context.newPage();
// The 404 the failed-load check asks for is logged as a failed resource.
const { errors: pageErrors, expect: expect404 } = watchErrors(page);

const square = (name) => page.locator(`#board g[data-square="${name}"]`);
const text = (sel) => page.locator(sel).innerText();
const newGame = (...args) => newGameOn(page, ...args);
// The page's state, from its own store module.
const state = () => page.evaluate(async () => (await import(new URL('store.js', document.baseURI).href)).state);
const ready = () => page.waitForFunction(() => document.body.dataset.version !== undefined, null, { timeout: ENGINE_WAIT_MS });

// The board drawn against the position string shown and held.
async function checkDrawn(variant, what) {
  const st = await state();
  check((await text('#fen')).trim() === st.fen, `${what}: the FEN shown is the board's (${st.fen})`);
  const drawn = await page.$$eval('#board g.sq', (gs) => Object.fromEntries(gs.map((g) => [g.dataset.square, g.dataset.stack])));
  const want = family(variant) === 'mixtour' ? stacksOf(st.fen) : boardOf(variant, st.fen);
  const size = { mixtour: 25, silo: 6, coinstack: 52, focus: 52, castle: 361 }[variant];
  check(Object.keys(drawn).length === size, `${what}: ${size} squares drawn (${Object.keys(drawn).length})`);
  const wrong = Object.keys(want).filter((s) => drawn[s] !== want[s]);
  check(wrong.length === 0, `${what}: every square drawn as in the FEN` + (wrong.length ? ` (wrong: ${wrong})` : ''));
  return st;
}

// Loading: the box says what loads, no empty board; a failed load says why;
// opened from disk, the page says it needs a web server.
async function loading() {
  // A page of its own: chromium logs the modules it refuses to load.
  const fromDisk = await context.newPage();
  await fromDisk.goto('file://' + join(site, 'index.html'));
  const said = await fromDisk.locator('#loading.failed').innerText();
  check(/must be served by a web server/.test(said) && await fromDisk.locator('#board').isHidden(), 'opened as a file: ' + said);
  await fromDisk.close();
  expect404();
  await page.route('**/stackfish.wasm', (r) => r.fulfill({ status: 404, body: 'gone' }));
  await page.goto(url);
  await page.waitForSelector('#loading.failed');
  const failed = await text('#loading');
  check(/could not be loaded: stackfish\.wasm answered 404/.test(failed), 'a failed load says why: ' + failed);
  check(await page.locator('#board').isHidden(), 'and no board is drawn');
  await page.unroute('**/stackfish.wasm');
  // A slow engine download: the loading box until the first state.
  await page.route('**/stackfish.wasm', async (r) => {
    await new Promise((ok) => setTimeout(ok, 1500));
    await r.continue();
  });
  await page.goto(url);
  await page.waitForSelector('#loading:not(.failed)');
  check(/Load/.test(await text('#loading')) && await page.locator('#board').isHidden(),
    'while the engine loads: "' + await text('#loading') + '", no board');
  await ready();
  await page.unroute('**/stackfish.wasm');
  check(await page.locator('#loading').isHidden() && await page.locator('#board').isVisible(), 'then the board, the loading box gone');
}

// What needs the server is not offered: only stackfish plays, no explorer.
async function serverOnly() {
  const players = await page.$$eval('#p1-player option', (os) => os.map((o) => o.value));
  check(JSON.stringify(players) === '["human","stackfish"]', `the players offered: ${players}`);
  check(await page.locator('#engines-note').isVisible(), 'a note says other engines need stackfish serve');
  // Two stackfish engines still play each other.
  await newGame('mixtour', 'stackfish', 'stackfish', { level: '1', time: '100' });
  await page.waitForFunction(() => Number(document.body.dataset.moves) >= 4, null, { timeout: ENGINE_WAIT_MS });
  check(true, 'stackfish plays stackfish move by move');
  await newGame('silo', 'human', 'human');
  check(await page.locator('#explorer').isHidden() && await page.locator('#explorer-note').isVisible(),
    'Silo: no table explorer, a note where it would be');
}

// Installable as an app: chromium finds the manifest and its icons, and
// says nothing stands in the way (a service worker, a start URL, icons).
async function installable() {
  const cdp = await context.newCDPSession(page);
  const { url: manifestUrl, errors, data } = await cdp.send('Page.getAppManifest');
  const manifest = JSON.parse(data || '{}');
  check(manifestUrl.endsWith('/stackfish/manifest.webmanifest') && errors.length === 0 && manifest.display === 'standalone',
    `the web app manifest: ${manifest.name} (${errors.map((e) => e.message).join('; ') || 'no errors'})`);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  check(installabilityErrors.length === 0, 'chromium would install it as an app'
    + (installabilityErrors.length ? ': ' + installabilityErrors.map((e) => e.errorId).join(', ') : ''));
  await cdp.detach();
}

// Every game's start, from the New-game form.
async function everyStart() {
  for (const variant of ['mixtour', 'silo', 'coinstack', 'focus', 'castle']) {
    await newGame(variant, 'human', 'human');
    const st = await checkDrawn(variant, variant + ' start');
    check(st.fen === st.start_fen && st.moves.length === 0, `${variant}: the start position`);
  }
}

// A whole Mixtour game against the engine (level 1, 0.1 s a move), our
// moves by clicks: the move of the most pieces the page offers.
async function fullGame() {
  await newGame('mixtour', 'human', 'stackfish', { level: '1', time: '100' });
  let st = await state();
  let turns = 0;
  while (!st.outcome.over && turns < 200) {
    const pieces = (mv) => { const m = /^(\d?)[a-e][1-5]([a-e][1-5])$/.exec(mv); return m ? (m[1] ? parseInt(m[1], 10) : 1) : 0; };
    const move = st.legal_moves.reduce((a, b) => (pieces(b) > pieces(a) ? b : a));
    const n = st.moves.length;
    if (move === 'pass') await page.click('#pass-button');
    else await clickMixtour(page, move);
    await page.waitForFunction((k) => document.body.dataset.thinking === 'false'
      && (Number(document.body.dataset.moves) >= k + 2 || document.body.dataset.over === 'true'), n, { timeout: ENGINE_WAIT_MS });
    st = await state();
    if (st.moves[n] !== move) {
      check(false, `turn ${turns + 1}: the clicks played ${move} (played: ${st.moves[n]})`);
      return;
    }
    turns++;
  }
  check(st.outcome.over, `a full game against the engine by ${turns} clicked moves: ${st.outcome.result} (${st.outcome.reason}) after ${st.moves.length} plies`);
  check((await text('#result')).includes(st.outcome.result), 'the result is announced: ' + await text('#result'));
  await checkDrawn('mixtour', 'the final position');
}

// The review of the game just played, in the page's engine: a run at the
// most nodes shows its progress and is cancelled midway; a run at the
// page's default budget (20,000 nodes) fills the graph for every position and gives each side
// an accuracy. Prints what it took a position (a figure, not a test).
async function review() {
  let st = await state();
  const plies = st.moves.length;
  await page.selectOption('#review-budget', '1000000');
  await page.click('#review-button');
  await page.waitForFunction(() => Number(document.getElementById('review').dataset.done) >= 1, null, { timeout: ENGINE_WAIT_MS });
  check(await page.locator('#review-progress').isVisible(), 'the review shows a progress bar');
  await page.click('#review-cancel');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'cancelled', null, { timeout: ENGINE_WAIT_MS });
  st = await state();
  check(st.review.done >= 1 && st.review.done < st.review.total && !st.thinking,
    `the review cancelled midway (${st.review.done} of ${st.review.total}), the engine free`);
  // The cancelled search's worker is ended and replaced (the engine stops
  // a search mid-way that way): one engine worker again.
  for (let t = 0; page.workers().length !== 1 && t < ENGINE_WAIT_MS; t += 50) await page.waitForTimeout(50);
  check(page.workers().length === 1, `one engine worker after the cancel (${page.workers().length})`);
  // The default budget, as a player gets it.
  await page.selectOption('#review-budget', '20000');
  await page.click('#review-button');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'done', null, { timeout: 180000 });
  st = await state();
  const points = Number(await page.locator('#graph').getAttribute('data-points'));
  check(points === plies + 1 && st.evals.every((e) => e !== null), `the graph has every position of the ${plies} plies (${points})`);
  const accuracy = [await text('#review-accuracy-p1'), await text('#review-accuracy-p2')];
  check(accuracy.every((a) => /^\d+\.\d%$/.test(a)), `an accuracy per side (${accuracy})`);
  const marked = st.marks.filter((m) => m !== null).length;
  check(await page.locator('#moves .mv.inaccuracy, #moves .mv.mistake, #moves .mv.blunder').count() === marked,
    `the move list marks the review's ${marked} classed moves`);
  console.log(`review in the page: ${st.review.total} positions at ${st.review.nodes} nodes in ${st.review.elapsed_ms} ms`
    + ` (${Math.round(st.review.elapsed_ms / st.review.total)} ms a position)`);
  await page.screenshot({ path: join(outDir, 'site-review.png') });
}

// The engine's worker crashes (an uncaught error in it): one message
// beside the analysis, the engine is restarted and answers the next move.
async function crashedWorker() {
  await newGame('mixtour', 'human', 'stackfish', { level: '1', time: '100' });
  const workers = page.workers();
  check(workers.length === 1, `the engine runs in one worker (${workers.length})`);
  await workers[0].evaluate(() => { setTimeout(() => { throw new Error('a test crash'); }); });
  await page.waitForFunction(() => !document.getElementById('engine-error').hidden, null, { timeout: ENGINE_WAIT_MS });
  const shown = await text('#engine-error');
  check(/crashed/.test(shown) && /restarted/.test(shown) && !shown.includes('\n'), 'the crash is one message beside the analysis: ' + shown);
  await square('c3').click();
  await page.waitForFunction(() => document.body.dataset.thinking === 'false' && document.body.dataset.moves === '2',
    null, { timeout: ENGINE_WAIT_MS });
  check(await page.locator('#engine-error').isHidden(), 'the engine answers after the crash, the message gone');
}

// Analysis with 3 lines; a move stops it on the old position (no line of
// it comes after the move), switching it off stops it altogether.
async function analysis() {
  await newGame('mixtour', 'human', 'human');
  // A position with stacks of both sides; c3 is empty.
  const fen = 'x5/x2,2,x2/x5/x,12,x3/11,x,2,x2 1 17,17 0,0 1 -';
  await page.fill('#fen-input', fen);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, fen);
  await page.selectOption('#analyse-lines', '3');
  await page.check('#analyse-toggle');
  await page.waitForFunction(() => {
    const lines = document.querySelectorAll('#analysis-lines .line');
    return lines.length === 3 && lines[0].querySelectorAll('.pv-move').length >= 2;
  }, null, { timeout: ENGINE_WAIT_MS });
  await page.waitForFunction(() => /depth ([8-9]|\d\d)/.test(document.querySelector('#analysis-lines .report-head').textContent),
    null, { timeout: ENGINE_WAIT_MS });
  let st = await state();
  const firsts = st.reports.analysis.lines.map((l) => l.pv[0]);
  check(st.analysing && st.reports.analysis.lines.length === 3 && new Set(firsts).size === 3,
    `3 analysis lines of 3 different moves (${firsts})`);
  await page.screenshot({ path: join(outDir, 'site-desktop.png') });
  // Every state from here on, as the page receives it.
  await page.evaluate(async () => {
    const store = await import(new URL('store.js', document.baseURI).href);
    window.seen = [];
    store.registerPanel({
      render: (s) => window.seen.push({ at: performance.now(), ply: s.moves.length, analysing: s.analysing,
        report: s.reports.analysis && { ply: s.reports.analysis.ply, running: s.reports.analysis.running, lines: JSON.stringify(s.reports.analysis.lines) } }),
    });
  });
  const t0 = await page.evaluate(() => performance.now());
  await square('c3').click();
  await page.waitForFunction(() => window.seen.some((s) => s.ply === 1 && s.report && s.report.ply === 1 && s.report.running),
    null, { timeout: ENGINE_WAIT_MS });
  await page.waitForTimeout(1000);
  let seen = await page.evaluate(() => window.seen);
  const moved = seen.findIndex((s) => s.ply === 1);
  const stale = seen.slice(moved).filter((s) => s.report && s.report.ply === 0 && s.report.running);
  const restarted = seen.find((s) => s.ply === 1 && s.report && s.report.ply === 1);
  check(moved >= 0 && stale.length === 0, `after the move no line of the old position comes (${stale.length})`);
  check(Boolean(restarted), `the analysis goes on with the new position (${restarted ? Math.round(restarted.at - t0) : '-'} ms after the click)`);
  // Off: it stops, and its lines stop changing.
  await page.uncheck('#analyse-toggle');
  await page.waitForFunction(() => document.body.dataset.analysing === 'false');
  const off = await page.evaluate(() => window.seen.length);
  await page.waitForTimeout(1000);
  seen = await page.evaluate(() => window.seen);
  const after = seen.slice(off).filter((s) => s.report && s.report.running);
  st = await state();
  check(!st.analysing && after.length === 0 && !(st.reports.analysis && st.reports.analysis.running),
    `analysis off: nothing runs, no line comes after (${after.length})`);
}

// A .stacksav written by `stackfish export`, opened with the file picker,
// saved again: `stackfish import` reads the save as the position shown.
async function stacksav() {
  const fen = 'x5/x5/x2,12,x2/x5/11,2,x3 2 17,18 0,0 1 -';
  const file = join(outDir, 'opened.stacksav');
  execFileSync(process.env.STACKFISH, ['export', '--fen', fen, '--stacksav', file], { stdio: ['ignore', 'ignore', 'ignore'] });
  const want = stackfish('import', file).trim();
  await newGame('mixtour', 'human', 'human');
  await page.setInputFiles('#open-file', file);
  await page.waitForFunction((f) => document.body.dataset.fen === f, want, { timeout: ENGINE_WAIT_MS });
  check(true, `the .stacksav opened through the file picker is the position it holds (${want})`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-stacksav')]);
  const saved = join(outDir, 'saved.stacksav');
  await download.saveAs(saved);
  const name = download.suggestedFilename();
  check(/^stackfish-mixtour-0\.stacksav$/.test(name), 'saved as ' + name);
  const reread = stackfish('import', saved).trim();
  check(reread === want, `stackfish import reads the saved file as the position shown (${reread})`);
  const [board] = await Promise.all([page.waitForEvent('download'), page.click('#save-stackboard')]);
  const boardFile = join(outDir, board.suggestedFilename());
  await board.saveAs(boardFile);
  const start = stackfish('import', boardFile).trim();
  check(board.suggestedFilename() === 'square_5x5.stackboard' && start === 'x5/x5/x5/x5/x5 1 20,20 0,0 1 -',
    `its board file downloads as ${board.suggestedFilename()}, the 5 x 5 board (${start})`);
  const [record] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const pgn = readFileSync(await record.path(), 'utf8');
  check(record.suggestedFilename().endsWith('.pgn') && pgn.includes('[Event '), 'the record downloads as ' + record.suggestedFilename());
}

// The network off after the visit: a reload still draws the board (from
// the service worker's cache, not one request to the server) and the
// engine still answers a move.
async function offline() {
  const cache = await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    const names = await caches.keys();
    const keys = names.length === 1 ? await (await caches.open(names[0])).keys() : [];
    return { names, files: keys.map((r) => new URL(r.url).pathname) };
  });
  const files = readdirSync(site).filter((f) => f !== 'sw.js').map((f) => '/stackfish/' + f).concat('/stackfish/').sort();
  const swHash = /const CACHE = '([^']+)'/.exec(readFileSync(join(site, 'sw.js'), 'utf8'))[1];
  check(JSON.stringify(cache.names) === JSON.stringify([swHash]), `one cache, this build's (${cache.names})`);
  check(JSON.stringify(cache.files.sort()) === JSON.stringify(files), `every site file is cached (${cache.files.length})`);
  const before = served.length;
  await context.setOffline(true);
  await page.reload();
  await ready();
  await newGame('mixtour', 'human', 'stackfish', { level: '1', time: '100' });
  await checkDrawn('mixtour', 'offline: the start');
  await square('c3').click();
  await page.waitForFunction(() => document.body.dataset.thinking === 'false' && document.body.dataset.moves === '2',
    null, { timeout: ENGINE_WAIT_MS });
  const st = await state();
  check(st.moves[0] === 'c3' && st.moves.length === 2, `offline: our c3, the engine's ${st.moves[1]}`);
  // The browser's own update check of the service worker (a fetch of
  // sw.js that Chromium makes outside the page's emulated network, and
  // whose failure offline changes nothing) may reach the server; nothing
  // the page needs may.
  const asked = served.slice(before).filter((p) => p !== '/stackfish/sw.js');
  check(asked.length === 0, `offline: nothing asked of the server (${asked})`);
  await context.setOffline(false);
}

// A phone: the board fits, a game in play.
async function phone() {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(width <= 390, `at 390 px nothing scrolls sideways (${width})`);
  await page.screenshot({ path: join(outDir, 'site-phone.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
}

try {
  await loading();
  await serverOnly();
  await everyStart();
  await fullGame();
  await review();
  await crashedWorker();
  await analysis();
  await stacksav();
  await offline();
  await installable();
  await phone();
  const api = requested.filter((u) => new URL(u).pathname.includes('/api/'))
    .concat(served.filter((p) => p.includes('/api/')));
  check(served.length > 0 && api.length === 0, `no request to an /api/ path (${served.length} served, ${requested.length} seen)` + (api.length ? ': ' + api.join(' ') : ''));
  check(pageErrors.length === 0, 'no errors in the page' + (pageErrors.length ? ': ' + pageErrors.join(' | ') : ''));
} catch (e) {
  await crashed(e, page, outDir);
} finally {
  await context.close();
  server.kill();
  rmSync(userDataDir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
}

console.log(`static site: ${tally.passed} passed, ${tally.failures} failed`);
process.exit(tally.failures === 0 ? 0 : 1);
