// The worker of stackfish.js's createEngine(): one Stackfish engine fed the
// lines posted to it; its output lines posted back. The first message is
// { module }, the compiled WebAssembly.Module. A trap (a panic in the
// engine) is posted as { error } and ends the worker.
import { Stackfish } from "./stackfish.js";

const isNode = typeof process === "object" && !!process.versions?.node;
const port = isNode ? (await import("node:worker_threads")).parentPort : globalThis;
const post = (message) => port.postMessage(message);
const listen = (handler) =>
  isNode ? port.on("message", handler) : port.addEventListener("message", (e) => handler(e.data));

let engine = null;
listen((message) => {
  try {
    if (typeof message === "object" && message.module) {
      engine = new Stackfish(message.module, post);
    } else if (engine && !engine.send(message)) {
      post({ quit: true });
    }
  } catch (error) {
    engine = null;
    post({ error: String(error?.message ?? error) });
  }
});
