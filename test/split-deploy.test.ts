import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { deploySignature } from '@pullwright/pipeline';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorker, type WorkerProcess } from './chaos/worker-process.ts';
import { redisEnv } from './support/redis-env.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { DEMO_TRANSCRIPT, startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/** Where people reach the API: nobody serves it here, the links only have to name it. */
const PUBLIC_URL = 'https://pullwright.example.test';
const SECRET = 'deploy-secret-for-the-split-test';

/**
 * A split deployment: the API without the deploy signing key, one worker process with the
 * environment the per-process table gives a worker (PUBLIC_URL, DEPLOY_WEBHOOK_SECRET). The
 * worker writes the PR's link on PUBLIC_URL, and runs the deploy the API started, signed.
 */
describe('split processes: links and deploys come from the worker', () => {
  let sys: TestSystem;
  let worker: WorkerProcess;
  let hook: Server;
  let scratch: string;
  const hits: { url: string; body: string; headers: Record<string, string | string[] | undefined> }[] = [];

  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        hits.push({ url: req.url ?? '', body, headers: req.headers });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(req.url === '/deploy' ? { id: 'd1', status: 'queued' } : { status: 'success' }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const address = hook.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-split-deploy-'));
    const policy = path.join(scratch, 'policy.yml');
    writeFileSync(
      policy,
      `deploy:
  on_merge: false
  target: { kind: webhook, url: '${base}/deploy' }
  status: { url: '${base}/status/{id}', poll_ms: 100, timeout_ms: 20000 }
`,
    );
    // The API: the policy (it starts deploys), PUBLIC_URL, and no deploy signing key.
    sys = await startTestSystem({ worker: false, env: { POLICY_FILE: policy, PUBLIC_URL } });
    expect(sys.runtime.config.deployWebhookSecret).toBeUndefined();
    worker = spawnWorker({
      ...redisEnv(),
      REDIS_PREFIX: sys.runtime.config.redisPrefix,
      VERIFICATION_KEY: sys.runtime.config.verificationKey!,
      // The forge is shared (compose: the forge volume); the worker's own data and workspace.
      FORGE_DIR: sys.runtime.config.forgeDir,
      DATA_DIR: path.join(scratch, 'worker-data'),
      LLM_PROVIDER: 'replay',
      REPLAY_FILE: DEMO_TRANSCRIPT,
      CHECK_TIMEOUT_MS: '60000',
      POLICY_FILE: policy,
      PUBLIC_URL,
      DEPLOY_WEBHOOK_SECRET: SECRET,
    });
    await worker.ready;
  });
  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await worker?.exited;
    await sys?.stop();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('the worker records the PR on PUBLIC_URL; a deploy the API starts runs on the worker, signed with its key', async () => {
    const repo = await createSampleRepo(sys.runtime.localForge!, 'split/slugify');
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const waiting = await waitForStatus(sys, id, ['awaiting_approval', 'failed'], 90_000);
    expect(waiting.status, waiting.error).toBe('awaiting_approval');
    expect(waiting.pullRequest!.url).toBe(`${PUBLIC_URL}/forge/${repo}/pulls/${waiting.pullRequest!.number}`);

    const approved = await sys.request('POST', `/v1/operations/${id}/approve`, {
      headSha: waiting.pullRequest!.headSha,
    });
    expect(approved.status).toBe(200);
    expect((await waitForStatus(sys, id, ['merged', 'failed'], 60_000)).status).toBe('merged');

    expect((await sys.request('POST', `/v1/operations/${id}/deploy`, {})).status).toBeLessThan(300);
    const done = await eventually(
      'the deploy ends',
      async () => {
        const op = await sys.runtime.store.get(id);
        return op.deploy && op.deploy.status !== 'running' ? op : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(done.deploy, done.deploy?.error).toMatchObject({ status: 'succeeded', target: 'webhook' });
    const call = hits.find((h) => h.url === '/deploy')!;
    const timestamp = String(call.headers['x-pullwright-timestamp']);
    expect(call.headers['x-pullwright-signature-256']).toBe(deploySignature(SECRET, timestamp, call.body));
  });
});
