// Panel: the review of the whole game. "Analyse game" has the engine
// search every position of the line, from the last back to the first, at
// the budget picked here (nodes a position); a progress bar and a cancel
// while it runs; then each side's accuracy and count of inaccuracies,
// mistakes and blunders, "next mistake" per side, and for the move that
// led to the position shown its class, what it cost and the engine's
// better move with its line (a click on a marked move in the list or on
// the graph shows it). The evaluations and marks fill the graph and the
// move list through the state's `evals` and `marks`.

import { $ } from './draw.js';
import { goTo } from './page.js';
import { local, post, registerPanel, saveFile, sideLabel, state } from './store.js';

const SUFFIX = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const TITLE = { inaccuracy: 'Inaccuracy', mistake: 'Mistake', blunder: 'Blunder' };

// The review's moves, when it judged any and fits the line shown.
const reviewed = (s) => (s.review && s.review.state !== 'outdated' ? s.review : null);

function drawProgress(review) {
  const running = review && review.state === 'running';
  const bar = $('review-progress');
  bar.hidden = !running;
  bar.max = Math.max(1, review ? review.total : 1);
  bar.value = review ? review.done : 0;
  $('review-cancel').hidden = !running;
  $('review-button').hidden = running;
  $('review-button').disabled = state.moves.length + state.future.length === 0 || (state.thinking && !running);
  $('review-budget').disabled = running;
  const status = $('review-status');
  const panel = $('review');
  panel.dataset.state = review ? review.state : 'none';
  panel.dataset.done = review ? review.done : 0;
  panel.dataset.total = review ? review.total : 0;
  if (!review) {
    status.textContent = 'Not analysed yet.';
    return;
  }
  const took = (review.elapsed_ms / 1000).toFixed(1) + ' s';
  const of = review.done + ' of ' + review.total + ' positions';
  status.textContent = {
    running: 'Analysing… ' + of + ' (' + took + ')',
    done: 'Analysed ' + review.total + ' positions with ' + review.engine + ' at '
      + review.nodes.toLocaleString() + ' nodes each, in ' + took + '.',
    cancelled: 'Cancelled after ' + of + (review.message ? ': ' + review.message : '') + '.',
    failed: 'The analysis stopped after ' + of + ': ' + review.message,
    outdated: 'The game changed since its analysis (' + review.message + '): analyse it again.',
  }[review.state];
}

function drawSummary(review) {
  const box = $('review-summary');
  box.hidden = !review || review.moves.every((m) => m.loss === null);
  if (box.hidden) return;
  for (const side of ['p1', 'p2']) {
    const a = review.accuracy[side];
    const c = review.counts[side];
    $('review-accuracy-' + side).textContent = a === null || a === undefined ? '–' : a.toFixed(1) + '%';
    $('review-counts-' + side).textContent = c.inaccuracy + ' ?!, ' + c.mistake + ' ?, ' + c.blunder + ' ??';
    const next = nextMarked(review, side);
    const button = $('review-next-' + side);
    button.disabled = next === null;
    button.dataset.ply = next === null ? '' : next;
  }
}

// The next move of `side` with a mark after the position shown, from the
// start again after the last; its ply (the position after it), or null.
function nextMarked(review, side) {
  const marked = review.moves.map((m, i) => (m.side === side && m.class ? i + 1 : null)).filter((p) => p !== null);
  if (marked.length === 0) return null;
  return marked.find((p) => p > state.moves.length) ?? marked[0];
}

function drawMove(review) {
  const box = $('review-move');
  const ply = state.moves.length;
  const m = review && ply > 0 ? review.moves[ply - 1] : null;
  box.hidden = !m || m.loss === null;
  if (box.hidden) return;
  const all = state.moves.concat(state.future);
  const name = all[ply - 1] + (m.class ? SUFFIX[m.class] : '');
  const lost = (m.loss * 100).toFixed(0);
  let words = 'Move ' + ply + ', ' + name + ' by ' + sideLabel(m.side) + ': ';
  words += m.class ? TITLE[m.class] + ', ' + lost + '% of the expected score lost.' : 'fine (' + lost + '% lost).';
  $('review-move-text').textContent = words;
  // The better move of a marked move: a fine move's other choice is noise.
  const better = $('review-better');
  better.hidden = !(m.class && m.best);
  if (!better.hidden) {
    $('review-better-move').textContent = m.best;
    const rest = m.line.slice(1);
    $('review-better-then').hidden = rest.length === 0;
    $('review-better-line').textContent = rest.join(' ');
  }
}

// The record the line was loaded from, and where the rules stopped it.
function drawLoaded(loaded) {
  const note = $('loaded-note');
  note.hidden = !loaded;
  if (!loaded) return;
  note.textContent = loaded.name + ': ' + loaded.plies + (loaded.plies === 1 ? ' move' : ' moves')
    + (loaded.stopped ? '; the record stops before move ' + loaded.stopped.ply + ' (' + loaded.stopped.move
      + ': ' + loaded.stopped.error + ')' : '') + '.';
}

function render(s) {
  const review = reviewed(s);
  drawLoaded(s.loaded);
  drawProgress(s.review);
  drawSummary(review);
  drawMove(review);
  $('review-download').hidden = !review || review.state !== 'done';
}

$('review-button').addEventListener('click', () => {
  post('/api/review/start', { nodes: Number($('review-budget').value) }, 'review-message');
});
$('review-cancel').addEventListener('click', () => post('/api/review/stop', {}, 'review-message'));
for (const side of ['p1', 'p2']) {
  $('review-next-' + side).addEventListener('click', (event) => {
    const ply = Number(event.currentTarget.dataset.ply);
    if (ply) goTo(ply);
  });
}
$('review-download').addEventListener('click', (event) => {
  if (!local) return;
  event.preventDefault();
  saveFile('/api/review/pgn');
});
registerPanel({ render });
