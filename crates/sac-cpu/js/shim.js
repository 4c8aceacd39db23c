// ---------------------------------------------------------------------------
// The script's side of StackAndConquer (protocol.md, "The StackAndConquer CPU
// script"): callCPU reads the app's getters into one JSON request, the engine
// (stackfishModule above, crates/sac-cpu) answers with a move and log lines.
// Everything else (reading the board, mapping moves, the rule for what the
// engine cannot play) is the engine's, tested natively. This part only
// guards: whatever happens, the move returned is one of the app's legal
// moves, and nothing is thrown.

var STACKFISH_LEVEL = @LEVEL@;
// The engine's exports, made by initCPU or the first callCPU; dropped after
// a failure, so the next turn starts a fresh one.
var stackfishEngine = null;

function stackfishLog(text) {
  try {
    game.log(text);
  } catch (e) {
    // No log to write to: nothing else to do.
  }
}

function stackfishStart() {
  if (stackfishEngine === null) {
    stackfishEngine = stackfishModule();
    stackfishEngine.sc_init(STACKFISH_LEVEL);
  }
  return stackfishEngine;
}

// UTF-8, by hand: the app's JS engine has no TextEncoder nor TextDecoder.
function stackfishUtf8(text) {
  var bytes = [];
  for (var i = 0; i < text.length; i++) {
    var c = text.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      var d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) {
      bytes.push(c);
    } else if (c < 0x800) {
      bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    } else if (c < 0x10000) {
      bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    } else {
      bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
  }
  return bytes;
}

function stackfishText(heap, at, len) {
  var out = "";
  var i = at;
  var end = at + len;
  while (i < end) {
    var b = heap[i++];
    var c = b;
    if (b >= 0xf0) {
      c = ((b & 7) << 18) | ((heap[i] & 63) << 12) | ((heap[i + 1] & 63) << 6) | (heap[i + 2] & 63);
      i += 3;
    } else if (b >= 0xe0) {
      c = ((b & 15) << 12) | ((heap[i] & 63) << 6) | (heap[i + 1] & 63);
      i += 2;
    } else if (b >= 0xc0) {
      c = ((b & 31) << 6) | (heap[i] & 63);
      i += 1;
    }
    if (c >= 0x10000) {
      c -= 0x10000;
      out += String.fromCharCode(0xd800 + (c >> 10), 0xdc00 + (c & 1023));
    } else {
      out += String.fromCharCode(c);
    }
  }
  return out;
}

// A getter's value as plain JSON data: a list the app hands as a sequence
// becomes an array; a getter that is missing or throws gives null.
function stackfishGet(name) {
  try {
    var v = game[name]();
    if (v === undefined || v === null) {
      return null;
    }
    if (typeof v === "object" && typeof v.length === "number") {
      var list = [];
      for (var i = 0; i < v.length; i++) {
        list.push(v[i]);
      }
      return list;
    }
    return v;
  } catch (e) {
    return null;
  }
}

function stackfishSameMove(a, b) {
  return a.length === 3 && b.length === 3 && a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

// The engine's turn: its reply's move, after logging its lines.
function stackfishTurn(request) {
  var engine = stackfishStart();
  var bytes = stackfishUtf8(request);
  var at = engine.sc_alloc(bytes.length);
  new Uint8Array(engine.memory.buffer).set(bytes, at);
  var len = engine.sc_turn(at, bytes.length);
  var reply = JSON.parse(stackfishText(new Uint8Array(engine.memory.buffer), engine.sc_out(), len));
  for (var i = 0; i < reply.log.length; i++) {
    stackfishLog(reply.log[i]);
  }
  return reply.move;
}

function initCPU(jsonEmptyBoard) {
  try {
    stackfishStart();
  } catch (e) {
    stackfishEngine = null;
    stackfishLog("stackfish: the engine failed to start (" + e + "); it tries again on its turn");
  }
}

function callCPU(jsonBoard) {
  var legalText = stackfishGet("getLegalMoves");
  var legal = [];
  try {
    legal = typeof legalText === "string" ? JSON.parse(legalText) : legalText;
  } catch (e) {
    legal = [];
  }
  if (!legal || typeof legal.length !== "number") {
    legal = [];
  }
  var move = null;
  try {
    move = stackfishTurn(JSON.stringify({
      board: typeof jsonBoard === "string" ? jsonBoard : String(jsonBoard),
      id: stackfishGet("getID"),
      players: stackfishGet("getNumOfPlayers"),
      height: stackfishGet("getHeightToWin"),
      towers: stackfishGet("getTowersNeededToWin"),
      stones: stackfishGet("getNumberOfStones"),
      last: stackfishGet("getLastMove"),
      legal: legalText,
      columns: stackfishGet("getBoardDimensionX"),
      rows: stackfishGet("getBoardDimensionY")
    }));
  } catch (e) {
    stackfishEngine = null;
    stackfishLog("stackfish: the engine failed (" + e + "); playing the first legal move");
  }
  if (move) {
    for (var i = 0; i < legal.length; i++) {
      if (stackfishSameMove(move, legal[i])) {
        return [legal[i][0], legal[i][1], legal[i][2]];
      }
    }
    stackfishLog("stackfish: the engine's move " + JSON.stringify(move) +
      " is not in the app's list; playing the first legal move");
  }
  if (legal.length > 0 && legal[0] && legal[0].length === 3) {
    return [legal[0][0], legal[0][1], legal[0][2]];
  }
  stackfishLog("stackfish: the app gave no legal move to return");
  return [];
}
