import { isPullwrightError } from '@pullwright/core';
import type { z } from 'zod';
import { type AgentLoopOptions, type AgentLoopResult, runAgentLoop } from './agent-loop.ts';
import type { BudgetTracker } from './budget-tracker.ts';
import { failureFingerprint } from './check-failures.ts';
import { extractModelJson, type Parsed } from './extract-model-json.ts';
import type { ModelMessage, ModelProvider } from './model-provider.ts';
import { Plan, Review } from './role-outputs.ts';
import {
  type AgentTaskType,
  coderPrompt,
  fixerPrompt,
  plannerPrompt,
  reviewerPrompt,
  textEditPrompt,
} from './role-prompts.ts';
import { type ConversationCheckpoint, type ConversationPhase, SolveJournal } from './solve-journal.ts';
import { applyFileBlocks } from './text-edit/apply-file-blocks.ts';
import { parseFileBlocks } from './text-edit/parse-file-blocks.ts';
import type { CheckRun, ToolContext } from './tools/define-tool.ts';
import { ALL_TOOLS, READ_ONLY_TOOLS } from './tools/index.ts';
import type { TranscriptWriter } from './transcript-writer.ts';

/** How a check did on the base commit, before any change: only new failures count against us. */
export interface BaselineCheck {
  passed: boolean;
  failingTests: string[];
  /** `failureFingerprint` of a failing run: what "the same failure" means when no test names are known. */
  fingerprint?: string;
}

export interface SolveInput {
  type: AgentTaskType;
  /** The request with its context (error text, logs, acceptance criteria, review comments). */
  task: string;
  repoMap: string;
  provider: ModelProvider;
  context: ToolContext;
  baseline: Record<string, BaselineCheck>;
  budget: BudgetTracker;
  /** Repair rounds after the first attempt (seed 003: one attempt plus three repairs). */
  maxRepairs?: number;
  /** `text`: coder and fixer answer with whole-file blocks instead of tool calls (models without tool use). */
  editMode?: 'tools' | 'text';
  /** Skip the planner (a revision already has its task list: the review comments). */
  skipPlan?: boolean;
  diff: () => Promise<string>;
  changedFiles: () => Promise<string[]>;
  readFile: (rel: string) => Promise<string | undefined>;
  transcript?: TranscriptWriter;
  shouldStop?: AgentLoopOptions['shouldStop'];
  readInbox?: AgentLoopOptions['readInbox'];
  onStep?: AgentLoopOptions['onStep'];
  onUsage?: AgentLoopOptions['onUsage'];
  /**
   * Called with the validated plan before any edit (the pipeline locks the files it names).
   * A plan it returns replaces the planner's: a person confirming the plan may add to it.
   * `resumed`: the plan was settled (and confirmed) by an earlier attempt of this solve; it is
   * the plan as that attempt returned it, and what this call returns is ignored.
   */
  onPlan?: (plan: Plan, info: { resumed: boolean }) => Promise<Plan | undefined>;
  /**
   * Where the solve records its conversations turn by turn (and its check results between
   * them); a solve given the checkpoint of an interrupted attempt continues from its last
   * completed turn. Unset: nothing is recorded, a retry starts over.
   */
  checkpoint?: ConversationCheckpoint;
  onPhase?: (phase: 'plan' | 'code' | 'verify' | 'repair' | 'review', data: Record<string, unknown>) => Promise<void>;
}

export type SolveOutcome =
  | 'ready'
  | 'checks_failed'
  | 'review_rejected'
  | 'no_changes'
  | 'stopped'
  | 'budget'
  | 'stuck'
  | 'invalid_plan'
  | 'invalid_review';

export interface SolveResult {
  outcome: SolveOutcome;
  reason?: string;
  plan?: Plan;
  summary: string;
  review?: Review;
  checks: CheckRun[];
  /** Checks failing with failures the base did not have (what blocks the change). */
  newFailures: CheckRun[];
  /** Failures already on the base commit: reported, not blocking. */
  preExisting: { name: string; failingTests: string[] }[];
  repairs: number;
}

/** Head and tail of a failing output (seed 002: first 2500 + last 1000 characters). */
export function trimFailure(output: string): string {
  return output.length <= 4000 ? output : `${output.slice(0, 2500)}\n...\n${output.slice(-1000)}`;
}

/**
 * Whether a check fails in a way the base commit did not: new failing tests, a check that
 * passed there, or (when no test names are known) an output whose fingerprint differs.
 */
export function newFailuresOf(run: CheckRun, base: BaselineCheck | undefined): boolean {
  if (run.passed) return false;
  if (!base || base.passed) return true;
  if (run.failingTests.length > 0 && base.failingTests.length > 0)
    return run.failingTests.some((t) => !base.failingTests.includes(t));
  if (base.fingerprint) return failureFingerprint(run.name, run.output) !== base.fingerprint;
  // A baseline without a fingerprint (older cache) and output we cannot read per test: pre-existing.
  return false;
}

/**
 * The failures that block a change. Every request: failures the base did not have (a check
 * red on the base with the same failing tests or output — a lint error, a broken build
 * script — is reported as pre-existing, never a reason to stop). A fix or a debug must also
 * turn a red `test` check green: that red is the bug it was asked to fix.
 */
export function blockingFailures(
  type: AgentTaskType,
  runs: readonly CheckRun[],
  baseline: Record<string, BaselineCheck>,
): CheckRun[] {
  const mustTurnGreen = type === 'fix' || type === 'debug';
  return runs.filter(
    (run) => newFailuresOf(run, baseline[run.name]) || (mustTurnGreen && run.name === 'test' && !run.passed),
  );
}

const MAX_FILE_IN_PROMPT = 40_000;

/**
 * Planner → coder → verify → (fixer → verify)* → reviewer. The roles follow the seeds:
 * the planner and reviewer only look; the coder and fixer edit; at most `maxRepairs` repair
 * rounds; the reviewer cannot accept a change whose checks fail.
 */
export async function solveRequest(input: SolveInput): Promise<SolveResult> {
  const maxRepairs = input.maxRepairs ?? 3;
  const journal = await SolveJournal.open(input.checkpoint);
  if (journal.recordedModelCalls > 0) input.provider.resumeAfter?.(journal.recordedModelCalls);
  // Phases an earlier attempt reached were reported then; a resumed solve reports only new ones.
  const onPhase: NonNullable<SolveInput['onPhase']> = async (phase, data) => {
    if (!journal.replaying) await input.onPhase?.(phase, data);
  };
  const checkNames = input.context.checks.names();
  let plan: Plan | undefined;
  let summary = '';
  let repairs = 0;
  let lastFingerprint: string | undefined;
  let checks: CheckRun[] = [];
  let newFailures: CheckRun[] = [];
  const partial = (outcome: SolveOutcome, reason?: string): SolveResult => ({
    outcome,
    ...(reason ? { reason } : {}),
    ...(plan ? { plan } : {}),
    summary,
    checks,
    newFailures,
    preExisting: preExistingOf(checks, newFailures, input.baseline),
    repairs,
  });
  const loop: Loop = (role, system, task, tools, messages) =>
    journal.conversation(role, phaseOf(role), (resume, onTurn) =>
      runAgentLoop({
        provider: input.provider,
        system,
        task,
        ...(resume ? { messages: resume.messages, resume } : messages ? { messages } : {}),
        tools,
        context: input.context,
        budget: input.budget,
        role,
        onTurn,
        ...(input.transcript ? { transcript: input.transcript } : {}),
        ...(input.shouldStop ? { shouldStop: input.shouldStop } : {}),
        ...(input.readInbox ? { readInbox: input.readInbox } : {}),
        ...(input.onStep ? { onStep: input.onStep } : {}),
        ...(input.onUsage ? { onUsage: input.onUsage } : {}),
      }),
    );
  const interrupted = (r: AgentLoopResult): SolveResult | undefined =>
    r.stop === 'completed' ? undefined : partial(r.stop, r.reason);

  // Plan
  if (!input.skipPlan) {
    await onPhase('plan', {});
    const planned = await askForJson(
      'planner',
      Plan,
      plannerPrompt(),
      `${input.task}\n\nRepository map:\n${input.repoMap}`,
      READ_ONLY_TOOLS,
      loop,
    );
    if ('stop' in planned) return interrupted(planned.stop) ?? partial('stopped');
    if (!planned.parsed.ok)
      return partial('invalid_plan', `the planner's plan was invalid twice: ${planned.parsed.problem}`);
    plan = planned.parsed.value;
    await onPhase('plan', { plan });
    if (journal.plan) {
      plan = journal.plan;
      await input.onPlan?.(plan, { resumed: true });
    } else {
      plan = (await input.onPlan?.(plan, { resumed: false })) ?? plan;
      await journal.recordPlan(plan);
    }
  }

  // Code
  await onPhase('code', {});
  const planText = plan ? `\n\nPlan:\n${JSON.stringify(plan, null, 2)}` : '';
  const textMode = input.editMode === 'text';
  /** Text mode: why the file blocks of the last answer were not applied (nothing was written). */
  let applyProblem: string | undefined;
  const textAttempt = async (role: 'coder' | 'fixer', task: string): Promise<AgentLoopResult> => {
    const r = await loop(role, textEditPrompt(input.type, role, checkNames), task, []);
    if (r.stop !== 'completed') return r;
    applyProblem = await applyBlocks(r.finalText, input.context);
    await input.transcript?.append('file_blocks', {
      role,
      applied: !applyProblem,
      ...(applyProblem ? { problem: applyProblem } : {}),
    });
    return r;
  };
  const codeTask = `${input.task}${planText}\n\nRepository map:\n${input.repoMap}`;
  const coded = textMode
    ? await textAttempt(
        'coder',
        `${codeTask}${await filesOf(plan?.steps.flatMap((st) => st.files) ?? [], input.readFile)}`,
      )
    : await loop('coder', coderPrompt(input.type, checkNames), codeTask, ALL_TOOLS);
  const stop = interrupted(coded);
  if (stop) return stop;
  if (!textMode) summary = coded.finalText;

  for (;;) {
    const repairTask = applyProblem
      ? `Your file blocks were not applied; nothing was written:\n${applyProblem}`
      : await verifyAndReview();
    if (typeof repairTask !== 'string') return repairTask;
    if (applyProblem && repairs >= maxRepairs) {
      return partial(
        'checks_failed',
        `file blocks still not applicable after ${repairs} repair rounds: ${applyProblem}`,
      );
    }

    repairs++;
    await onPhase('repair', { round: repairs, failing: newFailures.map((c) => c.name) });
    const files = await Promise.all(
      (await input.changedFiles()).map(async (f) => {
        const content = await input.readFile(f);
        return content === undefined
          ? `--- FILE REMOVED ${f} ---`
          : `--- FILE REPLACEMENT ${f} ---\n${content.slice(0, MAX_FILE_IN_PROMPT)}`;
      }),
    );
    const fixTask = `${repairTask}\n\nThe request:\n${input.task}${planText}\n\nThe latest version of each changed file:\n${files.join('\n\n') || '(no file changed yet)'}`;
    const fixed = textMode
      ? await textAttempt('fixer', fixTask)
      : await loop('fixer', fixerPrompt(checkNames), fixTask, ALL_TOOLS);
    const fixStop = interrupted(fixed);
    if (fixStop) return fixStop;
    if (fixed.finalText && !textMode) summary = `${summary}\n\n${fixed.finalText}`.trim();
  }

  /** Runs the checks; returns the next repair task, or the final result (ready, or out of repairs). */
  async function verifyAndReview(): Promise<string | SolveResult> {
    const changed = await input.changedFiles();
    if (changed.length === 0) return partial('no_changes', 'the model made no changes');

    await onPhase('verify', { files: changed });
    checks = await journal.checks(async () => {
      const runs: CheckRun[] = [];
      for (const name of checkNames) runs.push(await input.context.checks.run(name, input.context.signal));
      return runs;
    });
    newFailures = blockingFailures(input.type, checks, input.baseline);

    if (newFailures.length > 0) {
      if (repairs >= maxRepairs) {
        return partial(
          'checks_failed',
          `checks still failing after ${repairs} repair rounds: ${newFailures.map((c) => c.name).join(', ')}`,
        );
      }
      const fingerprint = newFailures.map((c) => failureFingerprint(c.name, c.output)).join(',');
      if (repairs >= 2 && fingerprint === lastFingerprint) {
        return partial(
          'stuck',
          `the same failure (${newFailures.map((c) => c.failingTests.join(', ') || c.name).join('; ')}) came back after two repairs`,
        );
      }
      lastFingerprint = fingerprint;
      return newFailures
        .map(
          (c) => `Check "${c.name}" failed (exit ${c.exitCode ?? 'none'}):\n$ ${c.command}\n${trimFailure(c.output)}`,
        )
        .join('\n\n');
    }

    await onPhase('review', {});
    const diff = await input.diff();
    const checkSummary = checks
      .map(
        (c) =>
          `${c.name}: ${c.passed ? 'pass' : `fail (pre-existing: ${c.failingTests.join(', ') || 'same as base'})`}`,
      )
      .join('\n');
    const reviewed = await askForJson(
      'reviewer',
      Review,
      reviewerPrompt(),
      `${input.task}${planText}\n\nCheck results:\n${checkSummary}\n\nDiff:\n${diff.slice(0, 60_000)}`,
      READ_ONLY_TOOLS,
      loop,
    );
    if ('stop' in reviewed) return interrupted(reviewed.stop) ?? partial('stopped');
    if (!reviewed.parsed.ok)
      return partial('invalid_review', `the reviewer's answer was invalid twice: ${reviewed.parsed.problem}`);
    const review = reviewed.parsed.value;
    if (review.decision === 'accept') return { ...partial('ready'), review };
    if (repairs >= maxRepairs) {
      return {
        ...partial(
          'review_rejected',
          `the reviewer still asks for changes: ${review.must_fix.join('; ') || review.reasons.join('; ')}`,
        ),
        review,
      };
    }
    return `The reviewer asked for changes:\n${[...review.must_fix, ...review.reasons].map((m) => `- ${m}`).join('\n')}`;
  }
}

/** Parses and applies a text-mode answer, all or nothing; returns why it was not applied, if it was not. */
async function applyBlocks(answer: string, context: ToolContext): Promise<string | undefined> {
  const { blocks, problems } = parseFileBlocks(answer);
  if (problems.length > 0) return problems.map((p) => `line ${p.line}: ${p.message}`).join('\n');
  if (blocks.length === 0) return 'the answer contains no file blocks';
  try {
    // The write hooks (secret scan, lint baseline) run before anything is written, like the tools'.
    for (const b of blocks) await context.onWrite?.(b.path, b.kind === 'write' ? b.content : null);
    await applyFileBlocks(context.root, blocks, context.guard);
    return undefined;
  } catch (err) {
    if (isPullwrightError(err)) return err.message;
    throw err;
  }
}

/** Current contents of the given files, for a model that cannot read them itself. */
async function filesOf(paths: string[], read: (rel: string) => Promise<string | undefined>): Promise<string> {
  const parts: string[] = [];
  for (const p of [...new Set(paths)]) {
    const content = await read(p);
    if (content !== undefined) parts.push(`--- FILE ${p} ---\n${content.slice(0, MAX_FILE_IN_PROMPT)}`);
  }
  return parts.length ? `\n\nCurrent files:\n${parts.join('\n\n')}` : '';
}

function preExistingOf(checks: CheckRun[], blocking: CheckRun[], baseline: Record<string, BaselineCheck>) {
  return checks
    .filter((c) => !c.passed && baseline[c.name] && !baseline[c.name]!.passed && !blocking.includes(c))
    .map((c) => ({ name: c.name, failingTests: c.failingTests }));
}

/** Which phase of the solve a role's conversation belongs to. */
function phaseOf(role: string): ConversationPhase {
  if (role === 'planner') return 'plan';
  if (role === 'reviewer') return 'review';
  return role === 'fixer' ? 'repair' : 'code';
}

type Loop = (
  role: string,
  system: string,
  task: string,
  tools: AgentLoopOptions['tools'],
  messages?: ModelMessage[],
) => Promise<AgentLoopResult>;

/** Asks a role for a JSON answer; one corrective retry in the same conversation when it does not validate. */
async function askForJson<S extends z.ZodType>(
  role: string,
  schema: S,
  system: string,
  task: string,
  tools: AgentLoopOptions['tools'],
  loop: Loop,
): Promise<{ parsed: Parsed<z.infer<S>> } | { stop: AgentLoopResult }> {
  const first = await loop(role, system, task, tools);
  if (first.stop !== 'completed') return { stop: first };
  const parsed = extractModelJson(schema, first.finalText);
  if (parsed.ok) return { parsed };
  const messages: ModelMessage[] = [
    ...first.messages,
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `That answer is not valid: ${parsed.problem}. Reply with only the JSON object, matching the schema exactly.`,
        },
      ],
    },
  ];
  const second = await loop(role, system, task, tools, messages);
  if (second.stop !== 'completed') return { stop: second };
  return { parsed: extractModelJson(schema, second.finalText) };
}
