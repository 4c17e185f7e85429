/**
 * SecretScanner throughput against a naive scanner (every rule's regex on every line, no
 * keyword prefilter) on the same corpus in the same run, plus the time to scan a 1 MB diff
 * (the commit gate's budget).
 *
 * Corpus: real source from node_modules (typescript's lib .d.ts files, bullmq's dist, …),
 * ~10 MB, files over 2 MB skipped so one bundled file does not dominate. Smoke: ~1 MB.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SecretScanner } from '@pullwright/security';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = [
  'node_modules/typescript/lib',
  'node_modules/bullmq/dist',
  'node_modules/zod',
  'node_modules/vitest/dist',
  'node_modules/vite/dist',
];
const TEXT_FILE = /\.(?:[cm]?[jt]s|json|md)$/;

function collect(limitBytes: number): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  let total = 0;
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      if (total >= limitBytes) return;
      const full = path.join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (TEXT_FILE.test(name) && st.size <= 2_000_000) {
        const text = readFileSync(full, 'utf8');
        out.push({ file: path.relative(ROOT, full), text });
        total += text.length;
      }
    }
  };
  for (const s of SOURCES) walk(path.join(ROOT, s));
  return out;
}

/** The baseline: what a scanner without a prefilter does. */
function naiveScan(scanner: SecretScanner, files: Array<{ file: string; text: string }>): number {
  let matches = 0;
  for (const { text } of files) {
    for (const line of text.split('\n')) {
      for (const rule of scanner.rules) {
        const re = rule.regex;
        if (!re) continue;
        re.lastIndex = 0;
        for (let m = re.exec(line); m !== null; m = re.exec(line)) {
          if (m[0].length === 0) re.lastIndex++;
          matches++;
        }
      }
    }
  }
  return matches;
}

function timeIt(fn: () => void, minRuns: number, minMs: number): number {
  const times: number[] = [];
  const started = performance.now();
  while (times.length < minRuns || performance.now() - started < minMs) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** A diff of about `bytes` that adds source lines (and a few secrets) to several files. */
function makeDiff(files: Array<{ text: string }>, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  let n = 0;
  for (const { text } of files) {
    const lines = text.split('\n').slice(0, 400);
    lines.push(`const token = "ghp_${'Zq8xW2'.repeat(6)}";`);
    const body = lines.map((l) => `+${l}`).join('\n');
    const chunk = `diff --git a/f${n}.ts b/f${n}.ts\n--- /dev/null\n+++ b/f${n}.ts\n@@ -0,0 +1,${lines.length} @@\n${body}\n`;
    parts.push(chunk);
    size += chunk.length;
    n++;
    if (size >= bytes) break;
  }
  return parts.join('');
}

export default async function scannerBench(opts: { smoke: boolean }) {
  const corpus = collect(opts.smoke ? 1_000_000 : 10_000_000);
  const bytes = corpus.reduce((s, f) => s + f.text.length, 0);
  const mb = bytes / 1_000_000;
  const scanner = new SecretScanner();

  const scan = (): void => {
    for (const { file, text } of corpus) scanner.scanText(text, file);
  };
  const scanMs = timeIt(scan, opts.smoke ? 1 : 3, opts.smoke ? 300 : 2000);
  const naiveMs = timeIt(() => naiveScan(scanner, corpus), 1, opts.smoke ? 0 : 1000);

  const diff = makeDiff(corpus, 1_000_000);
  const findings = scanner.scanDiff(diff);
  if (findings.length === 0) throw new Error('benchmark diff should contain planted findings');
  const diffMs = timeIt(() => scanner.scanDiff(diff), opts.smoke ? 3 : 10, opts.smoke ? 200 : 1000);

  return [
    { name: 'scanner corpus size', value: Number(mb.toFixed(2)), unit: 'MB' },
    {
      name: 'scanner throughput (prefilter)',
      value: Number((mb / (scanMs / 1000)).toFixed(1)),
      unit: 'MB/s',
      baseline: Number((mb / (naiveMs / 1000)).toFixed(2)),
      ratio: Number((naiveMs / scanMs).toFixed(1)),
      target: '>= 20x the naive every-rule-on-every-line pass',
    },
    {
      name: 'scanner corpus scan time',
      value: Number(scanMs.toFixed(1)),
      unit: 'ms',
      baseline: Number(naiveMs.toFixed(1)),
    },
    {
      name: 'scanDiff 1 MB',
      value: Number(diffMs.toFixed(1)),
      unit: 'ms',
      target: '< 100 ms',
    },
  ];
}
