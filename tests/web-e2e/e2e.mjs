// End-to-end test of the stackfish board page in headless Debian chromium:
// play by clicking and typing, wait for the engine, check the board drawn
// against the FEN shown, take back, load positions, reach two endings;
// analysis lines (clicked to play), the evaluation graph (clicked to go to a
// position), an external engine playing a game to the end, a crashing
// engine, the delay from an engine line to the page, every game at phone
// size; Mixtour on other boards (a shipped shape, a StackAndConquer board
// opened, a game played to its end, saved and opened again); the Silo
// table explorer. The server must offer the engines `negamax` and
// `crasher` and the table of Silo's 1 x 4 configuration (run.sh).
// Usage: STACKFISH=<binary> node e2e.mjs <url> <output dir>. Exits non-zero
// on any failure.

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  afterMove, boardOf, check, clickMixtour, countOf, crashed, distance, family, launch, newGameOn,
  squaresOf, stacksOf, tally, watchErrors,
} from './page-model.mjs';

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error('usage: node e2e.mjs <url> <output dir>');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

const START = 'x5/x5/x5/x5/x5 1 20,20 0,0 1 -';
const WIN_IN_ONE = '1,x4/x5/x5/x5/2121,x4 1 17,18 0,0 1 -';
const ONLY_PASS = 'x5/x5/x2,12,x2/x5/x5 1 0,0 0,0 1 -';
// Player 2 to move and better, with one saving move (c2e2, a "save 2" of
// the tactics suite): 2c2e2 instead lets player 1 win at once.
const SAVE = 'x,2212,x,1,x/x,21,x3/x5/x2,2121,x,22/x,12,x2,1 2 13,11 0,0 1 e1e2';
// A stack of two next to a single piece: a1b1 and 2a1b1 on offer, and no
// move of either side can reach the goal.
const STACKS = 'x5/x5/x5/x5/11,2,x3 1 18,19 0,0 1 -';
// Engine replies are waited for this long at most; it thinks 0.1 s a move.
const ENGINE_WAIT_MS = 20000;
// The delay from an engine's line to the page, measured in analysis().
let latency = null;


const userDataDir = mkdtempSync(join(tmpdir(), 'stackfish-e2e-'));
const context = await launch(chromium, userDataDir, { viewport: { width: 1200, height: 900 }, hasTouch: true });
const page = context.pages()[0] || await context.newPage();
// The requests the test has refused on purpose (the typed 'zz9', a bad
// file) are logged by chromium as failed resources; anything else is a bug.
const { errors: pageErrors, expect: expectRefusal } = watchErrors(page);

const square = (name) => page.locator(`#board g[data-square="${name}"]`);

const newGame = (...args) => newGameOn(page, ...args);
const api = (path) => page.evaluate(async (p) => (await fetch(p)).json(), path);
const text = (sel) => page.locator(sel).innerText();

async function waitIdle(moves) {
  await page.waitForFunction(
    (n) => document.body.dataset.thinking === 'false' && document.body.dataset.moves === String(n),
    moves, { timeout: ENGINE_WAIT_MS });
}

// The board drawn must be the position the server holds and the page shows.
async function checkBoard(what) {
  const state = await api('/api/state');
  const shownFen = (await text('#fen')).trim();
  check(shownFen === state.fen, `${what}: the FEN shown is the server's (${shownFen})`);
  const drawn = await page.$$eval('#board g.sq', (gs) =>
    Object.fromEntries(gs.map((g) => [g.dataset.square, g.dataset.stack])));
  const want = stacksOf(state.fen);
  check(Object.keys(drawn).length === 25, `${what}: 25 squares drawn`);
  const wrong = Object.keys(want).filter((s) => drawn[s] !== want[s]);
  check(wrong.length === 0, `${what}: every stack drawn as in the FEN` + (wrong.length ? ` (wrong: ${wrong})` : ''));
  const discs = await page.locator('#board rect.disc').count();
  const pieces = Object.values(want).join('').length;
  check(discs === pieces, `${what}: one disc per piece (${discs})`);
  return state;
}

// The board drawn must be the one in the FEN the server holds and shows.
async function checkOtherBoard(variant, what) {
  const state = await api('/api/state');
  const shownFen = (await text('#fen')).trim();
  check(shownFen === state.fen, `${what}: the FEN shown is the server's (${shownFen})`);
  const drawn = await page.$$eval('#board g.sq', (gs) =>
    Object.fromEntries(gs.map((g) => [g.dataset.square, g.dataset.stack])));
  const want = boardOf(variant, state.fen);
  const size = { silo: 6, coinstack: 52, focus: 52, castle: 361 }[variant];
  check(Object.keys(drawn).length === size, `${what}: ${size} squares drawn (${Object.keys(drawn).length})`);
  const wrong = Object.keys(want).filter((s) => drawn[s] !== want[s]);
  check(wrong.length === 0, `${what}: every square drawn as in the FEN` + (wrong.length ? ` (wrong: ${wrong})` : ''));
  const pieceClass = variant === 'castle' ? 'circle.knight' : 'rect.disc';
  const pieces = await page.locator('#board ' + pieceClass).count();
  check(pieces === Object.values(want).join('').length, `${what}: one piece drawn per piece (${pieces})`);
  return state;
}

// Plays `move` by clicks: the source, the count if the game asks for one,
// then a target; checks only legal targets are offered on the way.
async function clickMove(variant, state, move) {
  const { from, to } = squaresOf(variant, move, state.side_to_move);
  const count = countOf(variant, move);
  await square(from).click();
  const sameSource = state.legal_moves.filter((m) => squaresOf(variant, m, state.side_to_move).from === from);
  if (family(variant) === 'coinstack' || family(variant) === 'focus') {
    const counts = [...new Set(sameSource.map((m) => countOf(variant, m)))].sort((a, b) => a - b);
    const shown = await page.$$eval('#counts button', (bs) => bs.map((b) => parseInt(b.dataset.count, 10)));
    check(JSON.stringify(shown) === JSON.stringify(counts), `${variant}: only the legal counts from ${from} are offered (${shown})`);
    if (count !== shown[0]) await page.click(`#counts button[data-count="${count}"]`);
  } else {
    check(await page.locator('#count-picker').isHidden(), `${variant}: no count to pick`);
  }
  const targets = await page.$$eval('#board g.sq.target', (gs) => gs.map((g) => g.dataset.square).sort());
  const legalTargets = sameSource.filter((m) => countOf(variant, m) === count)
    .map((m) => squaresOf(variant, m, state.side_to_move).to).sort();
  check(JSON.stringify(targets) === JSON.stringify(legalTargets), `${variant}: only the legal targets of ${from} are marked (${targets})`);
  await square(to).click();
}

// A move worth showing: of more than one piece, or the longest Castle slide.
function pickMove(variant, state) {
  return variant === 'castle'
    ? state.legal_moves.reduce((a, b) => (distance(b) > distance(a) ? b : a))
    : state.legal_moves.find((m) => countOf(variant, m) > 1) || state.legal_moves[0];
}

// A two-player game of `variant`: two moves by clicking, each checked
// against the rules' effect on the board, then a screenshot.
async function playOtherGame(variant) {
  await newGame(variant, 'human', 'human');
  await page.waitForFunction(() => document.body.dataset.moves === '0');
  let state = await checkOtherBoard(variant, variant + ' start');
  check(state.fen === state.start_fen && state.engine.side === 'none', `${variant}: a new two-player game`);
  if (variant === 'castle') {
    const walls = state.board.terrain.join('').split('#').length - 1;
    check(await page.locator('#board rect.t-wall').count() === walls, `castle: ${walls} wall squares drawn`);
    const skulls = state.fen.split(' ')[3].split(',').length;
    check(await page.locator('#board g.skull').count() === skulls, `castle: ${skulls} skulls drawn`);
    check(await page.locator('#board g.key-mark').count() === 2, 'castle: both keys drawn');
  }
  for (let k = 0; k < 2; k++) {
    const pick = pickMove(variant, state);
    const before = boardOf(variant, state.fen);
    await clickMove(variant, state, pick);
    await waitIdle(k + 1);
    const after = await checkOtherBoard(variant, `${variant} after ${pick}`);
    check(after.moves[k] === pick, `${variant}: the clicks played ${pick}`);
    const want = afterMove(variant, before, pick, state.side_to_move);
    const got = boardOf(variant, after.fen);
    const wrong = Object.keys(want).filter((s) => want[s] !== got[s]);
    check(wrong.length === 0, `${variant}: ${pick} changed the board as the rules say` + (wrong.length ? ` (wrong: ${wrong})` : ''));
    check(after.side_to_move !== state.side_to_move, `${variant}: the turn passed`);
    const lastMarked = await page.$$eval('#board g.sq.last', (gs) => gs.map((g) => g.dataset.square).sort());
    const lastWant = Object.values(squaresOf(variant, pick, state.side_to_move)).filter(Boolean).sort();
    check(JSON.stringify(lastMarked) === JSON.stringify(lastWant), `${variant}: the last move is highlighted (${lastMarked})`);
    state = after;
  }
  await page.screenshot({ path: join(outDir, `board-${variant}.png`) });
  // The board alone with a stack picked and its targets marked.
  const from = squaresOf(variant, pickMove(variant, state), state.side_to_move).from;
  await square(from).click();
  check(await page.locator('#board g.sq.target').count() > 0, `${variant}: picking ${from} marks targets`);
  await page.locator('#board').screenshot({ path: join(outDir, `board-${variant}-picked.png`) });
  await page.keyboard.press('Escape');
  check(await page.locator('#board g.sq.target').count() === 0, `${variant}: Escape drops the pick`);
}

// Coin Stack drops: click the reserve, then any square.
async function dropFromTheReserve() {
  const fen = 'x4/2,2,1,1,2,2/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,2,2,1,1/x4 1 1,0 0,0';
  await newGame('coinstack', 'human', 'human');
  await page.fill('#fen-input', fen);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, fen);
  let state = await checkOtherBoard('coinstack', 'coinstack with a coin in reserve');
  await page.locator('#board g.reserve[data-side="p1"]').click();
  const targets = await page.$$eval('#board g.sq.target', (gs) => gs.length);
  const drops = state.legal_moves.filter((m) => m.length === 2).length;
  check(targets === drops && drops === 52, `coinstack: a reserve coin may go on any of the ${drops} squares (${targets} marked)`);
  await square('d4').click();
  await waitIdle(1);
  state = await checkOtherBoard('coinstack', 'coinstack after the drop');
  check(state.moves[0] === 'd4' && state.fen.split(' ')[2] === '0,0', 'coinstack: the click dropped the reserve coin on d4');
  check((await square('d4').getAttribute('data-stack')) === '21', 'coinstack: the dropped coin is on top of d4');
  await page.screenshot({ path: join(outDir, 'board-coinstack-drop.png') });
}

// Where a square is drawn, in SVG units.
const at = (name) => square(name).locator('rect.cell').evaluate((r) => [r.x.baseVal.value, r.y.baseVal.value]);

// Playing player 2 shows the board from player 2's side; Flip turns it.
async function boardFlips() {
  for (const [variant, low, high] of [['mixtour', 'a1', 'e5'], ['focus', 'c1', 'f8'], ['castle', 'a1', 's19'], ['silo', 'a', 'f']]) {
    await newGame(variant, 'stackfish', 'human');
    await waitIdle(1);
    const [[lx, ly], [hx, hy]] = [await at(low), await at(high)];
    check(lx > hx && (variant === 'silo' || ly < hy), `${variant}: player 2 sees ${low} top right, ${high} bottom left`);
    if (variant === 'castle') await page.screenshot({ path: join(outDir, 'board-castle-flipped.png') });
    await page.click('#flip-button');
    const [[fx, fy], [gx, gy]] = [await at(low), await at(high)];
    check(fx < gx && (variant === 'silo' || fy > gy), `${variant}: Flip turns the board back`);
    await page.click('#flip-button');
  }
}


// Median, 95th percentile and maximum of a list of numbers.
function spread(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const at = (q) => v[Math.min(v.length - 1, Math.floor(q * v.length))];
  return { n: v.length, median: at(0.5), p95: at(0.95), max: v[v.length - 1] };
}

// Analysis: both sides moved by hand, the engine analysing the position
// shown with 3 lines, each move of a line clickable; and how long an
// engine's line takes from the server to the page.
async function analysis() {
  await newGame('mixtour', 'human', 'human');
  await page.selectOption('#analyse-lines', '3');
  // The page's modules keep their state to themselves; importing the store
  // again gives the page's own instance of it.
  await page.evaluate(async () => { (await import('/store.js')).lineDelays.length = 0; });
  await page.check('#analyse-toggle');
  await page.waitForFunction(() => document.body.dataset.analysing === 'true');
  await page.waitForFunction(() => {
    const lines = document.querySelectorAll('#analysis-lines .line');
    return lines.length === 3 && lines[0].querySelectorAll('.pv-move').length >= 2;
  }, null, { timeout: ENGINE_WAIT_MS });
  // Let the analysis deepen for a while: every line it reports is timed.
  await page.waitForTimeout(2500);
  const state = await api('/api/state');
  check(JSON.stringify(state.analysis_mode) === JSON.stringify({ engine: 'stackfish', multipv: 3 }), 'analysis is on with 3 lines');
  const shown = await page.locator('#analysis-lines .line').count();
  const lines = state.reports.analysis.lines.length;
  check(shown === 3 && lines === 3, `the 3 analysis lines are shown (${shown})`);
  const firsts = state.reports.analysis.lines.map((l) => l.pv[0]);
  check(new Set(firsts).size === 3, `the 3 lines start with 3 different moves (${firsts})`);
  await page.screenshot({ path: join(outDir, 'analysis.png') });
  const delays = await page.evaluate(async () => [...(await import('/store.js')).lineDelays]);
  const d = spread(delays);
  latency = d;
  console.log(`info engine line to page: ${d.n} lines, median ${d.median} ms, 95% ${d.p95} ms, max ${d.max} ms`);
  check(d.n >= 5 && d.max < 1000, `engine lines reach the page at once (95% within ${d.p95} ms)`);

  // A click on the second move of the best line plays both moves.
  await page.locator('#analysis-lines .line[data-multipv="1"] .pv-move[data-index="1"]').click();
  await page.waitForFunction(() => document.body.dataset.moves === '2');
  const after = await api('/api/state');
  check(after.moves.length === 2 && after.analysing, 'a click on a line played it up to the move, the analysis goes on');
  await checkBoard('after playing a line');
}

// The evaluation graph and the move list: points for the evaluated
// positions, clicks go to positions; a move that allows a win in one is a
// blunder.
async function graphAndMoves() {
  // Two more moves by hand; the analysis evaluates each position.
  for (let k = 0; k < 2; k++) {
    const n = await page.evaluate(() => Number(document.body.dataset.moves));
    await page.waitForFunction((ply) => {
      const r = document.querySelectorAll('#analysis-lines .line').length;
      return r > 0;
    }, n, { timeout: ENGINE_WAIT_MS });
    const st = await api('/api/state');
    await page.fill('#move-input', st.legal_moves[st.legal_moves.length - 1]);
    await page.press('#move-input', 'Enter');
    await page.waitForFunction((m) => document.body.dataset.moves === String(m), n + 1);
  }
  await page.waitForFunction(() => Number(document.getElementById('graph').dataset.points) >= 4, null, { timeout: ENGINE_WAIT_MS });
  // The analysis of the position shown, deepened a little: the picture.
  await page.waitForFunction(() => {
    const head = document.querySelector('#analysis-lines .report-head');
    return head && /depth ([6-9]|\d\d)/.test(head.textContent);
  }, null, { timeout: ENGINE_WAIT_MS });
  await page.screenshot({ path: join(outDir, 'analysis-game.png') });
  const st = await api('/api/state');
  const known = st.evals.filter((e) => e !== null).length;
  const points = await page.locator('#graph circle.graph-point').count();
  check(points === known, `one graph point per evaluated position (${points})`);
  check(await page.locator('#graph polyline.graph-line').count() === 1, 'the graph has its curve');
  await page.locator('#graph circle.graph-point[data-ply="0"]').click();
  await page.waitForFunction(() => document.body.dataset.moves === '0');
  check(await page.locator('#moves .mv.future').count() === 4, 'after a click on the first point: the start, 4 moves ahead');
  check((await api('/api/state')).fen === START, 'the graph click went to the start position');
  await page.locator('#moves .mv[data-ply="3"]').click();
  await page.waitForFunction(() => document.body.dataset.moves === '3');
  check(await page.locator('#moves .mv.current').getAttribute('data-ply') === '3', 'a click on a move shows the position after it');
  await page.click('#nav-end');
  await page.waitForFunction(() => document.body.dataset.moves === '4');
  await page.click('#nav-start');
  await page.waitForFunction(() => document.body.dataset.moves === '0');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.moves === '1');
  check(true, 'the navigation buttons and arrow keys step through the line');

  // A move that lets the other side win at once: marked a blunder.
  await page.fill('#fen-input', SAVE);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, SAVE);
  await page.waitForFunction(() => document.querySelector('#eval').textContent.includes('Player 2 is'), null, { timeout: ENGINE_WAIT_MS });
  await page.fill('#move-input', '2c2e2');
  await page.press('#move-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('#moves .mv.blunder') !== null, null, { timeout: ENGINE_WAIT_MS });
  check((await text('#moves .mv.blunder')).trim() === '2c2e2??', 'the move that allows a win in one is marked 2c2e2??');
  check(await page.locator('#graph circle.graph-point.blunder').count() === 1, 'and marked on the graph');
  await page.locator('#panel').screenshot({ path: join(outDir, 'graph.png') });
  await page.uncheck('#analyse-toggle');
  await page.waitForFunction(() => document.body.dataset.analysing === 'false');
}

// The review of a whole game ("Analyse game"): a run shows its progress
// and is cancelled midway; a run to the end fills the graph for every
// position and marks the moves; a move that allows a win in one is `??`
// with the saving move as the better one; "next mistake" goes to it; the
// annotated PGN loads back as a record.
async function gameReview() {
  // Twenty-four moves by two humans (spread over the legal moves, the
  // same each run), so that nothing searches but the review.
  await newGame('mixtour', 'human', 'human');
  const line = await page.evaluate(async () => {
    const post = async (path, body) => (await fetch(path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    })).json();
    let st = await (await fetch('/api/state')).json();
    for (let i = 0; i < 24 && !st.outcome.over; i++) {
      const all = st.legal_moves;
      st = await post('/api/move', { move: all[(i * 7) % all.length] });
    }
    return st.moves;
  });
  await page.waitForFunction((n) => document.body.dataset.moves === String(n), line.length);
  check(await page.locator('#review-button').isEnabled(), `"Analyse game" is offered for a game of ${line.length} moves`);

  // A deep run, cancelled once it has searched a position or two.
  await page.selectOption('#review-budget', '1000000');
  await page.click('#review-button');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'running');
  check(await page.locator('#review-progress').isVisible(), 'a progress bar while the review runs');
  check(await page.locator('#review-cancel').isVisible(), 'and a way to cancel it');
  await page.waitForFunction(() => Number(document.getElementById('review').dataset.done) >= 1, null, { timeout: ENGINE_WAIT_MS });
  const progress = await page.locator('#review-progress').evaluate((b) => [b.value, b.max]);
  check(progress[0] >= 1 && progress[1] === line.length + 1, `the bar counts the positions searched (${progress[0]} of ${progress[1]})`);
  await page.click('#review-cancel');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'cancelled');
  let st = await api('/api/state');
  check(st.review.done >= 1 && st.review.done < st.review.total, `cancelled midway: ${st.review.done} of ${st.review.total} positions`);
  check(await page.locator('#review-progress').isHidden() && await page.locator('#review-button').isVisible(), 'the bar goes, "Analyse game" comes back');
  check((await text('#review-status')).startsWith('Cancelled after'), 'the status says so: ' + await text('#review-status'));
  check(st.evals[line.length] !== null, 'the last position, searched first, keeps its evaluation');

  // A quick run to the end: every position on the graph.
  await page.selectOption('#review-budget', '10000');
  await page.click('#review-button');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'done', null, { timeout: 60000 });
  st = await api('/api/state');
  check(st.evals.every((e) => e !== null), `every position evaluated (${st.evals.length})`);
  const points = Number(await page.locator('#graph').getAttribute('data-points'));
  check(points === line.length + 1, `the graph has a point for every position (${points})`);
  const marked = st.marks.filter((m) => m !== null).length;
  check(await page.locator('#moves .mv.inaccuracy, #moves .mv.mistake, #moves .mv.blunder').count() === marked, `the move list marks the review's ${marked} classed moves`);
  const accuracy = [await text('#review-accuracy-p1'), await text('#review-accuracy-p2')];
  check(accuracy.every((a) => /^\d+\.\d%$/.test(a)), `an accuracy per side (${accuracy})`);
  await page.locator('#panel').screenshot({ path: join(outDir, 'review.png') });
  const fine = st.review.moves.findIndex((m) => m.loss !== null && m.class === null);
  if (fine >= 0) {
    await page.locator(`#moves .mv[data-ply="${fine + 1}"]`).click();
    await page.waitForFunction((n) => document.body.dataset.moves === String(n), fine + 1);
    check((await text('#review-move-text')).includes(': fine (') && await page.locator('#review-better').isHidden(),
      'a fine move is said to be fine, with no better move: ' + await text('#review-move-text'));
  }

  // A move that lets the other side win at once, reviewed.
  await page.fill('#fen-input', SAVE);
  await page.fill('#fen-moves', '2c2e2');
  await page.click('#fen-form button');
  await page.waitForFunction(() => document.body.dataset.moves === '1');
  // The review panel may be drawn a frame after the move list.
  await page.waitForFunction(() => document.getElementById('review-status').innerText === 'Not analysed yet.', null, { timeout: 5000 })
    .catch(() => {});
  check(await text('#review-status') === 'Not analysed yet.', 'another game drops the old review: ' + await text('#review-status'));
  await page.selectOption('#review-budget', '50000');
  await page.click('#review-button');
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'done', null, { timeout: ENGINE_WAIT_MS });
  check((await text('#moves .mv[data-ply="1"]')).trim() === '2c2e2??', 'the move that allows a win in one is 2c2e2??');
  check(await page.locator('#graph circle.graph-point.blunder').count() === 1, 'and a blunder on the graph');
  check((await text('#review-counts-p2')).endsWith('1 ??'), 'player 2 has one blunder: ' + await text('#review-counts-p2'));
  check(await page.locator('#review-next-p1').isDisabled(), 'player 1 has no mistake to step to');
  await page.click('#nav-start');
  await page.waitForFunction(() => document.body.dataset.moves === '0');
  await page.click('#review-next-p2');
  await page.waitForFunction(() => document.body.dataset.moves === '1');
  check(await page.locator('#review-better').isVisible(), 'the blunder shown with the better move');
  check((await text('#review-better-move')) === 'c2e2', 'the better move is the saving c2e2: ' + await text('#review-better-move'));
  check((await text('#review-move-text')).includes('Blunder'), 'and named a blunder: ' + await text('#review-move-text'));
  const st1 = await api('/api/state');
  const rest = st1.review.moves[0].line.slice(1).join(' ');
  check((await text('#review-better')) === 'Better: c2e2' + (rest ? ', then ' + rest : ''), 'its line after it: ' + await text('#review-better'));

  // The annotated game reads back as a record with the same moves.
  const pgn = await page.evaluate(async () => (await fetch('/api/review/pgn')).text());
  check(pgn.includes('$4') && pgn.includes('[%eval'), 'the annotated PGN has the NAG and the evaluations');
  await page.setInputFiles('#open-file', { name: 'review.pgn', mimeType: 'text/plain', buffer: Buffer.from(pgn) });
  await page.waitForFunction(() => document.getElementById('review').dataset.state === 'none');
  st = await api('/api/state');
  check(st.start_fen === SAVE && JSON.stringify(st.moves) === '["2c2e2"]', 'the annotated PGN loads back: ' + st.moves);
  check(st.loaded && st.loaded.name === 'review.pgn', 'the state names the record loaded');
  check((await text('#loaded-note')) === 'review.pgn: 1 move.', 'and the page: ' + await text('#loaded-note'));
}

// An external engine (negamax, over UGI) plays stackfish to the end.
async function externalEngineGame() {
  await newGame('mixtour', 'negamax', 'stackfish', { level: '1', time: '100' });
  await page.waitForFunction(() => document.body.dataset.over === 'true', null, { timeout: 180000 });
  const st = await api('/api/state');
  check(st.outcome.over && st.engine_error === null, `negamax vs stackfish ended: ${st.outcome.result} (${st.outcome.reason}) after ${st.moves.length} moves`);
  for (const side of ['p1', 'p2']) {
    check(await page.locator(`#reports .report[data-side="${side}"] .line`).count() >= 1, `the ${side} engine's lines are shown`);
  }
  check((await text('#result')).includes(st.outcome.result), 'the result is announced');
  await page.screenshot({ path: join(outDir, 'engine-vs-engine.png') });
  await page.locator('#panel').screenshot({ path: join(outDir, 'graph-game.png') });
}

// A crashing engine is reported and restarted; the page goes on.
async function crashingEngine() {
  await newGame('mixtour', 'human', 'crasher');
  await square('c3').click();
  await page.waitForFunction(() => !document.getElementById('engine-error').hidden
    && document.getElementById('engine-error').textContent.includes('restarted'), null, { timeout: ENGINE_WAIT_MS });
  const shown = await text('#engine-error');
  check(/crasher crashed \(exit status 101\)/.test(shown), 'the crash is reported: ' + shown);
  await waitIdle(1);
  // We play the engine's move ourselves.
  await square('b1').click();
  await waitIdle(2);
  check((await api('/api/state')).moves.join(' ') === 'c3 b1', 'the page keeps working after the crash');
  await page.screenshot({ path: join(outDir, 'crash.png') });
}

// Every game on a 390 x 844 touch screen: the board fits, the panels are
// below it, nothing scrolls sideways, and a tap plays.
async function phones() {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const variant of ['mixtour', 'silo', 'coinstack', 'focus', 'castle']) {
    await newGame(variant, 'human', 'human');
    const st = await api('/api/state');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    const board = await page.locator('#board').boundingBox();
    const panel = await page.locator('#panel').boundingBox();
    check(width <= 390 && board.x >= 0 && board.x + board.width <= 390, `${variant} at 390 px: no sideways scroll (${width}), the board fits (${Math.round(board.width)} px)`);
    check(panel.y >= board.y + board.height, `${variant} at 390 px: the panels are below the board`);
    // The New-game form: each player's Level on that player's row, and
    // the game's select as wide as the panel, not cut off.
    const box = (id) => page.$eval('#' + id, (e) => {
      const r = e.closest('label').getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    });
    const [p1, l1, p2, l2, v] = await Promise.all(['p1-player', 'p1-level', 'p2-player', 'p2-level', 'new-variant'].map(box));
    check(Math.abs(p1.y - l1.y) < 2 && Math.abs(p2.y - l2.y) < 2 && p2.y > p1.y + p1.height / 2,
      `${variant} at 390 px: each Level beside its own player (${Math.round(p1.y)}/${Math.round(l1.y)}, ${Math.round(p2.y)}/${Math.round(l2.y)})`);
    check(v.x + v.width <= 390 && v.width > 250, `${variant} at 390 px: the game select fits (${Math.round(v.width)} px)`);
    // The rules panel names this game and explains it.
    const help = await page.$eval('#help-text', (e) => e.textContent);
    check(help.length > 100 && (await text('#help-game')) === variant, `${variant}: the rules panel explains the game (${help.slice(0, 40)}...)`);
    const move = st.legal_moves.find((m) => squaresOf(variant, m, 'p1').from === null)
      || pickMove(variant, st);
    const { from, to } = squaresOf(variant, move, st.side_to_move);
    if (from) {
      await square(from).tap();
      if (family(variant) === 'coinstack' || family(variant) === 'focus') {
        const count = countOf(variant, move);
        const first = await page.$$eval('#counts button', (bs) => parseInt(bs[0].dataset.count, 10));
        if (count !== first) await page.tap(`#counts button[data-count="${count}"]`);
      }
    }
    await square(to).tap();
    await waitIdle(1);
    check((await api('/api/state')).moves[0] === move, `${variant} at 390 px: taps played ${move}`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(outDir, `phone-${variant}.png`) });
  }
  // Mixtour's 10 x 10 board: its labels readable on a phone.
  await page.selectOption('#new-variant', 'mixtour');
  const big = await page.$$eval('#new-board option', (os) => (os.find((o) => /10 x 10/.test(o.textContent)) || {}).value);
  if (big) {
    await page.selectOption('#new-board', big);
    const before = await page.evaluate(() => Number(document.body.dataset.version));
    await page.click('#new-button');
    await page.waitForFunction((n) => Number(document.body.dataset.version) > n, before);
    const px = await page.$eval('#board text.coord', (t) => t.getBoundingClientRect().height);
    check(px >= 7, `a 10 x 10 board at 390 px: labels ${px.toFixed(1)} px high`);
    await page.screenshot({ path: join(outDir, 'phone-mixtour-10x10.png') });
  } else {
    check(false, 'a 10 x 10 Mixtour board is shipped');
  }
  await page.setViewportSize({ width: 1200, height: 900 });
}

// What a new player needs: the packaged icon as favicon, the graph's
// scale, the evaluation naming the side rather than the engine.
async function playerFacing() {
  const icon = await page.$eval('link[rel="icon"]', (l) => l.getAttribute('href'));
  check(icon.startsWith('data:image/svg+xml,') && decodeURIComponent(icon).includes('<svg'), 'the favicon is the stackfish icon');
  const labels = await page.$$eval('#graph text.graph-label', (ts) => ts.map((t) => t.textContent));
  check(['+1', '+3', '-1', '-3', '0'].every((l) => labels.includes(l)) && labels.includes('player 1 better'),
    `the graph has a scale and says which side is up (${labels.join(', ')})`);
  const words = await text('#eval');
  check(!/stackfish/.test(words) && /Player [12]|About equal|No evaluation/.test(words), 'the evaluation names the side: ' + words);
}


// Mixtour on boards of other shapes: drawn from the position string's board
// field (R ranks of C cells, files a..j), holes as not-board; a click plays.
async function shapedMixtourBoards() {
  await newGame('mixtour', 'human', 'human');
  const load = async (fen) => {
    await page.fill('#fen-input', fen);
    await page.click('#fen-form button');
    await page.waitForFunction((f) => document.body.dataset.fen === f, fen);
    const squares = await page.$$eval('#board g.sq', (gs) => Object.fromEntries(gs.map((g) => [g.dataset.square, g.dataset.stack])));
    const holes = await page.$$eval('#board rect.hole', (rs) => rs.map((r) => r.dataset.hole).sort());
    return { squares, holes, view: await page.locator('#board').getAttribute('viewBox') };
  };
  const round = await load('#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -');
  check(Object.keys(round.squares).length === 21 && JSON.stringify(round.holes) === '["a1","a5","e1","e5"]',
    `a 5 x 5 board without its corners: 21 squares, holes ${round.holes}`);
  await square('b1').click();
  await page.waitForFunction(() => document.body.dataset.moves === '1');
  check((await square('b1').getAttribute('data-stack')) === '1', 'a click entered a piece on b1 of the shaped board');
  await page.locator('#board').screenshot({ path: join(outDir, 'board-mixtour-shaped.png') });
  const wide = await load('x7/x2,12,x,#2,x/x7 1 19,19 0,0 1 -');
  check(Object.keys(wide.squares).length === 19 && wide.squares.c2 === '12' && JSON.stringify(wide.holes) === '["e2","f2"]',
    `a 3 x 7 board: 19 squares, the stack on c2, holes ${wide.holes}`);
  check(wide.view === '0 0 740 340', `the 3 x 7 board is drawn 7 wide and 3 high (${wide.view})`);
  const big = await load('x10/x10/x10/x10/x10/x10/x10/x10/x10/x9,1 2 19,20 0,0 1 -');
  check(Object.keys(big.squares).length === 100 && big.squares.j1 === '1', 'a 10 x 10 board: files a..j, ranks 1..10');
}

// `stackfish <args>`: its standard output.
const stackfish = (...args) => execFileSync(process.env.STACKFISH, args, { encoding: 'utf8' });
const withoutLastMove = (fen) => fen.slice(0, fen.lastIndexOf(' '));

// Mixtour on other boards: a shipped shape from the new-game panel; a
// board of our own opened as a StackAndConquer file and played to its end
// by clicks; the game saved as a StackAndConquer game, read back by
// `stackfish import` and opened again; a bad file refused in one line.
async function boardsAndFiles() {
  await page.selectOption('#new-variant', 'mixtour');
  check(await page.locator('#new-board').isVisible() && await page.locator('#save-stacksav').isVisible(),
    'Mixtour: a board to choose, a StackAndConquer save');
  const offered = await page.$$eval('#new-board option', (os) => os.map((o) => o.value));
  check(JSON.stringify(offered) === JSON.stringify(['', 'square_5x5', 'square_5x5_no_corners', 'ring_7x7', 'square_6x6', 'square_10x10']),
    `the new-game panel offers the standard board and the shipped ones (${offered})`);
  await page.selectOption('#new-board', 'ring_7x7');
  await newGame('mixtour', 'human', 'human');
  let state = await api('/api/state');
  const holes = await page.$$eval('#board rect.hole', (rs) => rs.length);
  const squares = await page.locator('#board g.sq').count();
  check(state.fen === 'x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -' && holes === 9 && squares === 40,
    `the shipped ring: 40 squares and 9 holes drawn (${squares}, ${holes}): ${state.fen}`);
  await page.selectOption('#new-board', '');

  // Our own board with holes, opened with the file picker: 3 x 4, a hole
  // in each of two corners and one inside; 3 pieces each.
  const board = '3,2\n#, 0, 0, 0\n0, #, 0, 0\n0, 0, 0, #\n';
  await page.setInputFiles('#open-file', { name: 'small.in', mimeType: 'text/plain', buffer: Buffer.from(board) });
  await page.waitForFunction(() => document.body.dataset.fen === '#,x3/x,#,x2/x3,# 1 3,3 0,0 1 -');
  check(await page.locator('#board rect.hole').count() === 3 && await page.locator('#board g.sq').count() === 9,
    'the board opened from a .in file: 9 squares, 3 holes drawn');
  // Both sides by clicks, the taller stack first, till the game ends.
  let plies = 0;
  state = await api('/api/state');
  while (!state.outcome.over && plies < 200) {
    const height = (mv) => { const m = /^(\d?)[a-j]\d{1,2}([a-j]\d{1,2})$/.exec(mv); return m ? (m[1] ? parseInt(m[1], 10) : 1) * 10 : 0; };
    const move = state.legal_moves.reduce((a, b) => (height(b) > height(a) ? b : a));
    if (move === 'pass') await page.click('#pass-button');
    else await clickMixtour(page, move);
    plies++;
    await page.waitForFunction((n) => document.body.dataset.moves === String(n), plies);
    state = await api('/api/state');
    check(state.moves[plies - 1] === move, `ply ${plies}: the clicks played ${move}`);
  }
  check(state.outcome.over, `the game on the opened board ended after ${plies} plies: ${state.outcome.reason} ${state.outcome.result}`);
  await page.locator('#board').screenshot({ path: join(outDir, 'board-opened-game-over.png') });

  // Saved as a StackAndConquer game and its board file.
  const save = async (id, file) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    await download.saveAs(join(outDir, file));
    return download.suggestedFilename();
  };
  const savedName = await save('#save-stacksav', 'game.stacksav');
  const boardName = await save('#save-stackboard', 'stackfish-4x3.stackboard');
  check(savedName.endsWith('.stacksav') && boardName === 'stackfish-4x3.stackboard', `the save downloads as ${savedName} and ${boardName}`);
  const imported = stackfish('import', join(outDir, 'game.stacksav')).trim();
  check(imported === withoutLastMove(state.fen) + ' -', `stackfish import reads the saved game as the position shown (${imported})`);
  const importedBoard = stackfish('import', join(outDir, 'stackfish-4x3.stackboard')).trim();
  check(importedBoard === '#,x3/x,#,x2/x3,# 1 3,3 0,0 1 -', `the board file saved beside it is the board opened (${importedBoard})`);

  // And opened again in the page.
  await newGame('mixtour', 'human', 'human');
  await page.setInputFiles('#open-file', join(outDir, 'game.stacksav'));
  await page.waitForFunction((f) => document.body.dataset.fen !== f, START);
  const reopened = (await api('/api/state')).fen;
  check(reopened === imported, `the saved game opened in the page is the position saved (${reopened})`);

  // A bad file: one line naming what is wrong; the game stays.
  expectRefusal();
  await page.setInputFiles('#open-file', { name: 'broken.stacksav', mimeType: 'application/octet-stream', buffer: Buffer.from('not a save!') });
  await page.waitForFunction(() => document.getElementById('open-message').textContent.length > 0);
  const message = await text('#open-message');
  check(message.startsWith('broken.stacksav: the saved game is not valid base64') && !/Invalid symbol|offset/.test(message) && !message.includes('\n'), 'a bad file gets one plain line beside the file picker: ' + message);
  check(await text('#message') === '', 'and nothing under the Move box');
  check((await api('/api/state')).fen === imported, 'the bad file left the game as it was');
}

// The Silo explorer: the exact value of a position the table covers and of
// every move, as the old solver (no table files) finds them; a click on a
// move plays it.
async function siloExplorer() {
  const SMALL = '11/22/11/22 1';
  const solverValue = (fen) => {
    const line = stackfish('solve', '--fen', fen, '--method', 'full').split('\n').find((l) => l.startsWith('Value: '));
    const m = /^Value: (win|loss) in (\d+) plies for player ([12]) to move$/.exec(line);
    return `${m[3] === '1' ? 'Red' : 'Blue'} to move ${m[1] === 'win' ? 'wins' : 'loses'} in ${m[2]} plies`;
  };
  await newGame('silo', 'human', 'human');
  check(await page.locator('#new-board').isHidden() && await page.locator('#save-stacksav').isHidden(),
    'Silo: no board to choose, no StackAndConquer save');
  check(await page.locator('#explorer').isVisible() && (await text('#table-value')).startsWith('No table covers this position'),
    'the explorer says no table covers the standard Silo start');
  await page.fill('#fen-input', SMALL);
  await page.click('#fen-form button');
  await page.waitForFunction(() => document.getElementById('explorer').dataset.covered === 'true');
  const want = solverValue(SMALL);
  const shown = await text('#table-value');
  check(shown.startsWith(want), `the explorer shows the position's value: ${shown}`);
  const state = await api('/api/state');
  const rows = await page.$$eval('#table-moves li', (ls) => ls.map((l) => ({ move: l.dataset.move, text: l.textContent })));
  check(JSON.stringify(rows.map((r) => r.move).sort()) === JSON.stringify([...state.legal_moves].sort()),
    `every legal move is listed (${rows.map((r) => r.move)})`);
  await page.screenshot({ path: join(outDir, 'silo-explorer.png') });
  // A click on the best move plays it; the value after it is the one listed.
  await page.click('#table-moves li:first-child');
  await page.waitForFunction(() => document.body.dataset.moves === '1');
  const after = await api('/api/state');
  const afterWant = solverValue(after.fen);
  check(after.moves[0] === rows[0].move && rows[0].text === rows[0].move + ' ' + afterWant,
    `the best move ${rows[0].text} is played by a click`);
  check((await text('#table-value')).startsWith(afterWant), `after it: ${await text('#table-value')}`);
}

try {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.version !== undefined);

  // A new game: we play player 1, the engine answers in 0.1 s.
  await newGame('mixtour', 'human', 'stackfish');
  await waitIdle(0);
  let state = await checkBoard('start');
  check(state.fen === START, 'the game starts from the standard position');
  check(await page.locator('#pass-button').isHidden(), 'no pass button while other moves exist');
  check((await text('#status')).includes('Your move'), 'the status says it is our move');

  // 1. A placement by clicking an empty square.
  await square('c3').click();
  await waitIdle(2);
  state = await checkBoard('after c3 and the reply');
  check(state.moves[0] === 'c3', 'our click played c3');
  check(/ 1 19,19 0,0 1 [a-e][1-5]$/.test(state.fen), 'the engine answered with a placement');
  check((await square('c3').getAttribute('data-stack')) === '1', 'c3 holds our piece');
  check(!(await text('#eval')).startsWith('No evaluation'), 'the engine\'s evaluation is shown: ' + await text('#eval'));
  check(await page.locator('#reports .report[data-side="p2"] .line').count() >= 1, 'the engine\'s line is shown');
  check(await square(state.moves[1]).evaluate((g) => g.classList.contains('last')), 'the last move is highlighted');

  // 2. A stack move by clicking the source, the count if needed, the target,
  // from a loaded position with stacks of both players (the engine's own
  // replies may take every stack we build).
  await page.fill('#fen-input', STACKS);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, STACKS);
  state = await checkBoard('loaded stacks');
  const stackMove = state.legal_moves.find((m) => /^\d[a-e][1-5][a-e][1-5]$/.test(m))
    || state.legal_moves.find((m) => /^[a-e][1-5][a-e][1-5]$/.test(m)) || null;
  check(stackMove !== null, 'a stack move is legal: ' + stackMove);
  const [, n, from, to] = /^(\d?)([a-e][1-5])([a-e][1-5])$/.exec(stackMove);
  const count = n ? parseInt(n, 10) : 1;
  await square(from).click();
  const counts = [...new Set(state.legal_moves.filter((m) => m.length >= 4 && m.slice(-4, -2) === from)
    .map((m) => (m.length === 5 ? parseInt(m[0], 10) : 1)))].sort((a, b) => a - b);
  const shownCounts = await page.$$eval('#counts button', (bs) => bs.map((b) => parseInt(b.dataset.count, 10)));
  check(JSON.stringify(shownCounts) === JSON.stringify(counts), `only the legal counts are offered (${shownCounts})`);
  if (count !== shownCounts[0]) await page.click(`#counts button[data-count="${count}"]`);
  const targets = await page.$$eval('#board g.sq.target', (gs) => gs.map((g) => g.dataset.square).sort());
  const legalTargets = state.legal_moves.filter((m) => m.slice(-4, -2) === from && m.length >= 4
    && (m.length === 5 ? parseInt(m[0], 10) : 1) === count).map((m) => m.slice(-2)).sort();
  check(JSON.stringify(targets) === JSON.stringify(legalTargets), `only legal targets are highlighted (${targets})`);
  const before = state.moves.length;
  await square(to).click();
  await waitIdle(before + 2);
  state = await checkBoard('after the stack move ' + stackMove);
  check(state.moves[before] === stackMove, 'our clicks played ' + stackMove);

  // 3. A typed move.
  const typed = state.legal_moves.find((m) => /^[a-e][1-5]$/.test(m)) || state.legal_moves[0];
  const fenBeforeTyped = state.fen;
  await page.fill('#move-input', typed);
  await page.press('#move-input', 'Enter');
  await waitIdle(state.moves.length + 2);
  state = await checkBoard('after the typed ' + typed);
  check(state.moves[state.moves.length - 2] === typed, 'the typed move was played');
  await page.screenshot({ path: join(outDir, 'board.png') });

  // 4. Take back: our move and the engine's reply.
  await page.click('#undo-button');
  await waitIdle(state.moves.length - 2);
  state = await checkBoard('after take back');
  check(state.fen === fenBeforeTyped, 'take back restores the position before our move');

  // 5. A malformed typed move is refused with a message.
  expectRefusal();
  await page.fill('#move-input', 'zz9');
  await page.press('#move-input', 'Enter');
  await page.waitForFunction(() => document.getElementById('message').textContent.length > 0);
  check((await text('#message')).includes("malformed move 'zz9'"), 'a bad move gets a message: ' + await text('#message'));
  // A bad position string: its message beside the Load-FEN box, the one
  // under the Move box gone; the game stays.
  const fenBefore = (await api('/api/state')).fen;
  expectRefusal();
  await page.fill('#fen-input', 'x5/x5 9');
  await page.click('#fen-form button');
  await page.waitForFunction(() => document.getElementById('fen-message').textContent.length > 0);
  check(await text('#message') === '', 'a bad FEN clears the Move box message: ' + await text('#message'));
  check((await text('#fen-message')).length > 0, 'a bad FEN gets its message beside the Load-FEN box: ' + await text('#fen-message'));
  check((await api('/api/state')).fen === fenBefore, 'the bad FEN left the game as it was');
  await page.fill('#fen-input', '');
  await page.fill('#move-input', '');

  // 6. Load a position and win it: the end is announced.
  await page.fill('#fen-input', WIN_IN_ONE);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, WIN_IN_ONE);
  await checkBoard('loaded FEN');
  await square('a5').click();
  const winTargets = await page.$$eval('#board g.sq.target', (gs) => gs.map((g) => g.dataset.square));
  check(JSON.stringify(winTargets) === '["a1"]', `a5 reaches only a1 (${winTargets})`);
  await square('a1').click();
  await page.waitForFunction(() => document.body.dataset.over === 'true');
  const result = await text('#result');
  check(/You \(player 1\) win: reached the goal\. 1-0/.test(result), 'the win is announced: ' + result);
  await checkBoard('after the winning move');
  const tower = await page.$$eval('#board g.won-tower', (gs) => gs.map((g) => [g.dataset.square, g.querySelectorAll('rect.tower-disc').length]));
  check(JSON.stringify(tower) === '[["a1",5]]', `the winning tower of five stays drawn on a1 (${JSON.stringify(tower)})`);
  await page.screenshot({ path: join(outDir, 'game-over.png') });

  // 7. A forced pass: the button appears; the engine passes too: a draw.
  await page.fill('#fen-input', ONLY_PASS);
  await page.click('#fen-form button');
  await page.waitForFunction((f) => document.body.dataset.fen === f, ONLY_PASS);
  check(await page.locator('#pass-button').isVisible(), 'pass is offered when it is the only move');
  await page.click('#pass-button');
  await page.waitForFunction(() => document.body.dataset.over === 'true', null, { timeout: ENGINE_WAIT_MS });
  const draw = await text('#result');
  check(/Draw: both players had to pass/.test(draw), 'the double pass is announced: ' + draw);

  // 8. The other games: each drawn in its own way and played by clicking.
  for (const variant of ['silo', 'coinstack', 'focus', 'castle']) {
    await playOtherGame(variant);
  }
  await dropFromTheReserve();
  await boardFlips();
  await analysis();
  await graphAndMoves();
  await gameReview();
  await playerFacing();
  await externalEngineGame();
  await crashingEngine();
  await phones();
  await shapedMixtourBoards();
  await boardsAndFiles();
  await siloExplorer();

  check(pageErrors.length === 0, 'no errors in the page' + (pageErrors.length ? ': ' + pageErrors.join(' | ') : ''));
} catch (e) {
  await crashed(e, page, outDir);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}

if (latency) console.log(`engine line to page: median ${latency.median} ms, 95% ${latency.p95} ms, max ${latency.max} ms (${latency.n} lines)`);
console.log(`${tally.passed} passed, ${tally.failures} failed`);
process.exit(tally.failures === 0 ? 0 : 1);
