import { TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-process.ts';
import { redisEnv } from './support/redis-env.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';

/** Runs the CLI to its end: exit code, standard output, standard error. */
async function cli(args: string[], env: Record<string, string>) {
  const proc = spawnCli(args, env);
  // 'close', not 'exit': the last output may still be in the pipe when the process exits.
  const closed = new Promise((resolve) => proc.child.once('close', resolve));
  const { code } = await proc.exited;
  await closed;
  return { code, stdout: proc.stdout(), stderr: proc.errors() };
}

describe('pullwright export <id>', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false });
  });
  afterAll(() => sys?.stop());

  it('prints the record, timeline and transcript as redacted JSONL, and names a missing Redis', async () => {
    const op = await sys.runtime.store.create({
      type: 'debug',
      repo: 'acme/app',
      baseBranch: 'main',
      description: 'export me',
      requester: { source: 'api', user: 'dev' },
    });
    await sys.runtime.store.transition(op.id, 'cancelled', { error: 'not needed' });
    await sys.runtime.artifacts.append(op.id, TRANSCRIPT_ARTIFACT, `{"kind":"task","leak":"${TEST_TOKEN}"}\n`);
    const env = { ...redisEnv(), REDIS_PREFIX: sys.runtime.config.redisPrefix, API_TOKEN: TEST_TOKEN };

    const out = await cli(['export', op.id], env);
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; type?: string });
    expect(lines.map((l) => l.type ?? l.kind)).toEqual(['operation', 'created', 'status', 'transcript']);
    expect(out.stdout).not.toContain(TEST_TOKEN);

    const missing = await cli(['export', 'nope1234'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('pullwright export: operation nope1234 not found');
    const noRedis = await cli(['export', op.id], {});
    expect(noRedis.code).toBe(1);
    expect(noRedis.stderr).toMatch(/REDIS_URL \(or REDIS_CLUSTER_NODES\) is required/);
  });
});
