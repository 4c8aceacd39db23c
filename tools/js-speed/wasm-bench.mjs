// `bench` through the browser build (stackfish.wasm, its hand-written ABI)
// in Node, or in headless Chromium with --chromium (playwright-core from
// tests/web-e2e). Prints the engine's bench lines; the last is `<nodes>
// nodes <nps> nps`, the engine's own count and clock (sf_now is
// performance.now()).
//
//   node tools/js-speed/wasm-bench.mjs [--chromium] path/to/stackfish.wasm
import { readFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const inChromium = args[0] === '--chromium';
const wasmPath = inChromium ? args[1] : args[0];
if (!wasmPath) {
  console.error('usage: node wasm-bench.mjs [--chromium] stackfish.wasm');
  process.exit(2);
}

// Runs in Node and, as its source, in the page: instantiates the module with
// the engine's imports (every other import a function that does nothing, as
// stackfish.js does) and hands it the line `bench`.
async function runBench(bytes) {
  let memory;
  const lines = [];
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const env = new Proxy({}, {
    get(_, name) {
      if (name === 'sf_out') return (p, n) => lines.push(decoder.decode(new Uint8Array(memory.buffer, p, n)));
      if (name === 'sf_now') return () => performance.now();
      if (name === 'sf_wall') return () => Date.now();
      return () => 0;
    },
  });
  const { instance } = await WebAssembly.instantiate(bytes, { env });
  memory = instance.exports.memory;
  const line = encoder.encode('bench');
  const ptr = instance.exports.sf_alloc(line.length);
  new Uint8Array(memory.buffer, ptr, line.length).set(line);
  const cpu = typeof process === 'object' ? process.cpuUsage() : null;
  instance.exports.sf_line(ptr, line.length);
  if (cpu) {
    // The CPU time of the bench alone (startup and compilation left out):
    // steadier than the clock on a loaded machine, for comparing builds.
    const used = process.cpuUsage(cpu);
    console.error(`cpu ${((used.user + used.system) / 1000).toFixed(0)} ms`);
  }
  return lines;
}

const bytes = readFileSync(wasmPath);
let lines;
if (!inChromium) {
  lines = await runBench(bytes);
} else {
  const here = dirname(fileURLToPath(import.meta.url));
  const require = createRequire(join(here, '../../tests/web-e2e/package.json'));
  const { chromium } = require('playwright-core');
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'stackfish-speed-')), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.setContent('<!doctype html><title>bench</title>');
    lines = await page.evaluate(async ([source, b64]) => {
      const run = eval(`(${source})`);
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return run(bytes);
    }, [runBench.toString(), bytes.toString('base64')]);
  } finally {
    await context.close();
  }
}
for (const l of lines) console.log(l);
