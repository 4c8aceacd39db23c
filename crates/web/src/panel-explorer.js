// Panel: the Silo table explorer (`stackfish serve --silo-tables`). For a
// Silo position a table covers: its exact value and every legal move with
// the value after it, best first for the side to move; a click on a move
// plays it. The server probes the tables; the page only shows them.

import { $ } from './draw.js';
import { play } from './page.js';
import { familyOf, humanCanMove, local, registerPanel } from './store.js';

function render(state) {
  const box = $('explorer');
  const silo = familyOf(state.variant) === 'silo';
  // The static site has no tables: a note where the explorer would be.
  $('explorer-note').hidden = !(local && silo);
  box.hidden = !silo || state.silo_tables.length === 0;
  if (box.hidden) return;
  const table = state.table;
  const list = $('table-moves');
  list.replaceChildren();
  if (!table) {
    $('table-value').textContent = 'No table covers this position (tables loaded: '
      + state.silo_tables.join('; ') + ').';
    box.dataset.covered = 'false';
    return;
  }
  box.dataset.covered = 'true';
  $('table-value').textContent = table.value + ' (' + table.config + ')';
  for (const m of table.moves) {
    const li = document.createElement('li');
    li.className = 'table-move ' + m.result;
    li.dataset.move = m.move;
    li.dataset.result = m.result;
    li.dataset.plies = m.plies;
    const b = document.createElement('b');
    b.textContent = m.move;
    li.append(b, ' ', m.value);
    if (humanCanMove()) li.addEventListener('click', () => play(m.move));
    list.appendChild(li);
  }
}

registerPanel({ render });
