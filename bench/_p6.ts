import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { deepScan, SecretScanner } from '@pullwright/security';

const files: Array<[string, Buffer]> = [];
let total = 0;
const walk = (d: string) => {
  for (const n of readdirSync(d).sort()) {
    if (total > 10e6) return;
    const f = path.join(d, n);
    const st = statSync(f);
    if (st.isDirectory()) walk(f);
    else if (/\.(?:[cm]?[jt]s|json|md)$/.test(n) && st.size < 2e6) {
      const b = readFileSync(f);
      files.push([f, b]);
      total += b.length;
    }
  }
};
for (const s of [
  'node_modules/typescript/lib',
  'node_modules/bullmq/dist',
  'node_modules/zod',
  'node_modules/vitest/dist',
  'node_modules/vite/dist',
])
  walk(s);
const sc = new SecretScanner();
let t0 = performance.now();
let n = 0;
for (const [f, b] of files) n += sc.scanText(b.toString('utf8'), f).length;
console.log('scanText', (performance.now() - t0).toFixed(0), 'ms', n, 'findings', (total / 1e6).toFixed(1), 'MB');
t0 = performance.now();
n = 0;
const slow: Array<[number, string]> = [];
for (const [f, b] of files) {
  const t = performance.now();
  n += deepScan(sc, b, f).length;
  slow.push([performance.now() - t, f]);
}
console.log('deepScan', (performance.now() - t0).toFixed(0), 'ms', n, 'findings');
console.log(
  slow
    .sort((a, b) => b[0] - a[0])
    .slice(0, 5)
    .map(([t, f]) => `${t.toFixed(0)}ms ${f}`)
    .join('\n'),
);
for (const [f, b] of files) {
  const text = b.toString('utf8');
  const lines = text.split('\n');
  for (const x of sc.scanText(text, f))
    console.log(x.ruleId, f, x.line, JSON.stringify(lines[x.line - 1]!.slice(0, 160)));
}
