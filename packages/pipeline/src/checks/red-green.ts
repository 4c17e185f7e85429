import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BaselineCheck, CheckRun } from '@pullwright/agent';
import type { Evidence } from '@pullwright/core';

/** Paths that hold tests in the common layouts (JS/TS, Python, Go, Ruby, Rust integration tests). */
export const TEST_FILE =
  /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py)$|(^|\/)test_[^/]+\.py$|_spec\.rb$/;

interface RedGreenInput {
  baseline: BaselineCheck | undefined;
  final: CheckRun | undefined;
  changedFiles: string[];
  summary: string;
  /** Runs the test check on the base commit plus the given test files copied from the worktree. */
  runTestsOnBase: (copy: (baseDir: string) => Promise<void>) => Promise<CheckRun>;
  worktree: string;
}

/**
 * Evidence for /debug: the tests that fail without the fix (red) and pass with it (green).
 * Tests already failing on the base count; so do new tests, which are run against the base
 * code to show they catch the bug.
 */
export async function redGreenEvidence(input: RedGreenInput): Promise<Evidence> {
  const { baseline, final } = input;
  const couldNot = /^COULD NOT REPRODUCE:(.*)$/m.exec(input.summary);
  if (!final) return { reproduced: false, red: [], green: [], note: 'the repository has no test check' };
  const red = new Set(baseline && !baseline.passed ? baseline.failingTests : []);
  const newTests = input.changedFiles.filter((f) => TEST_FILE.test(f));
  if (newTests.length > 0) {
    const onBase = await input.runTestsOnBase(async (baseDir) => {
      for (const f of newTests) {
        await mkdir(path.dirname(path.join(baseDir, f)), { recursive: true });
        await copyFile(path.join(input.worktree, f), path.join(baseDir, f)).catch(() => undefined);
      }
    });
    for (const t of onBase.failingTests) red.add(t);
  }
  const stillFailing = new Set(final.failingTests);
  const green = [...red].filter((t) => final.passed || !stillFailing.has(t)).sort();
  const reproduced = green.length > 0 && !couldNot;
  const note = couldNot
    ? couldNot[1]!.trim()
    : reproduced
      ? undefined
      : 'no test failed before the change and passed after it';
  return { reproduced, red: [...red].sort(), green, ...(note ? { note } : {}) };
}

/**
 * The evidence as one Markdown paragraph, the same on the PR body and the tracking comment
 * (README: "/debug records red → green evidence on the PR"). Not reproduced says so in those
 * words, with the reason: the model's own (`COULD NOT REPRODUCE: …`) or what the tests showed.
 */
export function evidenceMarkdown(evidence: Evidence): string {
  const names = (tests: string[]) => tests.map((t) => `\`${t.replace(/`/g, "'")}\``).join(', ');
  if (evidence.reproduced)
    return `**Reproduced, red → green:** ${evidence.green.length} test(s) failed before the change and pass with it: ${names(evidence.green)}.`;
  const before = evidence.red.length > 0 ? ` Failing before the change: ${names(evidence.red)}.` : '';
  const after = evidence.green.length > 0 ? ` Passing with it: ${names(evidence.green)}.` : '';
  return `**Could not reproduce:** ${(evidence.note ?? 'no test failed before the change and passed after it').replace(/[.\s]+$/, '')}.${before}${after} Judge the change by its review and checks.`;
}
