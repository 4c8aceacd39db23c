// Panel: what the engines think. In analysis mode, the analysis engine's
// lines about the position shown (1 to 5, chosen here), every move of a
// line clickable to play the line up to it; during a game, each playing
// engine's latest lines (both of them in engine vs engine); the evaluation
// in words; and an engine's failure, as the backend reports it.

import { $ } from './draw.js';
import { engineFault, post, registerPanel, sideLabel } from './store.js';

let filled = false;

function scoreText(line) {
  if (line.mate !== null && line.mate !== undefined) return (line.mate > 0 ? '#' : '#-') + Math.abs(line.mate);
  return (line.cp >= 0 ? '+' : '') + (line.cp / 100).toFixed(2);
}

// The evaluation in words, by its size in pawns (100 centi-units), the
// same for every game (docs/playing.md, Analysis): below 0.30 about
// equal, below 1.00 slightly better, below 3.00 better, else winning.
export const WORDS = [[30, null], [100, 'is slightly better'], [300, 'is better'], [Infinity, 'is winning']];

// Names the side (Player 1 / Player 2), never the engine that plays it.
const sideName = (side) => (side === 'p1' ? 'Player 1' : 'Player 2');

function evalText(a) {
  if (!a) return 'No evaluation yet.';
  if (a.mate !== null && a.mate !== undefined) {
    const side = a.mate > 0 ? 'p1' : 'p2';
    return sideName(side) + ' wins by force: mate in ' + Math.abs(a.mate);
  }
  const cp = a.cp;
  const side = cp > 0 ? 'p1' : 'p2';
  const [, verb] = WORDS.find(([limit]) => Math.abs(cp) < limit);
  const words = verb ? sideName(side) + ' ' + verb : 'About equal';
  return words + ' (' + scoreText(a) + '; plus is good for player 1)';
}

function fill(state) {
  filled = true;
  const select = $('analyse-engine');
  for (const name of state.engines) {
    const o = document.createElement('option');
    o.value = o.textContent = name;
    select.appendChild(o);
  }
}

// One engine's report: a heading, then its lines, best first.
function drawReport(title, report, playable) {
  const box = document.createElement('div');
  box.className = 'report' + (report.running ? ' running' : '');
  box.dataset.engine = report.engine;
  const best = report.lines[0];
  const head = document.createElement('div');
  head.className = 'report-head';
  head.textContent = title + (best ? ' · depth ' + best.depth + (best.nodes ? ' · ' + best.nodes.toLocaleString() + ' nodes' : '')
    + ' · ' + (best.time_ms / 1000).toFixed(1) + ' s' : (report.running ? ' · thinking…' : ''));
  box.appendChild(head);
  for (const line of report.lines) {
    const row = document.createElement('div');
    row.className = 'line';
    row.dataset.multipv = line.multipv;
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = scoreText(line);
    row.appendChild(score);
    line.pv.forEach((mv, i) => {
      const m = document.createElement(playable ? 'button' : 'span');
      m.className = 'pv-move';
      m.textContent = mv;
      m.dataset.index = i;
      if (playable) {
        m.title = 'Play the line up to ' + mv;
        m.addEventListener('click', () => post('/api/move', { moves: line.pv.slice(0, i + 1) }));
      }
      row.appendChild(m);
    });
    box.appendChild(row);
  }
  return box;
}

function render(state) {
  if (!filled) fill(state);
  const mode = state.analysis_mode;
  $('analyse-toggle').checked = Boolean(mode);
  if (mode) {
    $('analyse-engine').value = mode.engine;
    $('analyse-lines').value = String(mode.multipv);
  }
  $('eval').textContent = evalText(state.analysis);
  const reports = $('reports');
  reports.replaceChildren();
  const here = state.moves.length;
  const r = state.reports;
  if (r.analysis && mode) {
    const playable = r.analysis.ply === here && !state.thinking && !state.outcome.over;
    const box = drawReport('Analysis: ' + r.analysis.engine, r.analysis, playable);
    box.id = 'analysis-lines';
    reports.appendChild(box);
  }
  for (const side of ['p1', 'p2']) {
    const report = r[side];
    if (!report || !state.players[side]) continue;
    const box = drawReport(report.engine + ' (' + sideLabel(side) + ')', report, false);
    box.dataset.side = side;
    reports.appendChild(box);
  }
  const error = $('engine-error');
  const failure = state.engine_error || engineFault;
  error.hidden = !failure;
  error.textContent = failure;
}

function send() {
  const on = $('analyse-toggle').checked;
  post('/api/analyse', on
    ? { on, engine: $('analyse-engine').value, multipv: parseInt($('analyse-lines').value, 10) }
    : { on });
}
$('analyse-toggle').addEventListener('change', send);
$('analyse-engine').addEventListener('change', () => { if ($('analyse-toggle').checked) send(); });
$('analyse-lines').addEventListener('change', () => { if ($('analyse-toggle').checked) send(); });

registerPanel({ render });
