// `bench` through the browser build (stackfish.wasm, its hand-written ABI)
// in Node, or in headless Chromium with --chromium (playwright-core from
// tests/web-e2e). Prints the engine's bench lines; the last is `<nodes>
// nodes <nps> nps`, the engine's own count and clock (sf_now is
// performance.now()).
//
// With --cpu it runs `bench` three times in the same instance and after
// the first and the third prints `cpu <ms> ms`: the processor time of the
// thread that ran it (Node's main thread, the renderer's main thread in
// Chromium), from Linux's /proc/<pid>/task/<tid>/schedstat, compilation
// and startup left out. The first includes V8's tier-up (baseline code
// until each hot function's optimised code arrives); the third is the
// compiled code warm. The second is not reported: on a busy 2-core
// machine V8 is sometimes still compiling some of the hot functions then
// (Node 20, in two instances of six: 492 and 507 ms against 415 and 478
// for the third).
//
//   node tools/js-speed/wasm-bench.mjs [--chromium] [--cpu] path/to/stackfish.wasm
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const inChromium = args.includes('--chromium');
const cpu = args.includes('--cpu');
const wasmPath = args.find((a) => !a.startsWith('--'));
if (!wasmPath) {
  console.error('usage: node wasm-bench.mjs [--chromium] [--cpu] stackfish.wasm');
  process.exit(2);
}
const runs = cpu ? 3 : 1;

// Runs in Node and, as its source, in the page: instantiates the module with
// the engine's imports (every other import a function that does nothing, as
// stackfish.js does) and returns a function that hands it the line `bench`
// and returns the lines it printed.
async function load(bytes) {
  let memory;
  let lines = [];
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
  return () => {
    const line = encoder.encode('bench');
    const ptr = instance.exports.sf_alloc(line.length);
    new Uint8Array(memory.buffer, ptr, line.length).set(line);
    instance.exports.sf_line(ptr, line.length);
    const printed = lines;
    lines = [];
    return printed;
  };
}

// Processor time in ms that thread `tid` of process `pid` has used so far
// (0 without --cpu: the clock mode needs no /proc).
function threadMs(pid, tid) {
  if (!cpu) return 0;
  return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

// Runs `benchOnce()` (which returns the bench's lines and its processor
// time) `runs` times, printing each one's lines and, with --cpu, the time
// of the first and the last.
async function report(benchOnce) {
  for (let i = 0; i < runs; i++) {
    const [lines, ms] = await benchOnce();
    for (const l of lines) console.log(l);
    if (cpu && (i === 0 || i === runs - 1)) console.log(`cpu ${ms.toFixed(1)} ms`);
  }
}

const bytes = readFileSync(wasmPath);
if (!inChromium) {
  const bench = await load(bytes);
  await report(() => {
    const before = threadMs(process.pid, process.pid);
    const lines = bench();
    return [lines, threadMs(process.pid, process.pid) - before];
  });
} else {
  const here = dirname(fileURLToPath(import.meta.url));
  const require = createRequire(join(here, '../../tests/web-e2e/package.json'));
  const { chromium } = require('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'stackfish-speed-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.setContent('<!doctype html><title>bench</title>');
    await page.evaluate(async ([source, b64]) => {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      window.bench = await eval(`(${source})`)(bytes);
    }, [load.toString(), bytes.toString('base64')]);
    // This browser's renderer processes (found by the profile folder on
    // their command line); the bench ran on the main thread of the one
    // whose main thread used the most time meanwhile.
    const renderers = !cpu ? [] : readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return cmdline.includes('--type=renderer') && cmdline.includes(profile);
      } catch {
        return false; // a process that ended meanwhile
      }
    });
    if (cpu && renderers.length === 0) throw new Error('found no renderer process of this browser in /proc');
    await report(async () => {
      const before = renderers.map((p) => threadMs(p, p));
      const lines = await page.evaluate(() => window.bench());
      return [lines, Math.max(0, ...renderers.map((p, i) => threadMs(p, p) - before[i]))];
    });
  } finally {
    await context.close();
  }
}
