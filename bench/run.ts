/**
 * Runs every `bench/*.bench.ts` and prints its measurements. Each benchmark measures its
 * own baseline in the same run and reports a ratio, so numbers compare across machines.
 *   npm run bench                 full runs
 *   npm run bench -- --smoke      tiny sizes (what CI runs)
 *   npm run bench -- locks        only benchmarks whose file name contains "locks"
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
}

type Bench = (opts: { smoke: boolean }) => Promise<BenchResult[]>;

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const filters = args.filter((a) => !a.startsWith('--'));
const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

const fmt = (n: number | undefined) => (n === undefined ? '' : Number.isInteger(n) ? String(n) : n.toPrecision(4));
let failed = false;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: Bench };
  process.stdout.write(`\n## ${file}${smoke ? ' (smoke)' : ''}\n`);
  try {
    const results = await mod.default({ smoke });
    for (const r of results) {
      const ratio = r.ratio === undefined ? '' : `  ratio ${fmt(r.ratio)}`;
      const baseline = r.baseline === undefined ? '' : `  (baseline ${fmt(r.baseline)} ${r.unit})`;
      const target = r.target ? `  target ${r.target}` : '';
      process.stdout.write(`${r.name.padEnd(58)} ${fmt(r.value).padStart(10)} ${r.unit}${baseline}${ratio}${target}\n`);
    }
  } catch (err) {
    failed = true;
    process.stdout.write(`FAILED: ${(err as Error).stack ?? err}\n`);
  }
}
if (files.length === 0) process.stdout.write('no benchmarks matched\n');
process.exitCode = failed ? 1 : 0;
