/* SPDX-License-Identifier: MIT */
// speedscope_import.js - loads Chrome trace JSON files with speedscope's own
// Trace Event importer under node and fails on any error.
//
// usage: node speedscope_import.js [--bench] <speedscope/dist/release> <trace.json>...
//
// --bench (bench/bench_summary.sh's peer row): warnings are counted, not
// failures; each file's line says how many, and only an exception or an
// empty result fails.
//
// The npm package ships only the browser bundle, so this script finds the
// importer function in it (the one that dispatches on `traceEvents`), exports
// it before the bundle renders its UI, and runs the bundle in a vm context
// whose browser globals are inert stand-ins. The importer is speedscope's
// unmodified code. Any exception, console.warn/console.error during import,
// or an empty result fails the run.
'use strict';
const fs = require('fs');
const vm = require('vm');
const path = require('path');

const bench = process.argv[2] === '--bench';
const dir = process.argv[bench ? 3 : 2];
const files = process.argv.slice(bench ? 4 : 3);
const bundleName = fs.readdirSync(dir).find((f) => /^speedscope-.*\.js$/.test(f));
if (!bundleName) {
  console.error(`no speedscope bundle in ${dir}`);
  process.exit(2);
}
let src = fs.readFileSync(path.join(dir, bundleName), 'utf8');
const m = /function (\w+)\(t\)\{return \w+\(t\)\?\w+\(t\):\w+\(t\)\?\w+\(t\.traceEvents\)[^}]*\}var (\w+),(\w+)=re\(/.exec(src);
const at = src.lastIndexOf('console.log(`speedscope v');
if (!m || at < 0) {
  console.error(`cannot find the Trace Event importer in ${bundleName} (speedscope version changed?)`);
  process.exit(2);
}
src = src.slice(0, at) + `globalThis.__ss={imp:${m[1]},init:${m[3]}};return;` + src.slice(at);

function inert() {
  const f = function () {};
  return new Proxy(f, {
    get: (t, k) => (k === Symbol.toPrimitive ? () => 0 : k in t ? t[k] : inert()),
    apply: () => inert(),
    construct: () => inert(),
    set: () => true,
  });
}
const problems = [];
let warned = 0; /* --bench: warnings counted only */
const quiet = {
  log: () => {},
  info: () => {},
  warn: (...a) => (bench ? warned++ : problems.push('warn: ' + a.join(' '))),
  error: (...a) => problems.push('error: ' + a.join(' ')),
};
const ctx = { console: quiet, setTimeout, clearTimeout, URL, TextDecoder, TextEncoder };
for (const k of ['window', 'document', 'navigator', 'location', 'localStorage']) ctx[k] = inert();
ctx.self = ctx.window;
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(src, ctx, { filename: bundleName });
if (!ctx.__ss) {
  console.error('the speedscope bundle did not reach the export point');
  process.exit(2);
}
ctx.__ss.init();

let failed = 0;
for (const file of files) {
  problems.length = 0;
  warned = 0;
  try {
    const group = ctx.__ss.imp(JSON.parse(fs.readFileSync(file, 'utf8')));
    const profiles = (group && group.profiles) || [];
    if (profiles.length === 0) problems.push('no profiles imported');
    for (const p of profiles) {
      if (!(p.getTotalWeight() > 0)) problems.push(`profile "${p.getName()}" is empty`);
    }
    if (bench) {
      console.log(`${file}: ${profiles.length} profiles, ${warned} warnings`);
    } else {
      console.log(`${file}: ${profiles.length} profiles: ` + profiles.map((p) => p.getName()).join('; '));
    }
  } catch (e) {
    problems.push('exception: ' + (e && e.stack ? e.stack : e));
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${file}:\n  ` + problems.join('\n  '));
  }
}
process.exit(failed ? 1 : 0);
