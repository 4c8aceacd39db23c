// The Mixtour part of `bench` through a StackAndConquer CPU script's engine,
// in Node: the script file as the app evaluates it (a plain script), then
// the engine's sc_bench. Prints the engine's lines, the last one
// `<nodes> nodes <nps> nps` as `stackfish bench` ends.
//
//   node tools/sac-cpu/bench.js target/stackandconquer/StackfishCPU.js [depth]
"use strict";
const fs = require("fs");
const vm = require("vm");
const [file, depth] = process.argv.slice(2);
if (!file) {
  console.error("usage: node tools/sac-cpu/bench.js SCRIPT.js [depth]");
  process.exit(2);
}
const context = vm.createContext({ game: { log: (line) => console.log(line) } });
vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
const engine = vm.runInContext("stackfishModule()", context);
const start = process.hrtime.bigint();
const len = engine.sc_bench(Number(depth || 0));
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const lines = Buffer.from(engine.memory.buffer, engine.sc_out(), len).toString().trimEnd().split("\n");
const nodes = Number(lines.pop().split(" ")[0]);
for (const line of lines) console.log(line);
console.log(`${nodes} nodes ${Math.round((nodes * 1000) / Math.max(ms, 1))} nps`);
