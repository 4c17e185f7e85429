import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { KEPT_DIFF_ARTIFACT, TRANSCRIPT_ARTIFACT } from './artifact-store.ts';
import { auditTrail } from './audit-trail.ts';
import { OperationEvents } from './operation-events.ts';
import { OperationStore } from './operation-store.ts';
import { RedisArtifactStore } from './redis-artifact-store.ts';
import { RedisKeys } from './redis-keys.ts';
import { TEST_OPERATION as input } from './test-operation.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

const RETENTION_S = 7 * 24 * 3600;

describe('RedisArtifactStore and retention', () => {
  let keys: RedisKeys;
  let store: OperationStore;
  let artifacts: RedisArtifactStore;
  beforeEach(() => {
    keys = new RedisKeys(`t${randomBytes(6).toString('hex')}`);
    store = new OperationStore(redis, keys, (v) => v, RETENTION_S);
    artifacts = new RedisArtifactStore(redis, keys, 64 * 1024);
  });

  it('appends lines, compresses large chunks, replaces on put and lists names', async () => {
    const op = await store.create(input);
    const big = `${JSON.stringify({ kind: 'tool', output: 'x'.repeat(20_000) })}\n`;
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, '{"kind":"task"}\n');
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, big);
    expect(await artifacts.read(op.id, TRANSCRIPT_ARTIFACT)).toEqual({
      content: `{"kind":"task"}\n${big}`,
      truncated: false,
    });
    // The 20 kB line is stored deflated: the hash is far smaller than the text.
    expect(await redis.memory('USAGE', keys.artifacts(op.id))).toBeLessThan(5_000);
    await artifacts.put(op.id, KEPT_DIFF_ARTIFACT, 'diff one');
    await artifacts.put(op.id, KEPT_DIFF_ARTIFACT, 'diff two');
    expect((await artifacts.read(op.id, KEPT_DIFF_ARTIFACT))?.content).toBe('diff two');
    expect((await artifacts.names(op.id)).sort()).toEqual([KEPT_DIFF_ARTIFACT, TRANSCRIPT_ARTIFACT]);
    expect(await artifacts.read(op.id, 'absent.txt')).toBeUndefined();
  });

  it('stops at the cap and says the artifact was cut short', async () => {
    const op = await store.create(input);
    const line = `${'y'.repeat(40 * 1024)}\n`;
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, line);
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, line);
    expect(await artifacts.read(op.id, TRANSCRIPT_ARTIFACT)).toEqual({ content: line, truncated: true });
  });

  it('refuses a name that is not a file name', async () => {
    await expect(artifacts.append('x', '../etc/passwd', 'a')).rejects.toThrow(/artifact name/);
  });

  it('starts the retention clock on every key of an operation when it ends, not before', async () => {
    const op = await store.create(input);
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, '{"kind":"task"}\n');
    const opKeys = [keys.operation(op.id), keys.events(op.id), keys.artifacts(op.id)];
    await store.transition(op.id, 'running');
    for (const key of opKeys) expect(await redis.ttl(key), key).toBe(-1);
    await store.end(op.id, { code: 'internal', detail: 'boom' });
    for (const key of opKeys) {
      const ttl = await redis.ttl(key);
      expect(ttl, key).toBeGreaterThan(RETENTION_S - 60);
      expect(ttl, key).toBeLessThanOrEqual(RETENTION_S);
    }
    // An artifact written after the end lives as long as the operation, not for ever.
    await artifacts.put(op.id, KEPT_DIFF_ARTIFACT, 'late');
    expect(await redis.ttl(keys.artifacts(op.id))).toBeGreaterThan(RETENTION_S - 60);
  });

  it('lists around expired operations and drops them from the index', async () => {
    const kept = await store.create(input);
    const gone = await store.create(input);
    await redis.del(keys.operation(gone.id));
    expect((await store.list()).map((o) => o.id)).toEqual([kept.id]);
    expect(await redis.zrange(keys.operationIndex(), 0, -1)).toEqual([kept.id]);
  });

  it('exports the record, the timeline and the transcript as redacted JSONL', async () => {
    const events = new OperationEvents(redis, keys);
    const op = await store.create(input);
    await store.transition(op.id, 'running');
    await artifacts.append(op.id, TRANSCRIPT_ARTIFACT, '{"kind":"task","text":"token s3cr3t-value"}\n');
    await artifacts.put(op.id, KEPT_DIFF_ARTIFACT, '+s3cr3t-value\n');
    const lines: string[] = [];
    const deps = { store, events, artifacts, redact: (t: string) => t.replaceAll('s3cr3t-value', '[redacted]') };
    for await (const line of auditTrail(deps, op.id)) lines.push(line);
    const parsed = lines.map((l) => JSON.parse(l) as { kind: string; type?: string });
    expect(parsed.map((p) => p.type ?? p.kind)).toEqual(['operation', 'created', 'status', 'transcript', 'artifact']);
    expect(lines.join('')).not.toContain('s3cr3t-value');
    expect(lines.join('')).toContain('[redacted]');
    await expect(auditTrail(deps, 'nope').next()).rejects.toThrow(/not found/);
  });
});
