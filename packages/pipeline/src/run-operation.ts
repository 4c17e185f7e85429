import path from 'node:path';
import { ALL_TOOLS, runAgentLoop, systemPrompt, TranscriptWriter, truncateOutput } from '@pullwright/agent';
import { branchNameFor, type Checkpoint, FINAL_STATUSES, isPullwrightError, type Operation } from '@pullwright/core';
import { PathGuard } from '@pullwright/security';
import type { PipelineDeps } from './pipeline-deps.ts';
import { pullRequestBody } from './pull-request-body.ts';
import { detectChecks, RepoChecks } from './repo-checks.ts';

/** Ends the pipeline with a final status; thrown by steps, caught once in `runOperation`. */
class StopOperation extends Error {
  constructor(
    readonly status: 'failed' | 'cancelled',
    readonly reason: string,
  ) {
    super(reason);
  }
}

function withCheckpoint(op: Operation, step: Checkpoint): Checkpoint[] {
  return op.checkpoints.includes(step) ? op.checkpoints : [...op.checkpoints, step];
}

/**
 * The `run` job: claim → prepare → agent loop → verify → publish → awaiting_approval.
 * Every step records a checkpoint, so a job retried after a crash resumes where it was.
 * Whatever happens, the operation ends in a status with a reason.
 */
export async function runOperation(opId: string, deps: PipelineDeps): Promise<Operation> {
  const { store, events, logger } = deps;
  let op = await store.get(opId);
  if (op.status === 'queued') op = await store.transition(opId, 'running', {}, { step: 'claim' });
  else if (op.status !== 'running') {
    logger.info({ opId, status: op.status }, 'nothing to run');
    return op;
  }
  const log = logger.child({ opId });
  let finished = false;
  try {
    op = await execute(op, deps);
    finished = true;
    return op;
  } catch (err) {
    const stop =
      err instanceof StopOperation
        ? err
        : new StopOperation(
            'failed',
            isPullwrightError(err) ? err.message : `internal error: ${(err as Error).message}`,
          );
    if (!(err instanceof StopOperation) && !isPullwrightError(err)) log.error({ err }, 'operation crashed');
    const reason = deps.redactor.redact(stop.reason);
    const current = await store.get(opId);
    finished = true;
    if (FINAL_STATUSES.has(current.status)) return current;
    log.info({ status: stop.status }, 'operation stopped');
    return store.transition(opId, stop.status, { error: reason });
  } finally {
    if (finished)
      await deps.workspace.remove(opId, op.repo).catch((err) => log.warn({ err }, 'worktree cleanup failed'));
    await events.append(opId, 'step', { step: 'release' }).catch(() => undefined);
  }
}

async function execute(initial: Operation, deps: PipelineDeps): Promise<Operation> {
  const { store, events, workspace, forge, redactor } = deps;
  const opId = initial.id;
  let op = initial;
  const cancelled = async () => {
    const cur = await store.get(opId);
    if (cur.status !== 'running') return `operation is ${cur.status}`;
    return cur.cancelRequested ? 'cancelled on request' : undefined;
  };
  const stopIfCancelled = async () => {
    const reason = await cancelled();
    if (reason) throw new StopOperation('cancelled', reason);
  };

  // prepare
  await stopIfCancelled();
  const branch = op.branch ?? branchNameFor(op);
  const auth = await forge.gitAuth(op.repo);
  const ws = await workspace.prepare({
    opId,
    repo: op.repo,
    cloneUrl: forge.cloneUrl(op.repo),
    baseBranch: op.baseBranch,
    branch,
    ...(auth ? { auth } : {}),
  });
  const baseSha = op.baseSha ?? ws.baseSha;
  op = await store.patch(
    opId,
    { branch, baseSha, checkpoints: withCheckpoint(op, 'prepared') },
    { type: 'step', data: { step: 'prepare', branch, baseSha, resumed: ws.resumed } },
  );

  const commands = detectChecks(ws.dir);
  const checks = new RepoChecks(ws.dir, commands, deps.runner, deps.checkTimeoutMs, (run) =>
    events
      .append(opId, 'check', { name: run.name, passed: run.passed, exitCode: run.exitCode, durationMs: run.durationMs })
      .then(() => undefined),
  );

  // agent loop
  let summary = typeof op.plan === 'string' ? op.plan : '';
  if (!op.checkpoints.includes('agent_done')) {
    await events.append(opId, 'step', { step: 'agent', state: 'started', checks: Object.keys(commands) });
    const transcriptPath = path.join(deps.transcriptsDir, `${opId}.jsonl`);
    const result = await runAgentLoop({
      provider: deps.createProvider(op),
      system: systemPrompt(op.type, Object.keys(commands)),
      task: taskText(op),
      tools: ALL_TOOLS,
      context: { root: ws.dir, guard: new PathGuard(ws.dir), checks },
      maxTurns: deps.maxTurns,
      transcript: new TranscriptWriter(transcriptPath, redactor),
      shouldStop: cancelled,
      readInbox: async () => {
        const messages = await deps.inbox.drain(opId);
        for (const m of messages)
          await events.append(opId, 'message', { from: m.from, source: m.source, text: m.text });
        return messages.map((m) => redactor.redact(`${m.from} (${m.source}): ${m.text}`));
      },
      onStep: (step) => events.append(opId, step.kind, { ...step }).then(() => undefined),
      onUsage: async (u) => {
        await store.update(
          opId,
          (cur) => ({
            ...cur,
            usage: {
              ...cur.usage,
              inputTokens: cur.usage.inputTokens + u.inputTokens,
              outputTokens: cur.usage.outputTokens + u.outputTokens,
              modelCalls: cur.usage.modelCalls + 1,
            },
          }),
          { type: 'usage', data: { ...u } },
        );
      },
    });
    if (result.stop === 'stopped') throw new StopOperation('cancelled', result.reason ?? 'stopped');
    if (result.stop === 'max_turns') throw new StopOperation('failed', `budget exhausted: ${result.reason}`);
    summary = redactor.redact(result.finalText);
    op = await store.patch(
      opId,
      { plan: summary, transcriptPath, checkpoints: withCheckpoint(await store.get(opId), 'agent_done') },
      { type: 'step', data: { step: 'agent', state: 'finished', turns: result.turns, stop: result.stop } },
    );
  }

  // verify
  await stopIfCancelled();
  const filesChanged = await workspace.changedFiles(ws.dir, baseSha);
  if (filesChanged.length === 0) throw new StopOperation('failed', 'the model made no changes');
  if (!commands.test) {
    throw new StopOperation(
      'failed',
      'no test command found: add checks.test to .pullwright.yml or a "test" script to package.json',
    );
  }
  await events.append(opId, 'step', { step: 'verify', state: 'started', files: filesChanged });
  const runs = [];
  for (const name of checks.names()) runs.push(await checks.run(name));
  const checkResults = runs.map((r) => ({
    name: r.name,
    command: r.command,
    passed: r.passed,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    output: redactor.redact(truncateOutput(r.output, 4000)),
  }));
  op = await store.patch(
    opId,
    { filesChanged, checks: checkResults, checkpoints: withCheckpoint(op, 'verified') },
    { type: 'step', data: { step: 'verify', state: 'finished', passed: runs.every((r) => r.passed) } },
  );
  const failing = runs.find((r) => !r.passed);
  if (failing) {
    const why = failing.timedOut ? 'timed out' : `exited with ${failing.exitCode}`;
    throw new StopOperation(
      'failed',
      `check "${failing.name}" ${why}:\n${redactor.redact(truncateOutput(failing.output.trim(), 4000))}`,
    );
  }

  // publish
  await stopIfCancelled();
  const title = `${op.type}: ${op.description.split('\n')[0]!.slice(0, 72)}`;
  await workspace.commitAll(ws.dir, title, { 'Pullwright-Operation': opId });
  const headSha = await workspace.headSha(ws.dir);
  await workspace.push(ws.dir, branch, auth ? { auth } : {});
  op = await store.patch(
    opId,
    { headSha, checkpoints: withCheckpoint(withCommitted(op), 'pushed') },
    { type: 'step', data: { step: 'push', branch, headSha } },
  );
  const pr = await forge.openPullRequest({
    repo: op.repo,
    head: branch,
    base: op.baseBranch,
    title,
    body: redactor.redact(pullRequestBody(op, summary)),
  });
  return store.transition(
    opId,
    'awaiting_approval',
    {
      pullRequest: { number: pr.number, url: pr.url, headSha: pr.headSha },
      headSha: pr.headSha,
      checkpoints: withCheckpoint(op, 'pr_opened'),
    },
    { pullRequest: pr.number, url: pr.url, headSha: pr.headSha },
  );
}

function withCommitted(op: Operation): Operation {
  return { ...op, checkpoints: withCheckpoint(op, 'committed') };
}

function taskText(op: Operation): string {
  const parts = [`Request (${op.type}) for ${op.repo}, base branch ${op.baseBranch}:\n${op.description}`];
  const c = op.context;
  if (c.errorText) parts.push(`Error:\n${c.errorText}`);
  if (c.stack) parts.push(`Stack trace:\n${c.stack}`);
  if (c.logs) parts.push(`Logs:\n${c.logs}`);
  if (c.acceptance) parts.push(`Acceptance criteria:\n${c.acceptance}`);
  return parts.join('\n\n');
}
