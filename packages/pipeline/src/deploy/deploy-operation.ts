import {
  type DeployRecord,
  type Logger,
  type Operation,
  type OperationEventDataOf,
  type Policy,
  PullwrightError,
} from '@pullwright/core';
import type { OperationEvents, OperationStore } from '@pullwright/queue';
import type { Redactor } from '@pullwright/security';
import { callHook, DeployHookError, type DeployState, pollStatus } from './deploy-webhook.ts';

/** What a forge offers for GitHub deployments; GitHubForge implements it, LocalForge does not. */
interface DeploymentForge {
  createDeployment(
    repo: string,
    options: { ref: string; environment: string; description: string },
  ): Promise<{ id: string }>;
  deploymentState(repo: string, id: string): Promise<DeployState>;
}

interface DeployerDeps {
  store: OperationStore;
  events: OperationEvents;
  logger: Logger;
  redactor: Pick<Redactor, 'redact'>;
  policyOf: (op: Operation) => Policy;
  /** `DEPLOY_WEBHOOK_SECRET`: signs webhook and rollback bodies. */
  webhookSecret?: string | undefined;
  /** Where `url_env` names are looked up (the process environment). */
  env?: NodeJS.ProcessEnv;
  deployments?: DeploymentForge;
  sleep?: (ms: number) => Promise<void>;
  /** Hands a started deploy to a worker (the `deploy` job); it calls `followUp`. */
  enqueue: (job: { opId: string; startedAt: string }) => Promise<unknown>;
}

type Deploy = NonNullable<Policy['deploy']>;

/**
 * Deploys a merged operation as its policy says: trigger the target (signed webhook, Railway
 * hook, GitHub deployment), follow its status by polling until success, failure or the
 * timeout, and on failure call the rollback hook. Every step is a `deploy` event on the
 * operation's timeline and the outcome is its `deploy` field.
 */
export class Deployer {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: DeployerDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The merge job calls this once the operation is merged; deploys only when the policy says `on_merge`. */
  async deployAfterMerge(opId: string): Promise<Operation | undefined> {
    const op = await this.deps.store.get(opId);
    const deploy = this.deps.policyOf(op).deploy;
    if (op.status !== 'merged' || !deploy?.on_merge) return undefined;
    return this.#handOver(await this.begin(opId, 'merge'));
  }

  /** `/deploy`: marks the deploy started and hands it to a worker; returns at once. */
  async start(opId: string, by: string): Promise<Operation> {
    return this.#handOver(await this.begin(opId, by));
  }

  async #handOver(op: Operation): Promise<Operation> {
    await this.deps.enqueue({ opId: op.id, startedAt: op.deploy!.startedAt });
    return op;
  }

  /**
   * The `deploy` job: trigger the target, follow it, roll back on failure. A deploy already
   * finished (a retried job) is left as it is.
   */
  async followUp(opId: string): Promise<Operation> {
    const op = await this.deps.store.get(opId);
    if (op.deploy?.status !== 'running') return op;
    const deploy = this.deps.policyOf(op).deploy;
    if (!deploy) return this.fail(opId, `no deploy is configured for ${op.repo}`);
    return this.run(op, deploy);
  }

  /** Ends a running deploy with a reason (the deploy job stopped on an error of its own). */
  fail(opId: string, reason: string): Promise<Operation> {
    return this.finish(opId, { status: 'failed', error: reason }, { step: 'finished', status: 'failed', reason });
  }

  private async begin(opId: string, by: string): Promise<Operation> {
    const op = await this.deps.store.get(opId);
    const deploy = this.deps.policyOf(op).deploy;
    if (!deploy) throw new PullwrightError('conflict', `no deploy is configured for ${op.repo}`, { status: op.status });
    const target = deploy.target.kind;
    return this.deps.store.update(
      opId,
      (cur) => {
        if (cur.status !== 'merged')
          throw new PullwrightError(
            'invalid_transition',
            `only a merged operation can deploy; this one is ${cur.status}`,
            {
              from: cur.status,
              to: cur.status,
            },
          );
        if (cur.deploy?.status === 'running')
          throw new PullwrightError('conflict', 'a deploy of this operation is already running', {
            status: cur.status,
          });
        const record: DeployRecord = { status: 'running', target, by, startedAt: new Date().toISOString() };
        return { ...cur, deploy: record, updatedAt: record.startedAt };
      },
      { type: 'deploy', data: { step: 'started', target, by } },
    );
  }

  private async run(op: Operation, deploy: Deploy): Promise<Operation> {
    const { events } = this.deps;
    let externalId: string | undefined;
    let failure: string | undefined;
    try {
      const triggered = await this.trigger(op, deploy);
      externalId = triggered.id;
      await events.append(op.id, 'deploy', { step: 'triggered', ...(externalId ? { id: externalId } : {}) });
      const state =
        triggered.state === 'pending' || triggered.state === undefined
          ? await this.follow(op, deploy, triggered)
          : triggered.state;
      if (state !== 'success')
        failure = state === 'failure' ? 'the deploy failed' : `no result within ${deploy.status.timeout_ms} ms`;
    } catch (err) {
      failure = this.deps.redactor.redact(
        err instanceof DeployHookError || err instanceof PullwrightError
          ? err.message
          : `internal error: ${(err as Error).message}`,
      );
    }
    const base = { ...(externalId ? { externalId } : {}) };
    if (!failure) {
      return this.finish(op.id, { status: 'succeeded', ...base }, { step: 'succeeded' });
    }
    await events.append(op.id, 'deploy', { step: 'failed', reason: failure });
    if (!deploy.rollback)
      return this.finish(op.id, { status: 'failed', error: failure, ...base }, { step: 'finished', status: 'failed' });
    try {
      await events.append(op.id, 'deploy', { step: 'rollback_started' });
      await callHook(this.url(deploy.rollback, 'rollback'), await this.payload(op, 'rollback', failure), {
        event: 'rollback',
        label: 'rollback hook',
        ...(this.deps.webhookSecret ? { secret: this.deps.webhookSecret } : {}),
      });
      return this.finish(op.id, { status: 'rolled_back', error: failure, ...base }, { step: 'rolled_back' });
    } catch (err) {
      const why = this.deps.redactor.redact((err as Error).message);
      return this.finish(
        op.id,
        { status: 'rollback_failed', error: `${failure}; rollback failed: ${why}`, ...base },
        { step: 'rollback_failed', reason: why },
      );
    }
  }

  private async trigger(op: Operation, deploy: Deploy): Promise<{ id?: string; state?: DeployState }> {
    const t = deploy.target;
    if (t.kind === 'github_deployment') {
      if (!this.deps.deployments) throw new PullwrightError('conflict', 'this forge cannot create GitHub deployments');
      const { mergeSha } = await this.mergeOf(op);
      return this.deps.deployments.createDeployment(op.repo, {
        ref: mergeSha ?? op.baseBranch,
        environment: t.environment,
        description: `Pullwright operation ${op.id}`,
      });
    }
    if (t.kind === 'webhook' && !this.deps.webhookSecret)
      throw new PullwrightError('config_invalid', 'DEPLOY_WEBHOOK_SECRET is not set: webhook deploys are signed');
    return callHook(this.url(t, 'deploy target'), await this.payload(op, 'deploy'), {
      event: 'deploy',
      label: t.kind === 'railway' ? 'Railway deploy hook' : 'deploy webhook',
      ...(t.kind === 'webhook' && this.deps.webhookSecret ? { secret: this.deps.webhookSecret } : {}),
    });
  }

  /** Polls until a terminal state or the timeout; without a status URL the hook's 2xx is the result. */
  private async follow(
    op: Operation,
    deploy: Deploy,
    triggered: { id?: string; state?: DeployState },
  ): Promise<DeployState | 'timeout'> {
    const t = deploy.target;
    const statusUrl = deploy.status.url;
    const canFollow = t.kind === 'github_deployment' ? triggered.id !== undefined : statusUrl !== undefined;
    if (!canFollow) return 'success';
    const deadline = Date.now() + deploy.status.timeout_ms;
    let last: DeployState | undefined;
    while (Date.now() < deadline) {
      await this.sleep(deploy.status.poll_ms);
      const state =
        t.kind === 'github_deployment'
          ? await this.deps.deployments!.deploymentState(op.repo, triggered.id!)
          : await pollStatus(statusUrl!.replaceAll('{id}', encodeURIComponent(triggered.id ?? '')), 'deploy');
      if (state !== last) await this.deps.events.append(op.id, 'deploy', { step: 'status', state });
      last = state;
      if (state !== 'pending') return state;
    }
    return 'timeout';
  }

  private url(hook: { url?: string | undefined; url_env?: string | undefined }, label: string): string {
    if (hook.url) return hook.url;
    const value = hook.url_env ? (this.deps.env ?? process.env)[hook.url_env] : undefined;
    if (!value)
      throw new PullwrightError('config_invalid', `the ${label} URL variable ${hook.url_env ?? ''} is not set`);
    return value;
  }

  private async mergeOf(op: Operation): Promise<{ mergeSha?: string }> {
    const events = await this.deps.events.list(op.id);
    const merged = events.find((e) => e.type === 'status' && e.data.to === 'merged');
    const sha = merged?.data.mergeSha;
    return typeof sha === 'string' ? { mergeSha: sha } : {};
  }

  private async payload(
    op: Operation,
    event: 'deploy' | 'rollback',
    reason?: string,
  ): Promise<Record<string, unknown>> {
    return {
      event,
      operation: op.id,
      repo: op.repo,
      ref: op.baseBranch,
      ...(await this.mergeOf(op)),
      ...(op.pullRequest ? { pullRequest: op.pullRequest.number, headSha: op.pullRequest.headSha } : {}),
      requestedBy: op.deploy?.by,
      ...(reason ? { reason } : {}),
    };
  }

  private finish(
    opId: string,
    result: Omit<DeployRecord, 'target' | 'by' | 'startedAt'>,
    event: OperationEventDataOf<'deploy'>,
  ): Promise<Operation> {
    const finishedAt = new Date().toISOString();
    return this.deps.store.update(
      opId,
      (cur) => ({ ...cur, deploy: { ...cur.deploy!, ...result, finishedAt }, updatedAt: finishedAt }),
      { type: 'deploy', data: event },
    );
  }
}
