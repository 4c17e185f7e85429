/**
 * `pullwright scan` as a pre-commit hook runs it: a fresh Node process on the compiled CLI
 * (apps/cli/dist, built first from the current sources) scanning a small tree, wall time
 * per call; and `pullwright start --help`, what someone trying the CLI waits for first.
 * Baseline: a bare `node -e 0` in the same run, the floor of any Node CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'apps/cli/bin/pullwright.js');

function smallTree(files: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-cli-bench-'));
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `src/mod${i % 8}`);
    mkdirSync(sub, { recursive: true });
    const body = Array.from(
      { length: 60 },
      (_, l) =>
        `export function handler${l}(req: Request, apiKey = process.env.API_KEY_${l}) { return fetch(req.url, { headers: { token: apiKey } }); }`,
    ).join('\n');
    writeFileSync(path.join(sub, `file${i}.ts`), `${body}\n`);
  }
  return dir;
}

function median(run: () => void, n: number): number {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

export default async function scannerCliBench(opts: { smoke: boolean }) {
  execFileSync(process.execPath, [path.join(ROOT, 'apps/cli/scripts/build.mjs')]);
  const files = 50;
  const dir = smallTree(files);
  try {
    const n = opts.smoke ? 3 : 9;
    const scan = () => {
      const r = spawnSync(process.execPath, [BIN, 'scan', dir], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`scan exited ${r.status}: ${r.stderr}`);
    };
    const nodeOnly = () => spawnSync(process.execPath, ['-e', '0']);
    const help = () => {
      const r = spawnSync(process.execPath, [BIN, 'start', '--help'], { encoding: 'utf8' });
      if (r.status !== 0 || !r.stdout.startsWith('usage: pullwright start')) throw new Error(`--help: ${r.stderr}`);
    };
    scan();
    const scanMs = median(scan, n);
    const helpMs = median(help, n);
    const nodeMs = median(nodeOnly, n);
    return [
      {
        name: `pullwright scan, ${files} files (compiled CLI, new process)`,
        value: Number(scanMs.toFixed(0)),
        unit: 'ms',
        baseline: Number(nodeMs.toFixed(0)),
        ratio: Number((scanMs / nodeMs).toFixed(1)),
        target: '< 1000 ms',
      },
      {
        name: 'pullwright start --help (compiled CLI, new process)',
        value: Number(helpMs.toFixed(0)),
        unit: 'ms',
        baseline: Number(nodeMs.toFixed(0)),
        ratio: Number((helpMs / nodeMs).toFixed(1)),
        target: '< 1000 ms',
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
