import { randomBytes } from 'node:crypto';
import {
  defineLuaCommand,
  FeatureRequest,
  type FeatureRequestStatus,
  NotFoundError,
  type OperationPriority,
  PullwrightError,
  type Requester,
} from '@pullwright/core';
import type { Result } from 'ioredis';
import { createOnce } from './create-once.ts';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

const updateLua = new URL('./update-feature-request-1.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwUpdateFeatureRequest(key: string, expectedVersion: string, json: string): Result<number, Context>;
  }
}

export interface NewFeatureRequest {
  repo: string;
  baseBranch: string;
  description: string;
  requester: Requester;
  priority?: OperationPriority;
}

const MAX_CONFLICT_RETRIES = 50;

/** The first line, shortened: what lists show. */
function titleOf(description: string): string {
  const line = description.trim().split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/**
 * Feature requests in Redis, one JSON value each, written with the version they were read
 * at (a triage and an analysis finishing together cannot overwrite each other). Text is
 * scrubbed before it is stored: a request is shown on the dashboard and in Slack.
 */
export class FeatureRequestStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly scrub: <T>(value: T) => T = (v) => v,
  ) {
    defineLuaCommand(redis, 'pwUpdateFeatureRequest', updateLua);
  }

  async create(input: NewFeatureRequest, now = new Date()): Promise<FeatureRequest> {
    const ts = now.toISOString();
    const description = this.scrub(input.description);
    const request = FeatureRequest.parse({
      ...input,
      description,
      title: titleOf(description),
      id: `fr${now.getTime().toString(36)}${randomBytes(4).toString('hex')}`,
      status: 'new',
      version: 0,
      createdAt: ts,
      updatedAt: ts,
    });
    // Index first, as for operations: an id without a record is skipped by `list`.
    await this.redis.zadd(this.keys.featureRequestIndex(), now.getTime(), request.id);
    const set = await this.redis.set(this.keys.featureRequest(request.id), JSON.stringify(request), 'NX');
    if (set !== 'OK') throw new PullwrightError('conflict', `feature request ${request.id} already exists`);
    return request;
  }

  /** Once per key (a Slack command's trigger id): a redelivery gets the first request back. */
  async createOnce(key: string, input: NewFeatureRequest): Promise<{ request: FeatureRequest; created: boolean }> {
    const { value, created } = await createOnce(
      this.redis,
      this.keys.idempotency(`feature:${key}`),
      () => this.create(input),
      (id) => this.get(id),
    );
    return { request: value, created };
  }

  async find(id: string): Promise<FeatureRequest | undefined> {
    const raw = await this.redis.get(this.keys.featureRequest(id));
    return raw ? FeatureRequest.parse(JSON.parse(raw)) : undefined;
  }

  async get(id: string): Promise<FeatureRequest> {
    const found = await this.find(id);
    if (!found) throw new NotFoundError('feature request', id);
    return found;
  }

  /** Newest first. */
  async list(filter: { status?: FeatureRequestStatus; limit?: number } = {}): Promise<FeatureRequest[]> {
    const limit = filter.limit ?? 50;
    const ids = await this.redis.zrevrange(this.keys.featureRequestIndex(), 0, -1);
    const out: FeatureRequest[] = [];
    for (const id of ids) {
      const found = await this.find(id);
      if (!found || (filter.status && found.status !== filter.status)) continue;
      out.push(found);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Applies `change` to the latest version and writes it, retrying when another writer got
   * there first. `change` must be pure (it may run again) and may throw to refuse.
   */
  async update(id: string, change: (cur: FeatureRequest) => FeatureRequest): Promise<FeatureRequest> {
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const cur = await this.get(id);
      const next = FeatureRequest.parse(
        this.scrub({ ...change(cur), id: cur.id, version: cur.version + 1, updatedAt: new Date().toISOString() }),
      );
      const written = await this.redis.pwUpdateFeatureRequest(
        this.keys.featureRequest(id),
        String(cur.version),
        JSON.stringify(next),
      );
      if (written === 1) return next;
      if (written === -1) throw new NotFoundError('feature request', id);
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * (attempt + 1))));
    }
    throw new PullwrightError('conflict', `feature request ${id} kept changing; gave up`);
  }
}
