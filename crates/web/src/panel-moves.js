// Panel: the moves of the line, two to a row. The move that led to the
// position shown is highlighted, the moves after it (stepped back over)
// are grey, inaccuracies, mistakes and blunders carry `?!`, `?` and `??`;
// a click on a move
// shows the position after it.

import { $ } from './draw.js';
import { copy, goTo } from './page.js';
import { local, registerPanel, saveFile, state } from './store.js';

const SUFFIX = { inaccuracy: '?!', mistake: '?', blunder: '??' };

function render(state) {
  const list = $('moves');
  const all = state.moves.concat(state.future);
  const here = state.moves.length;
  list.replaceChildren();
  for (let i = 0; i < all.length; i += 2) {
    const li = document.createElement('li');
    for (let k = i; k < Math.min(i + 2, all.length); k++) {
      const m = document.createElement('span');
      const mark = state.marks[k];
      m.className = 'mv' + (k + 1 === here ? ' current' : '') + (k >= here ? ' future' : '') + (mark ? ' ' + mark : '');
      m.dataset.ply = k + 1;
      m.textContent = all[k] + (mark ? SUFFIX[mark] : '');
      if (mark) m.title = mark;
      m.addEventListener('click', () => goTo(k + 1));
      li.appendChild(m);
    }
    list.appendChild(li);
  }
  // Keep the move shown in view, scrolling the list only (not the page).
  const shown = list.querySelector('.current');
  if (shown) {
    const top = shown.offsetTop;
    if (top < list.scrollTop || top + shown.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
}

$('copy-moves').addEventListener('click', () => copy(state.moves.concat(state.future).join(' '), 'move list'));

// The record and the StackAndConquer files: links to the server's
// downloads; on the static site, files made in the page.
for (const id of ['download', 'save-stacksav', 'save-stackboard']) {
  $(id).addEventListener('click', (event) => {
    if (!local) return;
    event.preventDefault();
    saveFile('/' + $(id).getAttribute('href'));
  });
}

registerPanel({ render });
