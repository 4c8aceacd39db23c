// The browser board without a server: the board's state (the JSON API of
// `stackfish serve`) runs in stackfish.wasm on the calling thread, and its
// searches on the engine of the same module in a worker (stackfish.js's
// createEngine()).
//
//   import { createLocalBackend } from "stackfish/board.js";
//   const backend = await createLocalBackend({ onState: (s) => draw(s) });
//   const { status, json } = await backend.request("POST", "/api/move", '{"move":"c3"}');
//
// request() answers every route of the server's API but /api/events, with
// the server's status, content type and body; onState(state) follows every
// change instead of the event stream. The ABI is protocol.md's ("The
// engine in WebAssembly", the board ABI).

import { compile, createEngine, withStubs } from "./stackfish.js";

/** Options: `module` (a compiled stackfish.wasm) or `wasmUrl` (a source
 * for compile()); `onState(state)`, after creation and on every change;
 * `onError(message)`, when the engine's worker crashed (it is restarted). */
export async function createLocalBackend({ module, wasmUrl, onState, onError } = {}) {
  module = module ?? (await compile(wasmUrl));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let exports = null;
  let answer = null;
  let closed = false;
  const text = (ptr, len) => decoder.decode(new Uint8Array(exports.memory.buffer, ptr, len));
  /** Hands `value` to an export taking (…, ptr, len); the export frees it. */
  const withText = (value, call) => {
    const bytes = encoder.encode(value);
    const ptr = exports.sf_alloc(bytes.length);
    new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
    return call(ptr, bytes.length);
  };

  // The searches: one engine, one search at a time; a search ordered while
  // another runs waits for that one's bestmove.
  let current = null;
  const queue = [];
  const engine = await createEngine({
    module,
    onLine: (line) => {
      if (closed || current === null) return;
      const search = current.search;
      if (line.startsWith("bestmove")) {
        current = null;
        queueMicrotask(next);
      }
      withText(line, (ptr, len) => exports.sb_engine_line(search, ptr, len));
    },
    onCrash: (why) => {
      if (closed) return;
      const message = `stackfish crashed (${why})`;
      onError?.(message);
      if (current !== null) {
        withText(message, (ptr, len) => exports.sb_engine_failed(current.search, ptr, len));
      }
    },
  });
  const next = () => {
    if (closed || current !== null || queue.length === 0) return;
    current = queue.shift();
    for (const line of current.send) engine.send(line);
    if (current.stop) engine.send("stop");
  };
  const order = (message) => {
    if (message.send) {
      queue.push({ search: message.search, send: message.send, stop: false });
      // Not from inside the board's call: the engine's answers re-enter it.
      queueMicrotask(next);
    } else if (message.stop) {
      if (current?.search === message.search) engine.send("stop");
      const waiting = queue.find((s) => s.search === message.search);
      if (waiting) waiting.stop = true;
    }
  };

  let pending = false;
  const changed = () => {
    if (pending || closed) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      if (!closed) onState?.(call("GET", "/api/state").json);
    });
  };

  const env = {
    sb_out: (ptr, len) => {
      answer = JSON.parse(text(ptr, len));
    },
    sb_engine: (ptr, len) => order(JSON.parse(text(ptr, len))),
    sb_changed: changed,
    sf_now: () => performance.now(),
    sf_wall: () => Date.now(),
  };
  exports = new WebAssembly.Instance(module, { env: withStubs(module, env) }).exports;

  const call = (method, path, body) => {
    answer = null;
    const request = JSON.stringify({ method, path, body: body ?? "" });
    withText(request, (ptr, len) => exports.sb_call(ptr, len));
    const { status, type, body: content, base64, filename } = answer;
    const json = type.startsWith("application/json") ? JSON.parse(content) : undefined;
    return { status, type, body: content, json, base64: !!base64, filename };
  };

  onState?.(call("GET", "/api/state").json);
  return {
    async request(method, path, body) {
      if (closed) throw new Error("stackfish board: the backend is closed");
      return call(method, path, body);
    },
    close() {
      closed = true;
      engine.terminate();
    },
  };
}
