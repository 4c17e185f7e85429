import {
  numberPlan,
  type SolveInput,
  type SolveOutcome,
  type SolveResult,
  solveRequest,
  TranscriptWriter,
} from '@pullwright/agent';
import type { Operation } from '@pullwright/core';
import { artifactAppender, TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { stopOrPauseAtBudget } from '../budget/budget-pause.ts';
import { usageRecorder } from '../budget/operation-accounting.ts';
import type { Step } from '../frame/job-frame.ts';
import { StopOperation } from '../frame/stop-operation.ts';
import type { WorkspaceGate } from '../gates/workspace-gate.ts';
import { openJobToolbox } from '../model-context/open-job-toolbox.ts';
import {
  awaitPlanConfirmation,
  DEFAULT_PLAN_CONFIRMATION_TIMEOUT_MS,
  needsPlanConfirmation,
  planWithNote,
} from '../work/await-plan-confirmation.ts';
import { keepWork } from '../work/keep-work.ts';
import { stopReason } from '../work/stop-reason.ts';
import { baselineOf, type PreparedWork, type WorkContext, workOf } from '../work/work-context.ts';
import { agentStepEvent } from './agent-step-event.ts';
import { checkFailureText } from './verify-step.ts';

/** What a person asked, with its context, as the model's task. */
function taskText(op: Operation): string {
  const parts = [`Request (${op.type}) for ${op.repo}, base branch ${op.baseBranch}:\n${op.description}`];
  const c = op.context;
  if (c.errorText) parts.push(`Error:\n${c.errorText}`);
  if (c.stack) parts.push(`Stack trace:\n${c.stack}`);
  if (c.logs) parts.push(`Logs:\n${c.logs}`);
  if (c.acceptance) parts.push(`Acceptance criteria:\n${c.acceptance}`);
  const f = op.featureContext;
  if (f) {
    parts.push(`Feature requirements:\n${f.requirements}`);
    parts.push(`The change is done when all of these hold:\n${f.acceptanceCriteria.map((a) => `- ${a}`).join('\n')}`);
  }
  if (op.targetFiles.length > 0) {
    parts.push(
      `Files the requester named (locked for this operation; plan your change around them):\n${op.targetFiles.map((t) => `- ${t}`).join('\n')}`,
    );
  }
  return parts.join('\n\n');
}

/**
 * The request's target files as the workspace gate names them. A file the gate refuses
 * (a secret file, `.git/`, a protected path) ends the operation before any model call: the
 * request asked for a change it cannot have.
 */
function targetFilesOf(op: Operation, gate: WorkspaceGate): string[] {
  return op.targetFiles.map((file) => {
    let rel: string;
    try {
      rel = gate.guard.normalize(file);
    } catch (err) {
      throw new StopOperation({
        code: 'path_refused',
        field: 'targetFiles',
        path: file,
        detail: (err as Error).message,
      });
    }
    if (gate.guard.isProtected(rel))
      throw new StopOperation({
        code: 'path_refused',
        field: 'targetFiles',
        path: file,
        detail: 'a protected path no operation may change',
      });
    return rel;
  });
}

/** Messages people sent to the running operation, recorded and handed to the model. */
async function readInbox(ctx: WorkContext): Promise<string[]> {
  const { deps } = ctx;
  const messages = await deps.inbox.drain(ctx.opId);
  for (const m of messages)
    await deps.events.append(ctx.opId, 'message', { from: m.from, source: m.source, text: m.text });
  return messages.map((m) => deps.redactor.redact(`${m.from} (${m.source}): ${m.text}`));
}

/**
 * What a run or a revision asks of the one solve path, beyond what every job that changes code
 * wires in; the base's check results come from the step, as its baseline step took them.
 */
type SolveJob = Pick<
  SolveInput,
  | 'type'
  | 'task'
  | 'targetFiles'
  | 'skipPlan'
  | 'skipReview'
  | 'mustStayGreen'
  | 'perStepVerification'
  | 'onPlan'
  | 'onPlanStep'
  | 'baseline'
>;

/**
 * The solve of a run or a revision (`solveRequest`: plan, code, verify, fix, review) entirely
 * behind the workspace gate and within the operation's budget: the edit mode, the repair
 * rounds, the team's MCP tools and the event stream are the same for both, and the job's
 * journal (`ctx.conversation`) lets a retried job continue from its last completed turn.
 */
export async function solveWork(ctx: WorkContext, work: PreparedWork, job: SolveJob): Promise<SolveResult> {
  const { deps, opId } = ctx;
  const { events, redactor } = deps;
  const { ws, checkedOut, gate, budget, startSha, record, instructions, mcpServers } = work;
  // Before the MCP servers open: a provider that cannot be made (the demo refusing a revision) leaves nothing open.
  const provider = deps.createProvider(ctx.kind === 'revise' ? { ...ctx.op, revision: true } : ctx.op);
  const repoMap = await gate.repoMap();
  // issue 31: the team's MCP servers for this step (closed when it ends), the instructions read at prepare.
  // They run in the worktree: with servers, the first turn waits for its checkout (issue 29).
  if (mcpServers.length > 0) await checkedOut;
  const mcp = await openJobToolbox(ctx, work);
  const result = await solveRequest({
    ...job,
    instructions,
    extraTools: (role) => mcp.toolsFor(role),
    repoMap,
    provider,
    context: gate.toolContext(),
    budget,
    maxRepairs: deps.maxRepairs,
    editMode: deps.editMode,
    diff: () => checkedOut.then(() => deps.workspace.diff(ws.dir, startSha)),
    changedFiles: () => checkedOut.then(() => deps.workspace.changedFiles(ws.dir, startSha)),
    readFile: (rel) => gate.readFile(rel),
    transcript: operationTranscript(deps, opId),
    shouldStop: () => stopOrPauseAtBudget(ctx, work),
    readInbox: () => readInbox(ctx),
    onStep: agentStepEvent(events, opId),
    onModelCall: (call) => record.modelCall(call),
    onFixReport: (e) => events.append(opId, 'fix_report', redactor.redactValue({ ...e })).then(() => undefined),
    checkpoint: deps.conversations.for(opId, ctx.conversation),
    onPhase: (phase, data) => events.append(opId, 'phase', { phase, ...data }).then(() => undefined),
    onUsage: usageRecorder(deps, ctx.op, budget),
  }).finally(() => mcp.close());
  ctx.fixReports = result.fixReports;
  // The steps after the model's (verification, publishing) work in the worktree.
  await checkedOut;
  return result;
}

/**
 * agent: planner → coder → verify → (fixer → verify)* → reviewer (`solveWork`). The plan's
 * files are locked up front (all or nothing, waiting visibly while another operation holds
 * one). Skipped on resume once the agent finished (checkpoint `agent_done`).
 */
export const solveStep: Step<WorkContext> = {
  name: 'agent',
  checkpoint: 'agent_done',
  async run(ctx) {
    if (ctx.op.checkpoints.includes('agent_done')) return { resumed: true };
    const { deps } = ctx;
    const { store, events, redactor } = deps;
    const opId = ctx.opId;
    const work = workOf(ctx);
    const { gate, record } = work;
    const policy = deps.approvalPolicy.policyOf(ctx.op);
    const targets = targetFilesOf(ctx.op, gate);
    const result = await solveWork(ctx, work, {
      baseline: baselineOf(ctx),
      targetFiles: targets,
      type: ctx.op.type,
      task: taskText(ctx.op),
      perStepVerification: policy.verification.per_step,
      onPlanStep: (e) => events.append(opId, 'plan_step', { ...e }).then(() => undefined),
      onPlan: async (planned, { resumed }) => {
        let plan = planned;
        // A resumed solve's plan was confirmed by the earlier attempt: its files are only locked again.
        if (!resumed && needsPlanConfirmation(ctx.op)) {
          const waitStarted = Date.now();
          const outcome = await awaitPlanConfirmation({
            store,
            opId,
            plan: redactor.redactValue(planned),
            timeoutMs: deps.planConfirmationTimeoutMs ?? DEFAULT_PLAN_CONFIRMATION_TIMEOUT_MS,
          });
          ctx.confirmationWaitMs += Date.now() - waitStarted;
          if (!outcome.go) throw new StopOperation(outcome.stop);
          plan = planWithNote(planned, outcome.confirmation);
        }
        await record.plan(numberPlan(plan));
        // The request's target files and the plan's, all or nothing, before the coder starts.
        const files = [...new Set([...targets, ...gate.normalize(plan.steps.flatMap((st) => st.files))])];
        await ctx.locks.lockDeclared(files, {
          shouldStop: async () => {
            const why = await stopReason(ctx);
            if (why) throw new StopOperation({ code: 'requested', detail: why });
          },
          onWait: async (heldBy) => {
            const waiting = {
              files: heldBy.map((h) => h.path),
              holder: heldBy[0]!.opId,
              since: new Date().toISOString(),
            };
            ctx.op = await store.patch(opId, { waiting }, { type: 'waiting', data: waiting });
          },
          onAcquired: async (waited) => {
            ctx.op = await store.update(
              opId,
              ({ waiting: _done, ...cur }) => ({ ...cur, updatedAt: new Date().toISOString() }),
              { type: 'locks_acquired', data: { files, waited } },
            );
          },
        });
        return plan;
      },
    });
    if (result.review) await record.review(result.review);
    const summary = redactor.redact(result.summary);
    ctx.op = await store.patch(
      opId,
      {
        ...(result.plan ? { plan: redactor.redactValue(result.plan) } : {}),
        ...(result.review ? { review: redactor.redactValue(result.review) } : {}),
        summary,
      },
      { type: 'checkpoint', data: { step: 'agent_result', outcome: result.outcome } },
    );
    if (result.outcome !== 'ready') throw await stopForOutcome(ctx, work, { ...result, outcome: result.outcome });
    ctx.finalChecks = result.checks;
    return { outcome: result.outcome, repairs: result.repairs };
  },
};

/** Maps an unfinished agent run to the operation's end, with the data a person needs. */
export async function stopForOutcome(
  ctx: WorkContext,
  work: Pick<PreparedWork, 'ws' | 'startSha'>,
  result: SolveResult & { outcome: Exclude<SolveOutcome, 'ready'> },
): Promise<StopOperation> {
  const { redactor } = ctx.deps;
  const reason = redactor.redact(result.reason ?? result.outcome);
  if (result.outcome === 'stopped') return new StopOperation({ code: 'requested', detail: reason });
  const failing = result.newFailures[0] ? `\n${checkFailureText(result.newFailures[0], redactor)}` : '';
  const detail = `${reason}${failing}`;
  if (result.outcome === 'budget' || result.outcome === 'stuck') {
    const kept = await keepWork(ctx, work);
    return new StopOperation({ code: result.outcome, detail, ...(kept ? { kept } : {}) });
  }
  return new StopOperation({ code: result.outcome === 'no_changes' ? 'no_change' : result.outcome, detail });
}

/**
 * The operation's transcript in shared storage (any API replica serves it); a revision's
 * conversation is appended to the same one, so the record reads in order.
 */
function operationTranscript(deps: WorkContext['deps'], opId: string): TranscriptWriter {
  return new TranscriptWriter(artifactAppender(deps.artifacts, opId, TRANSCRIPT_ARTIFACT), deps.redactor);
}
