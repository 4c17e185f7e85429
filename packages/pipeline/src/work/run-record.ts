import {
  type CheckRun,
  firstFailingTrace,
  type McpCallRecord,
  type ModelCallRecord,
  type RepositoryInstructions,
  testCounts,
} from '@pullwright/agent';
import type { Plan, Review } from '@pullwright/core';
import type { ArtifactStore } from '@pullwright/queue';
import type { Redactor } from '@pullwright/security';

/** Numbered artifacts: `001-plan.json`, `002-test.txt`… (seed 003: a number groups a check with its model call). */
const NUMBERED = /^(\d{3,})-/;

/** Checks that run tests go to TEST_REPORT.json; every other check (lint, typecheck, build) to LINT_REPORT.json. */
const TEST_CHECK = /test|spec|e2e/i;

/** What each role's model calls are called in the record. */
const LABELS: Record<string, string> = { planner: 'plan', coder: 'code', fixer: 'fix', reviewer: 'review' };

const PLAN_ARTIFACT = 'PLAN.json';
const TEST_REPORT_ARTIFACT = 'TEST_REPORT.json';
const LINT_REPORT_ARTIFACT = 'LINT_REPORT.json';
const REVIEW_ARTIFACT = 'REVIEW.json';
const INSTRUCTIONS_ARTIFACT = 'INSTRUCTIONS.json';

/**
 * The run record a person can audit (seeds 002–004): one numbered artifact per model call
 * and per check run, in the order they happened, and the reports (plan, tests, lint,
 * review) kept current beside them. Stored with the operation in the ArtifactStore — never
 * in the worktree, so nothing of it can reach the branch. Numbering continues across a
 * retried job and a revision (it starts after the highest number stored).
 */
export class RunRecord {
  #next: number;
  /** The latest run of each check, for the reports. */
  readonly #latest = new Map<string, CheckRun>();
  #planId: string | undefined;

  private constructor(
    private readonly artifacts: ArtifactStore,
    private readonly opId: string,
    private readonly redactor: Pick<Redactor, 'redact' | 'redactValue'>,
    next: number,
  ) {
    this.#next = next;
  }

  static async open(
    artifacts: ArtifactStore,
    opId: string,
    redactor: Pick<Redactor, 'redact' | 'redactValue'>,
  ): Promise<RunRecord> {
    const numbers = (await artifacts.names(opId)).map((n) => Number(NUMBERED.exec(n)?.[1] ?? 0));
    return new RunRecord(artifacts, opId, redactor, Math.max(0, ...numbers) + 1);
  }

  /** `NNN-<label>.<ext>`: the number is taken before any await, so concurrent writers never share one. */
  #name(label: string, ext: string): string {
    const n = this.#next++;
    return `${String(n).padStart(3, '0')}-${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}.${ext}`;
  }

  #putJson(name: string, value: unknown): Promise<void> {
    return this.artifacts.put(this.opId, name, `${JSON.stringify(this.redactor.redactValue(value), null, 2)}\n`);
  }

  /** One model call: what was new in its request, and the answer. */
  async modelCall(call: ModelCallRecord): Promise<void> {
    const name = this.#name(LABELS[call.role] ?? call.role, 'json');
    await this.#putJson(name, {
      role: call.role,
      turn: call.turn,
      model: call.model,
      stop_reason: call.stopReason,
      usage: call.usage,
      ...(call.system !== undefined ? { system: call.system } : {}),
      input: call.input,
      output: call.output,
    });
  }

  /** One call of an MCP tool (`NNN-mcp-<server>.json`): the tool, its input, and the output as the model read it. */
  async mcpCall(call: McpCallRecord): Promise<void> {
    await this.#putJson(this.#name(`mcp-${call.server}`, 'json'), {
      server: call.server,
      tool: call.tool,
      input: call.input,
      is_error: call.isError,
      duration_ms: call.durationMs,
      output: call.output,
    });
  }

  /** The repository's instruction files the prompts were given (each with its text) and the ones left out, with why. */
  async instructions(instructions: RepositoryInstructions): Promise<void> {
    if (instructions.files.length === 0 && instructions.skipped.length === 0) return;
    await this.#putJson(INSTRUCTIONS_ARTIFACT, {
      budget_tokens_per_prompt: instructions.budgetTokens,
      files: instructions.files.map((f) => ({ path: f.path, kind: f.kind, tokens: f.tokens, text: f.text })),
      skipped: instructions.skipped,
    });
  }

  /**
   * One check run (seed 003's build.txt): output, exit code and duration; then the reports
   * again. A result served from an earlier run on the same tree is filed once, saying so (the
   * model saw it; the verification that reuses this job's own run adds nothing new).
   */
  async checkRun(run: CheckRun): Promise<void> {
    const latest = this.#latest.get(run.name);
    if (run.reused && latest && sameResult(latest, run)) return;
    const name = this.#name(run.name, 'txt');
    const text = [
      `check: ${run.name}`,
      ...(run.reused ? ['reused: the result of an earlier run on the same tree; not run again'] : []),
      `command: ${run.command}`,
      `exit code: ${run.exitCode ?? 'none'}${run.timedOut ? ' (timed out)' : ''}`,
      `duration: ${run.durationMs} ms`,
      `result: ${run.passed ? 'passed' : 'failed'}`,
      '--- output (stdout and stderr, interleaved as they arrived) ---',
      run.output,
    ].join('\n');
    await this.artifacts.put(this.opId, name, this.redactor.redact(text));
    this.#latest.set(run.name, run);
    const tests = TEST_CHECK.test(run.name);
    await this.#report(tests ? TEST_REPORT_ARTIFACT : LINT_REPORT_ARTIFACT, (n) => TEST_CHECK.test(n) === tests);
  }

  /** The latest run of every check that ran in this job, in the order they first ran. */
  latestRuns(): CheckRun[] {
    return [...this.#latest.values()];
  }

  async plan(plan: Plan): Promise<void> {
    this.#planId = plan.plan_id;
    await this.#putJson(PLAN_ARTIFACT, plan);
  }

  async review(review: Review): Promise<void> {
    await this.#putJson(REVIEW_ARTIFACT, review);
  }

  /** Seed 004's verifier report: per check, pass/fail counts and the first failing trace. */
  async #report(name: string, include: (check: string) => boolean): Promise<void> {
    const checks = [...this.#latest.values()]
      .filter((r) => include(r.name))
      .map((r) => ({
        name: r.name,
        command: r.command,
        passed: r.passed,
        exit_code: r.exitCode,
        duration_ms: r.durationMs,
        tests: testCounts(r.output) ?? null,
        failing_tests: r.failingTests,
        first_failure: r.passed ? null : firstFailingTrace(r.output),
      }));
    await this.#putJson(name, {
      ...(this.#planId ? { plan_id: this.#planId } : {}),
      passed: checks.filter((c) => c.passed).length,
      failed: checks.filter((c) => !c.passed).length,
      checks,
    });
  }
}

function sameResult(a: CheckRun, b: CheckRun): boolean {
  return a.command === b.command && a.exitCode === b.exitCode && a.durationMs === b.durationMs && a.output === b.output;
}
