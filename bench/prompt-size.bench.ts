/**
 * Prompt size per turn on a real-size codebase: Pullwright's repository map (files and
 * top-level symbols, fixed token budget) vs a whole-codebase rollup (seed 003's
 * codeRollup approach), both with the same system prompt and request. Target: ≤ 10 %.
 */

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRepoMap, coderPrompt, estimateTokens, listRepoFiles, worktreeFiles } from '@pullwright/agent';
import { PathGuard } from '@pullwright/security';
import type { BenchResult } from './run.ts';

const SOURCE = path.resolve(import.meta.dirname, '../node_modules/bullmq/dist/esm');

export default async function promptSize({ smoke }: { smoke: boolean }): Promise<BenchResult[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pw-bench-map-'));
  try {
    cpSync(smoke ? path.join(SOURCE, 'classes') : SOURCE, path.join(root, 'src'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '-A'], { cwd: root });
    const files = await listRepoFiles(root);
    const system = coderPrompt('debug', ['test', 'lint']);
    const task = 'Request (debug): Worker stalls when the connection drops during moveToActive.';

    const started = performance.now();
    const map = await buildRepoMap(worktreeFiles(new PathGuard(root)), 2000);
    const mapMs = performance.now() - started;
    const rollup = files.map((f) => `--- ${f} ---\n${readFileSync(path.join(root, f), 'utf8')}`).join('\n');

    const withMap = estimateTokens(system + task + map);
    const withRollup = estimateTokens(system + task + rollup);
    return [
      {
        name: `codebase: bullmq dist/esm${smoke ? '/classes' : ''} (${files.length} files)`,
        value: estimateTokens(rollup),
        unit: 'tokens',
      },
      {
        name: 'first coder turn with repo map',
        value: withMap,
        unit: 'tokens',
        baseline: withRollup,
        ratio: withMap / withRollup,
        target: '≤ 0.10',
      },
      { name: 'repo map build time', value: Math.round(mapMs), unit: 'ms' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
