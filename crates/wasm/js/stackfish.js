// stackfish in WebAssembly: the UGI engine for web pages and Node 18+.
//
//   import { createEngine } from "stackfish";
//   const engine = await createEngine();
//   engine.onLine = (line) => console.log(line);
//   engine.send("ugi");
//   engine.send("go depth 8");
//
// Two ways to run it, the same engine (the native binary's protocol loop):
// - createEngine(): in a worker (a Web Worker, or worker_threads in Node),
//   so the page or program keeps running during a search. `stop` and `quit`
//   end a search within milliseconds: the wasm engine searches on its one
//   thread and cannot read a line mid-search, so the worker is ended, the
//   `bestmove` is the first move of the last principal variation it sent,
//   and a fresh worker starts from the compiled module with the lines that
//   set the position and options replayed.
// - new Stackfish(module, onLine): on the calling thread; send() returns
//   once the line is handled (a `go` after its `bestmove`).
// The lines in and out are protocol.md's; the ABI of the .wasm is in
// protocol.md too ("The engine in WebAssembly").

const isNode = typeof process === "object" && !!process.versions?.node;

/** The engine's .wasm beside this module, compiled; or `source` (a URL or
 * path, bytes, a Response or a WebAssembly.Module). */
export async function compile(source = new URL("./stackfish.wasm", import.meta.url)) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if (typeof Response !== "undefined" && source instanceof Response) {
    return WebAssembly.compile(await source.arrayBuffer());
  }
  const url = source instanceof URL ? source : new URL(String(source), baseUrl());
  if (isNode && url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`stackfish: ${url} answered ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

function baseUrl() {
  if (isNode) return `file://${process.cwd()}/`;
  return globalThis.location?.href ?? import.meta.url;
}

/** `env` with a function that does nothing for every other function the
 * module imports: the module holds the board too (board.js), whose imports
 * an engine never calls. */
export function withStubs(module, env) {
  const all = { ...env };
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    if (from === "env" && kind === "function" && !(name in all)) all[name] = () => 0;
  }
  return all;
}

/** One engine on the calling thread. */
export class Stackfish {
  /** `module`: from compile(); `onLine(line)`: every output line. */
  constructor(module, onLine) {
    this.onLine = onLine;
    this.running = true;
    this.busy = false;
    this.queue = [];
    const decoder = new TextDecoder();
    const env = {
      sf_out: (ptr, len) => {
        const bytes = new Uint8Array(this.exports.memory.buffer, ptr, len);
        this.onLine(decoder.decode(bytes));
      },
      sf_now: () => performance.now(),
    };
    this.exports = new WebAssembly.Instance(module, { env: withStubs(module, env) }).exports;
    this.encoder = new TextEncoder();
  }

  /** Handles one input line (a line sent from inside onLine waits until the
   * current one is done); false once the engine has quit. */
  send(line) {
    this.queue.push(String(line));
    if (this.busy) return this.running;
    this.busy = true;
    try {
      while (this.queue.length > 0 && this.running) {
        const bytes = this.encoder.encode(this.queue.shift());
        const ptr = this.exports.sf_alloc(bytes.length);
        new Uint8Array(this.exports.memory.buffer, ptr, bytes.length).set(bytes);
        this.running = this.exports.sf_line(ptr, bytes.length) === 1;
      }
    } finally {
      this.busy = false;
    }
    return this.running;
  }
}

/** Commands whose effect outlives them: replayed into a fresh worker. */
const KEPT = new Set(["ugi", "uci", "setoption", "position", "uginewgame", "ucinewgame", "debug"]);

/** An engine in a worker. Options: `module` (from compile()), `wasm` (a
 * source for compile()), `onLine`, `onCrash`. */
export async function createEngine(options = {}) {
  const module = options.module ?? (await compile(options.wasm));
  const engine = new Engine(module, await workerFactory());
  if (options.onLine) engine.onLine = options.onLine;
  if (options.onCrash) engine.onCrash = options.onCrash;
  return engine;
}

async function workerFactory() {
  const url = new URL("./stackfish-worker.js", import.meta.url);
  if (isNode) {
    const { Worker } = await import("node:worker_threads");
    return () => {
      const worker = new Worker(url);
      return {
        post: (message) => worker.postMessage(message),
        listen: (handler) => worker.on("message", handler),
        failed: (handler) => worker.on("error", handler),
        end: () => worker.terminate(),
      };
    };
  }
  return () => {
    const worker = new Worker(url, { type: "module" });
    return {
      post: (message) => worker.postMessage(message),
      listen: (handler) => worker.addEventListener("message", (e) => handler(e.data)),
      failed: (handler) => worker.addEventListener("error", (e) => {
        e.preventDefault();
        handler(e);
      }),
      end: () => worker.terminate(),
    };
  };
}

class Engine {
  constructor(module, newWorker) {
    this.module = module;
    this.newWorker = newWorker;
    /** Every output line; replace to receive them. */
    this.onLine = () => {};
    /** Called with the error's text when the worker crashed, before the
     * `bestmove` (if searching) and the `info string error` line. */
    this.onCrash = () => {};
    this.kept = [];
    this.searching = false;
    this.stopping = false;
    this.sinceGo = [];
    this.lastMove = null;
    this.quit = false;
    // Failures since the worker last said anything: a line that makes the
    // engine fail every time must not restart it forever.
    this.failures = 0;
    this.start([]);
  }

  /** Sends one UGI line. */
  send(line) {
    line = String(line);
    if (this.quit) return;
    const word = line.trim().split(/\s+/)[0];
    if (this.searching) {
      // Answered here, as the native loop does mid-search (after the
      // lines already received: a microtask, not from inside send()).
      if (word === "isready") return queueMicrotask(() => this.emit("readyok"));
      if (word === "stop" || word === "quit") {
        if (word === "quit") this.quit = true;
        this.stopping = true;
        if (this.lastMove) this.interrupt();
        return;
      }
      if (word === "ponderhit") return;
      this.sinceGo.push(line);
      this.worker.post(line);
      return;
    }
    if (word === "quit") {
      this.quit = true;
      this.worker.end();
      return;
    }
    this.toWorker(line);
  }

  /** Ends the worker at once, without a `bestmove`. */
  terminate() {
    this.quit = true;
    this.worker.end();
  }

  toWorker(line) {
    const words = line.trim().split(/\s+/);
    // A position replaces the one before it whole.
    if (words[0] === "position") this.kept = this.kept.filter((l) => !/^\s*position\b/.test(l));
    if (KEPT.has(words[0])) this.kept.push(line);
    if (words[0] === "go" && words[1] !== "perft") {
      this.searching = true;
      this.stopping = false;
      this.sinceGo = [];
      this.lastMove = null;
    }
    this.worker.post(line);
  }

  emit(line) {
    if (!this.quit || line.startsWith("bestmove")) this.onLine(line);
  }

  start(pending) {
    this.worker = this.newWorker();
    // Until the replay's readyok: the replayed lines' answers are dropped.
    this.replaying = this.kept.length > 0;
    this.worker.listen((message) => this.fromWorker(message));
    this.worker.failed((error) => this.crashed(error?.message ?? String(error)));
    this.worker.post({ module: this.module });
    const kept = this.kept;
    this.kept = [];
    for (const line of kept) this.toWorker(line);
    if (this.replaying) this.worker.post("isready");
    for (const line of pending) this.toWorker(line);
  }

  fromWorker(message) {
    if (typeof message === "object") {
      if (message.error) this.crashed(message.error);
      return;
    }
    if (this.replaying) {
      if (message === "readyok") this.replaying = false;
      return;
    }
    this.failures = 0;
    if (this.searching) {
      const pv = message.match(/^info .*?\bpv (\S+)/);
      if (pv && !/\bmultipv (?!1\b)\d+/.test(message)) this.lastMove = pv[1];
      if (message.startsWith("bestmove")) {
        this.searching = false;
        this.stopping = false;
      }
    }
    this.emit(message);
    if (this.searching && this.stopping && this.lastMove) this.interrupt();
  }

  /** A stop mid-search: the last PV's move, then a fresh worker. */
  interrupt() {
    this.worker.end();
    this.searching = false;
    this.stopping = false;
    const best = `bestmove ${this.lastMove}`;
    queueMicrotask(() => this.emit(best));
    if (!this.quit) this.start(this.sinceGo);
  }

  crashed(text) {
    this.worker.end();
    this.onCrash(text);
    this.failures += 1;
    let pending = this.sinceGo;
    if (this.searching && this.lastMove) this.emit(`bestmove ${this.lastMove}`);
    else if (this.searching) this.emit("bestmove (none)");
    this.searching = false;
    this.sinceGo = [];
    // Failing again before saying anything: the replayed lines are the
    // likely cause, so the next worker starts as a new engine.
    const fresh = this.failures > 1;
    if (fresh) {
      this.kept = [];
      pending = [];
    }
    this.onLine(`info string error: the engine stopped (${text}); restarted` +
      (fresh ? " as a new engine (position and options lost)" : ""));
    if (!this.quit) this.start(pending);
  }
}
