import path from 'node:path';
import { FixReport, isPullwrightError, type Plan, type PlanStep, Review } from '@pullwright/core';
import type { z } from 'zod';
import { type AgentLoopOptions, type AgentLoopResult, runAgentLoop } from './agent-loop.ts';
import type { BudgetTracker } from './budget-tracker.ts';
import { failureFingerprint, trimFailure } from './check-failures.ts';
import { extractModelJson, type Parsed } from './extract-model-json.ts';
import { instructionsSection, type RepositoryInstructions } from './instructions/repository-instructions.ts';
import type { ModelMessage, ModelProvider } from './model-provider.ts';
import { currentFiles, repairFiles } from './prompt-files.ts';
import { numberPlan, PlannerAnswer, withKnownChecks } from './role-outputs.ts';
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
import type { AgentTool, CheckRun, ToolContext } from './tools/define-tool.ts';
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
  /**
   * How the checks do on the base commit. Awaited only when the change's checks are judged,
   * so the model starts while the baseline still runs beside it.
   */
  baseline: Promise<Record<string, BaselineCheck>>;
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
  onModelCall?: AgentLoopOptions['onModelCall'];
  /**
   * Seed 004, per repository: after each plan step its declared checks (`tests`) run, and a
   * red step goes to the fixer before the next step starts. Off: the coder does the whole
   * plan in one conversation and the checks run at the end.
   */
  perStepVerification?: boolean;
  /** The fixer's report after each repair round (its strict JSON, or why it was not valid). */
  onFixReport?: (entry: FixReportEntry) => Promise<void>;
  /** A plan step starting, verified green, or left red (per-step verification). */
  onPlanStep?: (event: PlanStepEvent) => Promise<void>;
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
  // --- issue 31: what the model knows (instructions, MCP tools) ---
  /** The repository's instruction files (read at prepare from the base commit): each role's task gets the ones reaching its files. */
  instructions?: RepositoryInstructions;
  /** Files the requester named: what the planner's instructions are chosen for. */
  targetFiles?: readonly string[];
  /** Tools offered beside the built-in ones (the team's MCP servers), per role; never in text-edit mode. */
  extraTools?: (role: string) => readonly AgentTool[];
}

/** One repair round's fixer report: the model's JSON when it validated, else the problem with it. */
export interface FixReportEntry {
  round: number;
  /** The plan step being repaired (per-step verification), if any. */
  taskId?: string;
  valid: boolean;
  report?: FixReport;
  problem?: string;
}

export interface PlanStepEvent {
  planId: string;
  taskId: string;
  title: string;
  state: 'started' | 'verified' | 'failed' | 'done';
  checks?: { name: string; passed: boolean }[];
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
  /** Every repair round's fixer report, in order. */
  fixReports: FixReportEntry[];
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

/**
 * Planner → coder → verify → (fixer → verify)* → reviewer. The roles follow the seeds:
 * the planner and reviewer only look; the coder and fixer edit; at most `maxRepairs` repair
 * rounds; the reviewer cannot accept a change whose checks fail. With per-step verification
 * the coder works one plan step at a time, each step's checks green before the next.
 */
export async function solveRequest(input: SolveInput): Promise<SolveResult> {
  const maxRepairs = input.maxRepairs ?? 3;
  const journal = await SolveJournal.open(input.checkpoint);
  if (journal.recordedModelCalls > 0) input.provider.resumeAfter?.(journal.recordedModelCalls);
  // Phases an earlier attempt reached were reported then; a resumed solve reports only new ones.
  const onPhase: NonNullable<SolveInput['onPhase']> = async (phase, data) => {
    if (!journal.replaying) await input.onPhase?.(phase, data);
  };
  const onPlanStep = async (e: PlanStepEvent) => {
    if (!journal.replaying) await input.onPlanStep?.(e);
  };
  const checkNames = input.context.checks.names();
  const textMode = input.editMode === 'text';
  /** Planner and reviewer only look; a model without tool calling gets no tool definitions in any role. */
  const lookTools = textMode ? [] : READ_ONLY_TOOLS;
  let plan: Plan | undefined;
  let summary = '';
  let repairs = 0;
  let lastFingerprint: string | undefined;
  let checks: CheckRun[] = [];
  let newFailures: CheckRun[] = [];
  /** The baseline once a verification has awaited it (nothing is pre-existing before any check ran). */
  let baseline: Record<string, BaselineCheck> = {};
  const fixReports: FixReportEntry[] = [];
  const partial = (outcome: SolveOutcome, reason?: string): SolveResult => ({
    outcome,
    ...(reason ? { reason } : {}),
    ...(plan ? { plan } : {}),
    summary,
    checks,
    newFailures,
    preExisting: preExistingOf(checks, newFailures, baseline),
    repairs,
    fixReports,
  });
  const loop: Loop = (role, system, task, tools, messages) =>
    journal.conversation(role, phaseOf(role), (resume, onTurn) =>
      runAgentLoop({
        provider: input.provider,
        system,
        task,
        ...(resume ? { messages: resume.messages, resume } : messages ? { messages } : {}),
        // issue 31: a role that calls tools also gets the MCP tools the policy gives it.
        tools: tools.length > 0 ? [...tools, ...(input.extraTools?.(role) ?? [])] : tools,
        context: input.context,
        budget: input.budget,
        role,
        onTurn,
        ...(input.transcript ? { transcript: input.transcript } : {}),
        ...(input.shouldStop ? { shouldStop: input.shouldStop } : {}),
        ...(input.readInbox ? { readInbox: input.readInbox } : {}),
        ...(input.onStep ? { onStep: input.onStep } : {}),
        ...(input.onUsage ? { onUsage: input.onUsage } : {}),
        ...(input.onModelCall ? { onModelCall: input.onModelCall } : {}),
      }),
    );
  /** Repair rounds of the final loop: it has its own `maxRepairs`, per-step rounds were spent on their steps. */
  const finalRounds = () => repairs - fixReports.filter((f) => f.taskId !== undefined).length;
  const interrupted = (r: AgentLoopResult): SolveResult | undefined =>
    r.stop === 'completed' ? undefined : partial(r.stop, r.reason);

  // Plan
  if (!input.skipPlan) {
    await onPhase('plan', {});
    const planned = await askForJson(
      'planner',
      PlannerAnswer,
      plannerPrompt(checkNames, !textMode),
      `${input.task}${instructionsSection(input.instructions, input.targetFiles ?? [])}\n\nRepository map:\n${input.repoMap}`,
      lookTools,
      loop,
    );
    if ('stop' in planned) return interrupted(planned.stop) ?? partial('stopped');
    if (!planned.parsed.ok)
      return partial('invalid_plan', `the planner's plan was invalid twice: ${planned.parsed.problem}`);
    const known = withKnownChecks(numberPlan(planned.parsed.value), checkNames);
    plan = known.plan;
    await onPhase('plan', { plan, ...(known.note ? { note: known.note } : {}) });
    if (journal.plan) {
      plan = journal.plan;
      await input.onPlan?.(plan, { resumed: true });
    } else {
      // A person confirming the plan may add a step: the ids are assigned again, in order.
      plan = numberPlan((await input.onPlan?.(plan, { resumed: false })) ?? plan);
      await journal.recordPlan(plan);
    }
  }

  // Code
  await onPhase('code', {});
  const planText = plan ? `\n\nPlan:\n${JSON.stringify(plan, null, 2)}` : '';
  /** Text mode: files the model saw only in part; a whole-file block for one is refused. */
  const shownInPart = new Set<string>();
  /** Text mode: why the file blocks of the last answer were not applied (nothing was written). */
  let applyProblem: string | undefined;
  const textAttempt = async (role: 'coder' | 'fixer', task: string, round = 1): Promise<AgentLoopResult> => {
    const r = await loop(role, textEditPrompt(input.type, role, checkNames, round), task, []);
    if (r.stop !== 'completed') return r;
    applyProblem = await applyBlocks(r.finalText, input.context, shownInPart);
    await input.transcript?.append('file_blocks', {
      role,
      applied: !applyProblem,
      ...(applyProblem ? { problem: applyProblem } : {}),
    });
    return r;
  };
  /** issue 31: the files the plan and the request name, which the coder's and fixer's instructions are chosen for. */
  const planFiles = [...(input.targetFiles ?? []), ...(plan?.steps.flatMap((st) => st.files) ?? [])];
  const codeTask = `${input.task}${planText}${instructionsSection(input.instructions, planFiles)}\n\nRepository map:\n${input.repoMap}`;
  const code = async (task: string, files: string[]): Promise<AgentLoopResult> => {
    if (!textMode) return loop('coder', coderPrompt(input.type, checkNames), task, ALL_TOOLS);
    const shown = await currentFiles(files, input.readFile);
    for (const f of shown.partial) shownInPart.add(f);
    return textAttempt('coder', `${task}${shown.text}`);
  };

  /** One repair round: the fixer on `repairTask`, its strict JSON report recorded. */
  const fix = async (repairTask: string, scope: string, taskId?: string): Promise<SolveResult | undefined> => {
    repairs++;
    await onPhase('repair', { round: repairs, failing: newFailures.map((c) => c.name), ...(taskId ? { taskId } : {}) });
    const changed = await input.changedFiles();
    const files = await repairFiles(
      changed,
      input.readFile,
      textMode ? 'it cannot be replaced whole' : 'read it with read_file and a line range',
    );
    for (const f of files.partial) shownInPart.add(f);
    const fixTask = `${repairTask}${scope}\n\nThe request:\n${input.task}${planText}${instructionsSection(input.instructions, [...changed, ...planFiles])}\n\nThe latest version of each changed file:\n${files.text || '(no file changed yet)'}`;
    let fixed = textMode
      ? await textAttempt('fixer', fixTask, repairs)
      : await loop('fixer', fixerPrompt(checkNames, repairs), fixTask, ALL_TOOLS);
    let stop = interrupted(fixed);
    if (stop) return stop;
    const answer = (r: AgentLoopResult) => (textMode ? proseAfterBlocks(r.finalText) : r.finalText);
    let parsed = extractModelJson(FixReport, answer(fixed));
    if (!parsed.ok && !textMode) {
      // One corrective turn in the same conversation, as for the planner and the reviewer.
      fixed = await loop('fixer', fixerPrompt(checkNames, repairs), fixTask, ALL_TOOLS, [
        ...fixed.messages,
        { role: 'user', content: [{ type: 'text', text: notValid(parsed.problem) }] },
      ]);
      stop = interrupted(fixed);
      if (stop) return stop;
      parsed = extractModelJson(FixReport, answer(fixed));
    }
    const entry: FixReportEntry = {
      round: repairs,
      ...(taskId ? { taskId } : {}),
      valid: parsed.ok,
      ...(parsed.ok ? { report: parsed.value } : { problem: parsed.problem }),
    };
    fixReports.push(entry);
    if (!journal.replaying) await input.onFixReport?.(entry);
    if (parsed.ok) {
      const fixes = parsed.value.fixes_applied.map((f) => `${f.file}: ${f.description}`).join('; ');
      summary = `${summary}\n\nRepair round ${repairs}: ${fixes || parsed.value.status}`.trim();
    }
    return undefined;
  };

  if (input.perStepVerification && plan) {
    for (const step of plan.steps) {
      const stop = await verifiedStep(plan, step);
      if (stop) return stop;
    }
  } else {
    const coded = await code(codeTask, plan?.steps.flatMap((st) => st.files) ?? []);
    const stop = interrupted(coded);
    if (stop) return stop;
    if (!textMode) summary = coded.finalText;
  }

  for (;;) {
    const repairTask = applyProblem
      ? `Your file blocks were not applied; nothing was written:\n${applyProblem}`
      : await verifyAndReview();
    if (typeof repairTask !== 'string') return repairTask;
    if (applyProblem && finalRounds() >= maxRepairs) {
      return partial(
        'checks_failed',
        `file blocks still not applicable after ${repairs} repair rounds: ${applyProblem}`,
      );
    }
    const stop = await fix(repairTask, '');
    if (stop) return stop;
  }

  /**
   * One plan step under per-step verification: the coder on this step only, then the step's
   * declared checks; red goes to the fixer (at most `maxRepairs` rounds for the step) and
   * blocks the next step until green.
   */
  async function verifiedStep(p: Plan, step: PlanStep): Promise<SolveResult | undefined> {
    const id = step.id ?? '?';
    const base = { planId: p.plan_id ?? '', taskId: id, title: step.title };
    await onPlanStep({ ...base, state: 'started' });
    const task = `${codeTask}\n\nWork on step ${id} only ("${step.title}"; done when: ${step.acceptance}). The steps before it are done; leave the later ones for later.`;
    const coded = await code(task, step.files);
    const stop = interrupted(coded);
    if (stop) return stop;
    if (!textMode) summary = `${summary}\n\n${id}: ${coded.finalText}`.trim();
    if (step.tests.length === 0) {
      await onPlanStep({ ...base, state: 'done' });
      return undefined;
    }
    for (let round = 0; ; round++) {
      let repairTask: string;
      if (applyProblem) repairTask = `Your file blocks were not applied; nothing was written:\n${applyProblem}`;
      else {
        checks = await journal.checks(async () => {
          const runs: CheckRun[] = [];
          for (const name of step.tests) runs.push(await input.context.checks.run(name, input.context.signal));
          return runs;
        });
        baseline = await input.baseline;
        newFailures = blockingFailures(input.type, checks, baseline);
        const states = checks.map((c) => ({ name: c.name, passed: !newFailures.includes(c) }));
        if (newFailures.length === 0) {
          await onPlanStep({ ...base, state: 'verified', checks: states });
          return undefined;
        }
        if (round >= maxRepairs) {
          await onPlanStep({ ...base, state: 'failed', checks: states });
          return partial(
            'checks_failed',
            `step ${id} ("${step.title}") still failing after ${round} repair rounds: ${newFailures.map((c) => c.name).join(', ')}; the later steps were not started`,
          );
        }
        repairTask = failureText(newFailures);
      }
      if (applyProblem && round >= maxRepairs)
        return partial('checks_failed', `step ${id}: file blocks still not applicable: ${applyProblem}`);
      const fixStop = await fix(
        repairTask,
        `\n\nThis is step ${id} of the plan ("${step.title}"): make its checks (${step.tests.join(', ')}) pass before anything else.`,
        id,
      );
      if (fixStop) return fixStop;
    }
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
    baseline = await input.baseline;
    newFailures = blockingFailures(input.type, checks, baseline);

    const rounds = finalRounds();
    if (newFailures.length > 0) {
      if (rounds >= maxRepairs) {
        return partial(
          'checks_failed',
          `checks still failing after ${repairs} repair rounds: ${newFailures.map((c) => c.name).join(', ')}`,
        );
      }
      const fingerprint = newFailures.map((c) => failureFingerprint(c.name, c.output)).join(',');
      if (rounds >= 2 && fingerprint === lastFingerprint) {
        return partial(
          'stuck',
          `the same failure (${newFailures.map((c) => c.failingTests.join(', ') || c.name).join('; ')}) came back after two repairs`,
        );
      }
      lastFingerprint = fingerprint;
      return failureText(newFailures);
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
      reviewerPrompt(!textMode),
      `${input.task}${planText}${instructionsSection(input.instructions, changed)}\n\nCheck results:\n${checkSummary}\n\nDiff:\n${diff.slice(0, 60_000)}`,
      lookTools,
      loop,
    );
    if ('stop' in reviewed) return interrupted(reviewed.stop) ?? partial('stopped');
    if (!reviewed.parsed.ok)
      return partial('invalid_review', `the reviewer's answer was invalid twice: ${reviewed.parsed.problem}`);
    const review = reviewed.parsed.value;
    if (review.decision === 'accept') return { ...partial('ready'), review };
    if (rounds >= maxRepairs) {
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

/** The repair task for failing checks: each with its command and the seed 002 head-and-tail of its output. */
function failureText(failing: CheckRun[]): string {
  return failing
    .map((c) => `Check "${c.name}" failed (exit ${c.exitCode ?? 'none'}):\n$ ${c.command}\n${trimFailure(c.output)}`)
    .join('\n\n');
}

function notValid(problem: string): string {
  return `That answer is not valid: ${problem}. Reply with only the JSON object, matching the schema exactly.`;
}

/** Text mode: the fixer's JSON report follows its last file block; file contents may hold braces of their own. */
function proseAfterBlocks(answer: string): string {
  const lines = answer.split('\n');
  const last = lines.findLastIndex((l) => /^\^\^\^(end|delete)\s*$/.test(l.replace(/\r$/, '')));
  return lines.slice(last + 1).join('\n');
}

/**
 * Parses and applies a text-mode answer, all or nothing; returns why it was not applied, if
 * it was not. A whole-file block for a file the model saw only in part is refused: the part
 * it did not see would be dropped.
 */
async function applyBlocks(
  answer: string,
  context: ToolContext,
  shownInPart: ReadonlySet<string>,
): Promise<string | undefined> {
  const { blocks, problems } = parseFileBlocks(answer);
  if (problems.length > 0) return problems.map((p) => `line ${p.line}: ${p.message}`).join('\n');
  if (blocks.length === 0) return 'the answer contains no file blocks';
  const cut = blocks.filter((b) => b.kind === 'write' && shownInPart.has(normalizedPath(b.path)));
  if (cut.length > 0)
    return cut
      .map(
        (b) =>
          `line ${b.line}: ${b.path} was shown to you only in part (it is too large for the prompt); a whole-file block would drop the rest of it. Leave it unchanged or change a smaller file.`,
      )
      .join('\n');
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

function normalizedPath(p: string): string {
  return path.posix.normalize(p.trim().replaceAll('\\', '/')).replace(/^\.\//, '');
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
      content: [{ type: 'text', text: notValid(parsed.problem) }],
    },
  ];
  const second = await loop(role, system, task, tools, messages);
  if (second.stop !== 'completed') return { stop: second };
  return { parsed: extractModelJson(schema, second.finalText) };
}
