// Panel: a new game. The game, then who plays each side: a human, or an
// engine (stackfish at a level, or any engine the server was started
// with); two engines play each other move by move.
'use strict';

(function () {
  let filled = false;

  function fillPlayers(select, engines) {
    const human = document.createElement('option');
    human.value = 'human';
    human.textContent = 'Human';
    select.appendChild(human);
    for (const name of engines) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name === 'stackfish' ? 'stackfish (this engine)' : name;
      select.appendChild(o);
    }
  }

  function fillLevels(select) {
    for (let l = 20; l >= 1; l--) {
      const o = document.createElement('option');
      o.value = l;
      o.textContent = l === 20 ? '20 (full strength)' : l;
      select.appendChild(o);
    }
  }

  function fill(state) {
    filled = true;
    const variant = $('new-variant');
    for (const v of state.variants) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v === 'mixtour' ? 'Mixtour (20 pieces, 1 point)'
        : v === 'mixtour-5' ? 'Mixtour-5 (25 pieces, 5 points)' : v;
      variant.appendChild(o);
    }
    variant.value = state.variant;
    for (const side of ['p1', 'p2']) {
      fillPlayers($(side + '-player'), state.engines);
      fillLevels($(side + '-level'));
      const p = state.players[side];
      $(side + '-player').value = p ? p.engine : 'human';
      $(side + '-level').value = p ? p.level : state.engine.level;
    }
    const time = $('new-time');
    if ([...time.options].some((o) => o.value === String(state.engine.movetime_ms))) {
      time.value = String(state.engine.movetime_ms);
    }
    nameSides();
  }

  // The side labels name the colours of the game chosen; a level is
  // stackfish's only.
  function nameSides() {
    const game = gameOf($('new-variant').value);
    const [c1, c2] = game ? game.colours : ['', ''];
    $('p1-label').textContent = 'Player 1' + (c1 ? ' (' + c1 + ', moves first)' : ' (moves first)');
    $('p2-label').textContent = 'Player 2' + (c2 ? ' (' + c2 + ')' : '');
    for (const side of ['p1', 'p2']) {
      $(side + '-level').disabled = $(side + '-player').value !== 'stackfish';
    }
  }

  $('new-variant').addEventListener('change', nameSides);
  $('p1-player').addEventListener('change', nameSides);
  $('p2-player').addEventListener('change', nameSides);
  $('new-form').addEventListener('submit', (event) => {
    event.preventDefault();
    selected = null;
    // A new game is seen from the new player's side.
    flipToggled = false;
    const request = { variant: $('new-variant').value, movetime_ms: parseInt($('new-time').value, 10) };
    let engines = 0;
    for (const side of ['p1', 'p2']) {
      const who = $(side + '-player').value;
      if (who === 'human') continue;
      engines++;
      request[side] = { engine: who, level: parseInt($(side + '-level').value, 10) };
    }
    if (engines === 0) request.engine = 'none';
    post('/api/new', request);
  });

  registerPanel({ render: (state) => { if (!filled) fill(state); } });
})();
