import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    await sys.runtime.store.end(op.id, { code: 'requested', detail: 'not needed' });
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
    const empty = mkdtempSync(path.join(os.tmpdir(), 'pw-export-none-'));
    try {
      const noRedis = await cli(['export', op.id], { DATA_DIR: empty });
      expect(noRedis.code).toBe(1);
      expect(noRedis.stderr).toMatch(
        /no Redis: set REDIS_URL \(or REDIS_CLUSTER_NODES\) to the service's Redis, or DATA_DIR/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('pullwright export beside npm start', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pw-export-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finds the Redis npm start printed and recorded, and reads its data once npm start has stopped', async () => {
    const start = spawnCli(
      ['start'],
      { DATA_DIR: dataDir, PORT: '0', SANDBOX: 'none', SHUTDOWN_GRACE_MS: '5000' },
      'Pullwright is running.',
    );
    try {
      await start.ready;
      const printed = /Redis: +(redis:\/\/127\.0\.0\.1:\d+) /.exec(start.stdout())?.[1];
      expect(printed, start.output()).toBeDefined();
      // README: the dashboard link carries the generated API token in its fragment.
      const token = readFileSync(path.join(dataDir, 'api-token'), 'utf8').trim();
      expect(start.stdout()).toMatch(new RegExp(`Dashboard: http://127\\.0\\.0\\.1:\\d+/#token=${token}\n`));
      const opId = /"opId":"([a-z0-9]+)","msg":"demo operation enqueued"/.exec(start.output())?.[1];
      expect(opId, start.output()).toBeDefined();

      // No REDIS_URL: the server npm start recorded under DATA_DIR.
      const live = await cli(['export', opId!], { DATA_DIR: dataDir });
      expect(live.code, live.stderr).toBe(0);
      expect(JSON.parse(live.stdout.split('\n')[0]!)).toMatchObject({ kind: 'operation' });
      // The same operation through the printed URL.
      const byUrl = await cli(['export', opId!], { REDIS_URL: printed! });
      expect(JSON.parse(byUrl.stdout.split('\n')[0]!)).toMatchObject({ operation: { id: opId } });
    } finally {
      start.child.kill('SIGTERM');
      await start.exited;
    }
    // npm start stopped its server and removed the record; export reads the same data itself.
    expect(existsSync(path.join(dataDir, 'redis', 'server.json'))).toBe(false);
    const opId = /"opId":"([a-z0-9]+)","msg":"demo operation enqueued"/.exec(start.output())![1]!;
    const stopped = await cli(['export', opId], { DATA_DIR: dataDir });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout.split('\n')[0]!)).toMatchObject({ kind: 'operation', operation: { id: opId } });
    expect(existsSync(path.join(dataDir, 'redis', 'server.json'))).toBe(false);
  });
});
