import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CheckRun } from '@pullwright/agent';
import { isPullwrightError, parseUnifiedDiff, ValidationError } from '@pullwright/core';
import {
  dependencyCacheOf,
  detectRepoCommands,
  installDependencies,
  RepoChecks,
  type RepoCommands,
  type Runtime,
  StopOperation,
} from '@pullwright/pipeline';
import { parseRepoPolicy } from '@pullwright/policy';
import { gitClient } from '@pullwright/workspace';
import { firstLine } from './first-line.ts';
import { type TestOutcomes, testOutcomes } from './test-outcomes.ts';

export type TreeTestsDeps = Pick<
  Runtime,
  'workspace' | 'runner' | 'redactor' | 'dependencies' | 'checkTimeoutMs' | 'egress' | 'logger'
>;

/** A diff applied on the base, in order. `reset`: its files go back to the base first (the hidden tests win over an attempt's edits of them). */
interface TreePatch {
  label: string;
  diff: string;
  reset?: boolean;
}

type TreeTestResult = ({ ok: true; run: CheckRun } & TestOutcomes) | { ok: false; problem: string };

/** Files whose change makes the base's installed dependencies the wrong ones to reuse. */
const MANIFESTS = new Set(['package.json', 'package-lock.json']);

/**
 * The repository's `test` check on a tree made of a base commit and patches, in the sandbox:
 * what mining runs on a merge's red and green trees and grading runs on an attempt's change
 * with the hidden tests. A throwaway checkout of the base from the mirror (the baseline
 * step's kind), the patches applied with git, the install command, then the check — with the
 * commands the base commit configures, as the operation itself reads them.
 */
export class TreeTests {
  constructor(private readonly deps: TreeTestsDeps) {}

  /** Install and checks as `sha`'s `.pullwright.yml` or package.json say, checked by the command policy. */
  async commandsAt(repo: string, sha: string): Promise<RepoCommands> {
    const { workspace } = this.deps;
    const [policyText, packageJson] = await workspace.readManyAt(repo, sha, ['.pullwright.yml', 'package.json']);
    const commands = await detectRepoCommands(
      policyText === undefined ? undefined : parseRepoPolicy(policyText),
      (file) => (file === 'package.json' ? Promise.resolve(packageJson) : workspace.readAt(repo, sha, file)),
      this.deps.checkTimeoutMs,
    );
    if (!commands.checks.test)
      throw new ValidationError(`${repo} has no test command at ${sha.slice(0, 12)}`, [
        { field: 'checks.test', reason: 'add checks.test to .pullwright.yml or a "test" script to package.json' },
      ]);
    return commands;
  }

  async run(
    repo: string,
    baseSha: string,
    patches: readonly TreePatch[],
    commands: RepoCommands,
  ): Promise<TreeTestResult> {
    const { workspace, runner, redactor } = this.deps;
    const touched = patches.flatMap((p) => filesOf(p.diff));
    const cache = touched.some((f) => MANIFESTS.has(f)) ? undefined : await dependencyCacheOf(this.deps, repo, baseSha);
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'pw-eval-patch-'));
    try {
      return await workspace.withTemporaryWorktree(repo, baseSha, async (dir) => {
        for (const [i, patch] of patches.entries()) {
          if (!patch.diff.trim()) continue;
          if (patch.reset) await resetToBase(dir, baseSha, filesOf(patch.diff));
          const file = path.join(scratch, `${i}.patch`);
          await writeFile(file, patch.diff.endsWith('\n') ? patch.diff : `${patch.diff}\n`);
          try {
            await gitClient(dir).raw(['apply', '--binary', '--whitespace=nowarn', file]);
          } catch (err) {
            // Without the scratch directory's host path: reasons reach reports and the dashboard.
            return {
              ok: false,
              problem: `${patch.label} cannot be applied: ${firstLine(err).replaceAll(`${scratch}/`, '')}`,
            };
          }
        }
        try {
          // No operation to record on: the evaluation's log says what its install was refused.
          const egress = {
            ...this.deps.egress,
            onRefused: async (refused: object) => this.deps.logger.warn({ repo, ...refused }, 'egress refused'),
          };
          await installDependencies(runner, commands.install, dir, redactor, egress, cache);
        } catch (err) {
          if (err instanceof StopOperation || isPullwrightError(err)) return { ok: false, problem: firstLine(err) };
          throw err;
        }
        const run = await new RepoChecks(dir, commands, runner).run('test');
        return { ok: true, run, ...testOutcomes(run.output) };
      });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}

/** The files a diff names (both names of a rename); a path that could leave the tree is refused. */
function filesOf(diff: string): string[] {
  if (!diff.trim()) return [];
  const files = parseUnifiedDiff(diff).flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
  for (const f of files)
    if (path.isAbsolute(f) || f.split('/').includes('..') || f.split('/')[0] === '.git')
      throw new ValidationError(`a patch names ${f}`, [{ field: 'patch', reason: `${f} is outside the repository` }]);
  return [...new Set(files)];
}

/** `files` as the base has them: checked out from it, or removed where the base has none. */
async function resetToBase(dir: string, baseSha: string, files: string[]): Promise<void> {
  if (files.length === 0) return;
  const git = gitClient(dir);
  const atBase = new Set(
    (await git.raw(['ls-tree', '-r', '--name-only', '-z', baseSha, '--', ...files])).split('\0').filter(Boolean),
  );
  const kept = files.filter((f) => atBase.has(f));
  if (kept.length > 0) await git.raw(['checkout', baseSha, '--', ...kept]);
  for (const f of files.filter((f) => !atBase.has(f))) await rm(path.join(dir, f), { force: true, recursive: true });
}
