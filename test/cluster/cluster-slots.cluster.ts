import { randomBytes } from 'node:crypto';
import {
  auditTrail,
  CodeQueue,
  connectRedis,
  createRedisClient,
  OperationEvents,
  OperationInbox,
  OperationStore,
  RedisArtifactStore,
  type RedisClient,
  RedisKeys,
  TRANSCRIPT_ARTIFACT,
} from '@pullwright/queue';
import { SlackKeys, SlackSessions } from '@pullwright/slack';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const config = {
  redisUrl: undefined,
  redisClusterNodes: inject('redisClusterNodes')
    .split(',')
    .map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
  redisPassword: undefined,
};

const requester = { source: 'slack' as const, user: 'U123' };
const input = { type: 'fix' as const, repo: 'acme/app', baseBranch: 'main', description: 'flaky test', requester };

describe('on a 3-primary Redis Cluster', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = createRedisClient(config);
    await connectRedis(redis, config);
  });
  afterAll(() => redis.disconnect());

  it('the factory builds a Cluster client that sees three primaries', () => {
    expect(redis).toBeInstanceOf(Cluster);
    expect((redis as Cluster).nodes('master')).toHaveLength(3);
  });

  it('an operation, its events, inbox and artifacts share one slot, and every write works', async () => {
    const keys = new RedisKeys(`t${randomBytes(6).toString('hex')}`);
    const store = new OperationStore(redis, keys, (v) => v, 3600);
    const events = new OperationEvents(redis, keys);
    const artifacts = new RedisArtifactStore(redis, keys);
    const inbox = new OperationInbox(redis, keys);
    // Many operations, so they land on every primary: the list reads across slots.
    const ops = await Promise.all(Array.from({ length: 12 }, () => store.create(input)));
    const slotsOf = async (id: string) =>
      new Set(
        await Promise.all(
          [keys.operation(id), keys.events(id), keys.inbox(id), keys.artifacts(id)].map((k) =>
            redis.cluster('KEYSLOT', k),
          ),
        ),
      );
    for (const op of ops) expect((await slotsOf(op.id)).size).toBe(1);
    expect(new Set(await Promise.all(ops.map((op) => redis.cluster('KEYSLOT', keys.operation(op.id))))).size).toBe(12);

    const [first] = ops;
    await store.transition(first!.id, 'running');
    await events.append(first!.id, 'step', { step: 'agent' });
    await inbox.push(first!.id, { from: 'U123', source: 'slack', text: 'also check the tests' });
    expect((await inbox.drain(first!.id)).map((m) => m.text)).toEqual(['also check the tests']);
    await artifacts.append(
      first!.id,
      TRANSCRIPT_ARTIFACT,
      `${JSON.stringify({ kind: 'task', pad: 'x'.repeat(4000) })}\n`,
    );
    await store.end(first!.id, { code: 'internal', detail: 'stopped' });
    expect(await redis.ttl(keys.artifacts(first!.id))).toBeGreaterThan(3500);
    expect((await store.list({ limit: 50 })).map((o) => o.id).sort()).toEqual(ops.map((o) => o.id).sort());
    const lines: string[] = [];
    for await (const line of auditTrail({ store, events, artifacts, redact: (t) => t }, first!.id)) lines.push(line);
    expect(lines.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual([
      'operation',
      'event',
      'event',
      'event',
      'event',
      'transcript',
    ]);
  });

  it('Slack sessions and BullMQ queues work across slots', async () => {
    const prefix = `t${randomBytes(6).toString('hex')}`;
    const sessions = new SlackSessions(redis, new SlackKeys(prefix));
    await sessions.create({
      opId: 'op1',
      channel: 'C1',
      user: 'U1',
      delivery: 'bot',
      responseUrl: undefined,
      budgetUsd: undefined,
      auto: false,
    });
    await sessions.bindThread('op1', 'C1', '1700000000.000100');
    expect(await sessions.findByThread('C1', '1700000000.000100')).toBe('op1');
    expect(await sessions.active()).toEqual(['op1']);
    await sessions.finish('op1', 'C1', '1700000000.000100');
    expect(await sessions.active()).toEqual([]);

    const queue = new CodeQueue(redis, prefix);
    await queue.add('run', { opId: 'op1' });
    // A run job carries its operation's priority: BullMQ keeps it in `prioritized`.
    expect((await queue.counts()).prioritized).toBe(1);
    await queue.close();
  });
});
