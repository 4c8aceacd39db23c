// What the board page's end-to-end tests know of the games and the page:
// stacks by square read from position strings the way docs/rules/ defines
// them, the squares a move text names and its effect on the board, and the
// page's New-game form and Mixtour clicks, and the browser they run in.
// Shared by tests/web-e2e (the page served by stackfish serve) and
// tests/site-e2e (the static site).

// The checks of a test run: each printed `ok` or `FAIL`, counted.
export const tally = { passed: 0, failures: 0 };
export function check(cond, what) {
  if (cond) tally.passed++;
  else tally.failures++;
  console.log((cond ? 'ok   ' : 'FAIL ') + what);
}

// A test that threw: one failure, its stack, a screenshot of the page.
export async function crashed(e, page, outDir) {
  tally.failures++;
  console.log('FAIL ' + (e && e.stack ? e.stack : e));
  await page.screenshot({ path: outDir + '/failure.png' }).catch(() => {});
}

// Debian's headless chromium (or $CHROMIUM) with a profile of its own in
// `userDataDir`, quiet: no sandbox (CI runs as root), no GPU, no network of
// its own. `options`: playwright's, such as the viewport.
export function launch(chromium, userDataDir, options) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    ...options,
  });
}

// The errors of `page`: its uncaught exceptions and console errors, but for
// as many failed requests (a 4xx logged by chromium) as `expect()` was
// called for, the ones a test asks for on purpose.
export function watchErrors(page) {
  const errors = [];
  let expected = 0;
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/status of 4\d\d/.test(m.text()) && expected > 0) {
      expected--;
      return;
    }
    errors.push(m.text());
  });
  return { errors, expect: () => { expected++; } };
}

// Stacks by square from a Mixtour FEN, the way docs/rules/mixtour.md defines it.
export function stacksOf(fen) {
  const stacks = {};
  fen.split(' ')[0].split('/').forEach((row, i) => {
    const rank = 5 - i;
    let file = 0;
    for (const cell of row.split(',')) {
      if (cell.startsWith('x')) {
        const n = cell.length > 1 ? parseInt(cell.slice(1), 10) : 1;
        for (let k = 0; k < n; k++) stacks['abcde'[file++] + rank] = '';
      } else {
        stacks['abcde'[file++] + rank] = cell;
      }
    }
  });
  return stacks;
}

// ---- the other games ----------------------------------------------------

export const LETTERS = 'abcdefghijklmnopqrs';
export const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
export const family = (variant) => variant.split('-')[0];

// One rank of a position string, `x` / `xN` expanded to empty cells.
export function cellsOf(row) {
  return row.split(',').flatMap((c) => (c.startsWith('x') ? Array(c.length > 1 ? parseInt(c.slice(1), 10) : 1).fill('') : [c]));
}

// The files of a rank of the 52-square Coin Stack board.
export function coinFiles(rank) {
  const cut = rank === 0 || rank === 7 ? 2 : rank === 1 || rank === 6 ? 1 : 0;
  return range(cut, 7 - cut);
}

// Stacks (knights in Castle) by square, read from a position string the
// way docs/rules/ defines it.
export function boardOf(variant, fen) {
  const field = fen.split(' ')[0];
  const board = {};
  if (family(variant) === 'silo') {
    field.split('/').forEach((c, i) => { board[LETTERS[i]] = c === 'x' ? '' : c; });
    return board;
  }
  const size = family(variant) === 'castle' ? 19 : 8;
  const files = size === 19 ? () => range(0, 18) : coinFiles;
  field.split('/').forEach((row, i) => {
    const rank = size - 1 - i;
    cellsOf(row).forEach((c, k) => { board[LETTERS[files(rank)[k]] + (rank + 1)] = c; });
  });
  return board;
}

// The squares of a move text: Silo `c` (to the next square in the mover's
// direction), the others `<from><to>` or a drop `<to>`.
export function squaresOf(variant, move, mover) {
  if (family(variant) === 'silo') {
    return { from: move, to: LETTERS[LETTERS.indexOf(move) + (mover === 'p1' ? 1 : -1)] };
  }
  const m = /^([a-s]\d{1,2})([a-s]\d{1,2})$/.exec(move);
  return m ? { from: m[1], to: m[2] } : { from: null, to: move };
}

// The board after `move` by `mover`, as the rules say: Silo moves the
// mover's highest checker and all above it; Coin Stack moves the top n coins
// n squares and trims the stack to 5 from the bottom; a Castle knight moves
// (capturing whatever stood there); a drop adds one coin on top.
export function afterMove(variant, board, move, mover) {
  const next = { ...board };
  const { from, to } = squaresOf(variant, move, mover);
  const digit = mover === 'p1' ? '1' : '2';
  if (!from) {
    next[to] = (next[to] + digit).slice(-5);
  } else if (family(variant) === 'silo') {
    const at = board[from].lastIndexOf(digit);
    next[from] = board[from].slice(0, at);
    next[to] = board[to] + board[from].slice(at);
  } else if (family(variant) === 'castle') {
    next[to] = board[from];
    next[from] = '';
  } else {
    const n = distance(move);
    next[from] = board[from].slice(0, -n);
    next[to] = (board[to] + board[from].slice(-n)).slice(-5);
  }
  return next;
}

// How far a `<from><to>` move goes.
export function distance(move) {
  const m = /^([a-s])(\d{1,2})([a-s])(\d{1,2})$/.exec(move);
  return Math.max(Math.abs(m[1].charCodeAt(0) - m[3].charCodeAt(0)), Math.abs(m[2] - m[4]));
}

// The count of pieces a move takes, as the page offers it.
export function countOf(variant, move) {
  if (family(variant) !== 'coinstack' && family(variant) !== 'focus') return 1;
  return squaresOf(variant, move).from ? distance(move) : 1;
}

// A new game from the form: `p1`/`p2` are 'human' or an engine's name.
export async function newGameOn(page, variant, p1, p2, { level = '20', time = '100' } = {}) {
  await page.selectOption('#new-variant', variant);
  await page.selectOption('#p1-player', p1);
  await page.selectOption('#p2-player', p2);
  if (p1 === 'stackfish') await page.selectOption('#p1-level', level);
  if (p2 === 'stackfish') await page.selectOption('#p2-level', level);
  await page.selectOption('#new-time', time);
  const before = await page.evaluate(() => Number(document.body.dataset.version));
  await page.click('#new-button');
  await page.waitForFunction(([v, n]) => document.getElementById('variant-name').textContent === v
    && Number(document.body.dataset.version) > n, [variant, before]);
}

// Plays a Mixtour move of any board by clicks: the square (an entry), or
// the source, the count if more than one is possible, the target.
export async function clickMixtour(page, move) {
  const square = (name) => page.locator(`#board g[data-square="${name}"]`);
  const m = /^(\d?)([a-j]\d{1,2})([a-j]\d{1,2})$/.exec(move);
  if (!m) {
    await square(move).click();
    return;
  }
  await square(m[2]).click();
  const count = m[1] ? parseInt(m[1], 10) : 1;
  if (await page.locator('#count-picker').isVisible()) {
    const chosen = await page.locator('#counts button.chosen').getAttribute('data-count');
    if (chosen !== String(count)) await page.click(`#counts button[data-count="${count}"]`);
  }
  await square(m[3]).click();
}
