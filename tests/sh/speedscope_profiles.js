/* SPDX-License-Identifier: MIT */
// speedscope_profiles.js - loads any profile files (Chrome JSON, folded stacks, ...) with
// speedscope's own importProfileGroupFromText (npm bundle, under node, with a do-nothing
// DOM) and prints one JSON line per file: profiles, total weight, frame names.
// Loads speedscope's release bundle under node with a do-nothing DOM and
// exposes its importer (importProfileGroupFromText) on globalThis.
const fs = require('fs');
const path = require('path');
const dir = path.join(process.argv[2], 'node_modules/speedscope/dist/release');
const file = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f));
let src = fs.readFileSync(path.join(dir, file), 'utf8');
const m = src.match(/var ([A-Za-z0-9_$]+)=Promise\.resolve\(\)\.then\(\(\)=>\(([A-Za-z0-9_$]+)\(\),([A-Za-z0-9_$]+)\)\)/);
if (!m) { console.error('cannot find the importer module in ' + file); process.exit(2); }
src = src.replace(m[0], m[0] + ';globalThis.__speedscopeImporter=' + m[1]);
const stub = new Proxy(function () {}, {
  get: (t, k) => k === Symbol.toPrimitive ? (() => '') : (k === 'then' ? undefined : stub),
  apply: () => stub, construct: () => stub, set: () => true,
});
for (const k of ['window', 'document', 'navigator', 'location', 'localStorage', 'requestAnimationFrame',
                 'HTMLElement', 'Image', 'devicePixelRatio', 'addEventListener', 'matchMedia', 'getComputedStyle'])
  if (!(k in globalThis)) globalThis[k] = stub;
try { (0, eval)(src); } catch (e) { /* the UI part fails without a DOM; the importer is already defined */ }
const imp = globalThis.__speedscopeImporter;
// usage: node speedscope_profiles.js NPM_DIR FILE... : one JSON line per file
(async () => {
  const mod = await imp;
  for (const f of process.argv.slice(3)) {
    const g = await mod.importProfileGroupFromText(path.basename(f), fs.readFileSync(f, 'utf8'));
    if (!g) { console.log(JSON.stringify({file: path.basename(f), error: 'not imported'})); process.exitCode = 1; continue; }
    const names = new Set();
    let total = 0;
    for (const p of g.profiles) { total += p.getTotalWeight(); p.forEachFrame(fr => names.add(fr.name)); }
    console.log(JSON.stringify({file: path.basename(f), profiles: g.profiles.length, total, names: [...names].sort()}));
  }
})().catch(e => { console.log(JSON.stringify({error: String(e && e.stack)})); process.exit(1); });
