import { randomBytes } from 'node:crypto';
import {
  type Budget,
  defineLuaCommand,
  describeOutcome,
  type EndStatus,
  type EvalAttempt,
  emptyUsage,
  type FeatureContext,
  FINAL_STATUSES,
  NotFoundError,
  Operation,
  type OperationContext,
  type OperationEventDataOf,
  type OperationEventInput,
  type OperationPriority,
  type OperationStatus,
  type OperationType,
  type Origin,
  type Outcome,
  outcomeStatus,
  PullwrightError,
  type Requester,
  type TransitionPatch,
  transition,
} from '@pullwright/core';
import type { Result } from 'ioredis';
import { checkedEvent } from './checked-event.ts';
import { createOnce } from './create-once.ts';
import { feedEntryArgs } from './operation-feed.ts';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

/** A status event's outcome, with its sentence when the status needs one (failed, cancelled, rejected). */
function outcomeEventData(outcome: Outcome): Pick<OperationEventDataOf<'status'>, 'outcome' | 'reason'> {
  const status = outcomeStatus(outcome);
  const needsSentence = status === 'failed' || status === 'cancelled' || status === 'rejected';
  return { outcome, ...(needsSentence ? { reason: describeOutcome(outcome) } : {}) };
}

/** What a `status` event carries beside the status and the outcome. */
type StatusFacts = Omit<OperationEventDataOf<'status'>, 'to' | 'outcome'>;

const updateLua = new URL('./update-operation-4.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwUpdateOperation(
      opKey: string,
      eventsKey: string,
      artifactsKey: string,
      inboxKey: string,
      expectedVersion: string,
      json: string,
      type: string,
      data: string,
      ts: string,
      final: '0' | '1',
      retentionS: string,
    ): Result<string | number, Context>;
  }
}

export interface NewOperation {
  type: OperationType;
  repo: string;
  baseBranch: string;
  description: string;
  context?: OperationContext;
  budget?: Budget;
  requester: Requester;
  origin?: Origin;
  /** Wait for Start / Modify on the plan (true), or start at once (false); unset: the default rule. */
  confirmPlan?: boolean;
  priority?: OperationPriority;
  targetFiles?: string[];
  approvalRequired?: boolean;
  featureContext?: FeatureContext;
  /** An evaluation attempt (see @pullwright/eval): set by the evaluation runner only, with the task's base commit. */
  eval?: EvalAttempt;
  /** The commit to start from instead of the base branch's head (an evaluation task's `base_commit`). */
  baseSha?: string;
}

/** Sortable by creation time, unique across processes, never parseable as a number (BullMQ job ids). */
function newOperationId(now = Date.now()): string {
  return `${now.toString(36)}${randomBytes(4).toString('hex')}`;
}

/** Writers on one operation are few (its worker, an API call, usage updates); 50 rounds with jitter is ample. */
const MAX_CONFLICT_RETRIES = 50;
/** RETENTION_DAYS' default: a month of history for reviews and incident follow-ups. */
const DEFAULT_RETENTION_S = 30 * 24 * 3600;

/**
 * Operations in Redis, one JSON value each. Every write names the version it read and
 * appends its event in the same Lua script, so the status and the audit trail cannot
 * disagree and two writers cannot overwrite each other.
 */
export class OperationStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly scrub: <T>(value: T) => T = (v) => v,
    /** How long an ended operation's keys live (RETENTION_DAYS). */
    private readonly retentionS = DEFAULT_RETENTION_S,
  ) {
    defineLuaCommand(redis, 'pwUpdateOperation', updateLua);
  }

  async create(input: NewOperation, now = new Date()): Promise<Operation> {
    const ts = now.toISOString();
    // A secret pasted into a request (an error log with a token) is masked before it is stored:
    // the record is shown on the dashboard and in Slack, and its text becomes the branch slug.
    const op = Operation.parse({
      ...input,
      description: this.scrub(input.description),
      context: this.scrub(input.context ?? {}),
      ...(input.featureContext ? { featureContext: this.scrub(input.featureContext) } : {}),
      id: newOperationId(now.getTime()),
      status: 'queued',
      version: 0,
      usage: emptyUsage(),
      createdAt: ts,
      updatedAt: ts,
    });
    // The index is a global key in a slot of its own, so it cannot join the record's MULTI on
    // a Cluster. It is written first: an id without a record is skipped (and dropped) by
    // `list`, while a record missing from the index would be invisible.
    await this.redis.zadd(this.keys.operationIndex(), now.getTime(), op.id);
    const created = await this.redis
      .multi()
      .set(this.keys.operation(op.id), JSON.stringify(op), 'NX')
      .xadd(
        this.keys.events(op.id),
        '*',
        'ts',
        ts,
        'type',
        'created',
        'data',
        JSON.stringify(
          this.scrub(
            checkedEvent('created', { status: 'queued', type: op.type, repo: op.repo, requester: op.requester }),
          ),
        ),
      )
      .exec();
    if (created?.[0]?.[1] === 'OK') await this.#appendFeed(op.id, ts, 'created', 'queued');
    if (created?.[0]?.[1] !== 'OK') throw new PullwrightError('conflict', `operation ${op.id} already exists`);
    return op;
  }

  /**
   * Creates the operation once per key: a retried request with the same Idempotency-Key
   * gets the first operation back (`created: false`).
   */
  async createOnce(key: string, input: NewOperation): Promise<{ op: Operation; created: boolean }> {
    const { value, created } = await createOnce(
      this.redis,
      this.keys.idempotency(key),
      () => this.create(input),
      (id) => this.get(id),
    );
    return { op: value, created };
  }

  async find(id: string): Promise<Operation | undefined> {
    const raw = await this.redis.get(this.keys.operation(id));
    return raw ? Operation.parse(JSON.parse(raw)) : undefined;
  }

  async get(id: string): Promise<Operation> {
    const op = await this.find(id);
    if (!op) throw new NotFoundError('operation', id);
    return op;
  }

  /**
   * The stored JSON of each id, in order (undefined where it expired). One GET per id: the
   * records sit in different Cluster slots, where MGET fails; auto-pipelining batches them.
   * Ids whose record has expired (RETENTION_DAYS) are dropped from the index on the way.
   */
  async rawRecords(ids: string[]): Promise<(string | undefined)[]> {
    const raws = await Promise.all(ids.map((id) => this.redis.get(this.keys.operation(id))));
    const expired = ids.filter((_, i) => raws[i] === null);
    if (expired.length > 0) await this.redis.zrem(this.keys.operationIndex(), ...expired);
    return raws.map((r) => r ?? undefined);
  }

  /** Newest first. The index is scanned in pages, so a status filter still returns `limit` items. */
  async list(filter: { status?: OperationStatus; repo?: string; limit?: number } = {}): Promise<Operation[]> {
    const limit = filter.limit ?? 50;
    const out: Operation[] = [];
    const page = 200;
    for (let offset = 0; out.length < limit; offset += page) {
      const ids = await this.redis.zrevrange(this.keys.operationIndex(), offset, offset + page - 1);
      if (ids.length === 0) break;
      const raws = await this.rawRecords(ids);
      // Dropped ids shift the index under the cursor; the next page starts that much earlier.
      offset -= raws.filter((r) => r === undefined).length;
      for (const raw of raws) {
        if (!raw) continue;
        const op = Operation.parse(JSON.parse(raw));
        if (filter.status && op.status !== filter.status) continue;
        if (filter.repo && op.repo !== filter.repo) continue;
        out.push(op);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  /**
   * Applies `change` to the latest version and writes it with its event, retrying when
   * another writer got there first. `change` must be pure: it may run more than once.
   */
  async update(id: string, change: (op: Operation) => Operation, event: OperationEventInput): Promise<Operation> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const current = await this.get(id);
      const next = { ...change(current), version: current.version + 1 };
      const result = await this.redis.pwUpdateOperation(
        this.keys.operation(id),
        this.keys.events(id),
        this.keys.artifacts(id),
        this.keys.inbox(id),
        String(current.version),
        JSON.stringify(next),
        event.type,
        JSON.stringify(this.scrub(checkedEvent(event.type, event.data ?? {}))),
        next.updatedAt,
        FINAL_STATUSES.has(next.status) ? '1' : '0',
        String(this.retentionS),
      );
      if (result === -1) throw new NotFoundError('operation', id);
      if (result !== 0) {
        await this.#appendFeed(id, next.updatedAt, event.type, next.status);
        if (next.status !== current.status && FINAL_STATUSES.has(next.status)) await this.#countOutcome(next);
        return next;
      }
      // Jittered backoff so colliding writers spread out instead of colliding again.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * (attempt + 1))));
    }
    throw new PullwrightError(
      'conflict',
      `operation ${id} kept changing; gave up after ${MAX_CONFLICT_RETRIES} attempts`,
    );
  }

  /**
   * The feed is a capped view for live lists, in another Cluster slot: written after the
   * audit trail, never inside its script.
   */
  async #appendFeed(id: string, ts: string, type: string, status: OperationStatus): Promise<void> {
    await this.redis.xadd(...feedEntryArgs(this.keys, { opId: id, ts, type, status }));
  }

  /**
   * One more operation of this type ended this way (`/metrics`, by the outcome's code). Beside
   * the script, like the feed: a crash in between loses one count rather than the transition.
   */
  async #countOutcome(op: Operation): Promise<void> {
    await this.redis.hincrby(this.keys.outcomes(), `${op.type}\t${op.status}\t${op.outcome?.code ?? 'other'}`, 1);
  }

  /**
   * A status change that does not end the operation: validated by the state machine, recorded
   * as a `status` event. Ending goes through `end`, which needs an outcome.
   */
  transition(
    id: string,
    to: Exclude<OperationStatus, EndStatus>,
    patch: Omit<TransitionPatch, 'outcome'> = {},
    data: StatusFacts = {},
  ): Promise<Operation> {
    return this.update(id, (op) => transition(op, to, patch), { type: 'status', data: { to, ...data } });
  }

  /**
   * Ends the operation with an outcome: the status is the outcome's, the sentence (`error`)
   * is derived from it (see core `transition`); the `status` event carries both.
   */
  end(
    id: string,
    outcome: Outcome,
    patch: Omit<TransitionPatch, 'outcome'> = {},
    data: StatusFacts = {},
  ): Promise<Operation> {
    const to = outcomeStatus(outcome);
    return this.update(id, (op) => transition(op, to, { ...patch, outcome }), {
      type: 'status',
      data: { to, ...outcomeEventData(outcome), ...data },
    });
  }

  /** A non-status change (checkpoint, usage, plan…), recorded with its own event type. */
  patch(id: string, patch: TransitionPatch, event: OperationEventInput): Promise<Operation> {
    return this.update(id, (op) => ({ ...op, ...patch, updatedAt: new Date().toISOString() }), event);
  }
}
