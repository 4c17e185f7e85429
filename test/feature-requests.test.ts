import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { FeatureRequest, Operation } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForFeatureRequest } from './support/wait-for-feature-request.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 21 item 5: a feature request is captured, analysed by the model in a worker (strict
 * JSON), triaged, implemented as an /implement operation carrying its acceptance criteria,
 * and released with its PR once that operation merges — against the local forge, with a
 * scripted model.
 */

const ANALYSIS = {
  intent: 'Callers want the answer to be 42.',
  affectedModules: ['src/app.js'],
  priority: 'low',
  acceptanceCriteria: ['answer is 42', 'the test passes'],
};
const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'answer is 42' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });

let sys: TestSystem;
let scratch: string;
let seq = 0;
/** What the model answers, by subject id prefix: feature analyses, then operations, in order. */
const analyses: Turn[][] = [];
const runs: Turn[][] = [];
const models = new Map<string, ScriptedModel>();

beforeAll(async () => {
  // Repository files may name a deploy hook on this host (the deploy test's local target).
  scratch = mkdtempSync(path.join(os.tmpdir(), 'pw-features-'));
  const policyFile = path.join(scratch, 'service-policy.yml');
  writeFileSync(policyFile, 'allow: { deploy_hosts: [127.0.0.1] }\n');
  sys = await startTestSystem({
    env: { MAX_REPAIRS: '0', POLICY_FILE: policyFile, DEPLOY_WEBHOOK_SECRET: 'deploy-secret-0123456789abcdef' },
  });
  sys.runtime.createProvider = (subject) => {
    const model = new ScriptedModel((subject.id.startsWith('fr') ? analyses : runs).shift() ?? []);
    models.set(subject.id, model);
    return model;
  };
}, 60_000);

afterAll(async () => {
  await sys?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function createRepo(extra: Record<string, string> = {}): Promise<string> {
  const repo = `acme/features${++seq}`;
  await sys.runtime.localForge!.createRepository(repo, {
    ...extra,
    'package.json': JSON.stringify({ name: 'features', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'test.js': "import { answer } from './src/app.js';\nif (typeof answer !== 'number') process.exit(1);\n",
  });
  return repo;
}

async function json<T>(res: Response, status: number): Promise<T> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body as T;
}

async function capture(repo: string, description: string): Promise<string> {
  const res = await sys.request('POST', '/v1/feature-requests', { repo, description, user: 'pat' });
  return (await json<{ id: string }>(res, 202)).id;
}

/** Polls the request until it leaves the given statuses (its analysis runs in the worker). */
const waitFor = (id: string, statuses: FeatureRequest['status'][]): Promise<FeatureRequest> =>
  waitForFeatureRequest(sys, id, (request) => statuses.includes(request.status));

/** Analysis, triage and Implement through REST; returns the request and its operation, awaiting approval. */
async function implemented(repo: string): Promise<{ id: string; op: Operation }> {
  analyses.push([text(JSON.stringify(ANALYSIS))]);
  const id = await capture(repo, 'Make the answer 42');
  await waitFor(id, ['analyzed']);
  runs.push([PLAN, EDIT, text('Edited.'), ACCEPT]);
  const answer = await json<{ operation: { id: string } }>(
    await sys.request('POST', `/v1/feature-requests/${id}/implement`, { user: 'lead' }),
    202,
  );
  const op = await waitForStatus(sys, answer.operation.id, ['awaiting_approval', 'failed']);
  expect(op.error).toBeUndefined();
  return { id, op };
}

describe('feature requests', () => {
  it('capture → analysis → triage → implement → merged → released, with the PR linked', async () => {
    const repo = await createRepo();
    analyses.push([text(`\`\`\`json\n${JSON.stringify(ANALYSIS)}\n\`\`\``)]);
    const id = await capture(repo, 'Make the answer 42\n\nEverything downstream expects 42.');
    const analyzed = await waitFor(id, ['analyzed', 'analysis_failed']);
    expect(analyzed).toMatchObject({
      status: 'analyzed',
      title: 'Make the answer 42',
      analysis: ANALYSIS,
      priority: 'low',
      acceptanceCriteria: ANALYSIS.acceptanceCriteria,
    });
    // The analysis ran in the worker, with the request as data.
    expect(JSON.stringify(models.get(id)!.requests[0]!.messages)).toContain('Everything downstream expects 42.');

    // Implement is refused while declined; triage (accept, raising the priority) lets it through.
    await json(await sys.request('POST', `/v1/feature-requests/${id}/triage`, { decision: 'declined' }), 200);
    const refused = await json<{ error: { code: string; message: string } }>(
      await sys.request('POST', `/v1/feature-requests/${id}/implement`, {}),
      409,
    );
    expect(refused.error.message).toContain('declined');
    const accepted = await json<FeatureRequest>(
      await sys.request('POST', `/v1/feature-requests/${id}/triage`, {
        decision: 'accepted',
        priority: 'high',
        user: 'lead',
      }),
      200,
    );
    expect(accepted).toMatchObject({
      status: 'accepted',
      priority: 'high',
      triage: { decision: 'accepted', by: 'lead' },
    });

    runs.push([PLAN, EDIT, text('Edited.'), ACCEPT]);
    const implemented = await json<{ featureRequest: FeatureRequest; operation: { id: string } }>(
      await sys.request('POST', `/v1/feature-requests/${id}/implement`, { user: 'lead' }),
      202,
    );
    const opId = implemented.operation.id;
    expect(implemented.featureRequest).toMatchObject({ status: 'implementing', operationId: opId });
    const op = await waitForStatus(sys, opId, ['awaiting_approval', 'failed']);
    expect(op.error).toBeUndefined();
    expect(op).toMatchObject({
      type: 'implement',
      priority: 'high',
      featureContext: { featureRequestId: id, acceptanceCriteria: ANALYSIS.acceptanceCriteria },
    });
    const planner = JSON.stringify(models.get(opId)!.requests[0]!.messages);
    expect(planner).toContain('- answer is 42');
    expect(planner).toContain('- the test passes');

    // A second press while the operation runs is refused: one implementation at a time.
    await json(await sys.request('POST', `/v1/feature-requests/${id}/implement`, {}), 409);

    await json(
      await sys.request('POST', `/v1/operations/${opId}/approve`, { user: 'lead', headSha: op.pullRequest!.headSha }),
      200,
    );
    const merged = await waitForStatus(sys, opId, ['merged', 'failed']);
    expect(merged.status).toBe('merged');
    const released = await waitFor(id, ['released']);
    expect(released.pullRequest).toEqual({ number: op.pullRequest!.number, url: op.pullRequest!.url });
    expect(released.releasedAt).toBeDefined();

    const listed = await json<{ featureRequests: FeatureRequest[] }>(
      await sys.request('GET', '/v1/feature-requests?status=released'),
      200,
    );
    expect(listed.featureRequests.map((r) => r.id)).toContain(id);
  });

  it('an answer that is not the strict JSON fails the analysis with the reason; analysing again succeeds', async () => {
    const repo = await createRepo();
    const extraKey = JSON.stringify({ ...ANALYSIS, estimate: '2 days' });
    analyses.push([text(extraKey), text('Sure! It is about the answer.')]);
    const id = await capture(repo, 'Make the answer 42');
    const failed = await waitFor(id, ['analyzed', 'analysis_failed']);
    expect(failed.status).toBe('analysis_failed');
    expect(failed.analysisError).toMatch(/^analysis failed: the answer contains no JSON object/);
    // The first answer's problem was shown to the model before its second try.
    expect(JSON.stringify(models.get(id)!.requests[1]!.messages)).toContain('estimate');
    await json(await sys.request('POST', `/v1/feature-requests/${id}/implement`, {}), 409);

    analyses.push([text(JSON.stringify(ANALYSIS))]);
    await json(await sys.request('POST', `/v1/feature-requests/${id}/analyze`, {}), 202);
    const analyzed = await waitFor(id, ['analyzed']);
    expect(analyzed.analysisError).toBeUndefined();
    expect(analyzed.acceptanceCriteria).toEqual(ANALYSIS.acceptanceCriteria);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const repo = await createRepo();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/feature-requests', { repo, description: '   ' }, 'description'],
      ['POST', '/v1/feature-requests', { repo: 'acme/nope', description: 'x' }, 'repo'],
      ['POST', '/v1/feature-requests', { repo, description: 'x', priority: 'high' }, 'priority'],
      ['POST', '/v1/feature-requests/frxxxxxxxx/triage', { decision: 'maybe' }, 'decision'],
      [
        'POST',
        '/v1/feature-requests/frxxxxxxxx/triage',
        { decision: 'accepted', acceptanceCriteria: [] },
        'acceptanceCriteria',
      ],
      ['GET', '/v1/feature-requests/op123456', undefined, 'id'],
      ['GET', '/v1/feature-requests?status=shipped', undefined, 'status'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await sys.request(method, url, body);
      const answer = await json<{ error: { fields?: { field: string }[] } }>(res, 400);
      expect(
        (answer.error.fields ?? []).map((f) => f.field),
        `${method} ${url}`,
      ).toContain(field);
    }
    await json(await sys.request('GET', '/v1/feature-requests/frzzzzzzzzzz'), 404);
  });

  it('where a deploy is configured, the request waits as merged until the deploy succeeds, then is released', async () => {
    // A deploy target whose status stays pending until the test has seen the request wait.
    let outcome = 'pending';
    const server: Server = createServer((req, res) => {
      req.resume().on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(req.url === '/deploy' ? { id: 'd1', status: 'queued' } : { status: outcome }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      const repo = await createRepo({
        '.pullwright.yml': [
          'deploy:',
          `  target: { kind: webhook, url: 'http://127.0.0.1:${port}/deploy' }`,
          `  status: { url: 'http://127.0.0.1:${port}/status/{id}', poll_ms: 100, timeout_ms: 30000 }`,
        ].join('\n'),
      });
      const { id, op } = await implemented(repo);
      await json(
        await sys.request('POST', `/v1/operations/${op.id}/approve`, {
          user: 'lead',
          headSha: op.pullRequest!.headSha,
        }),
        200,
      );
      await waitForStatus(sys, op.id, ['merged', 'failed']);
      const waiting = await waitFor(id, ['merged', 'released']);
      expect(waiting.status).toBe('merged');
      expect(waiting.pullRequest?.url).toBe(op.pullRequest!.url);
      expect((await sys.runtime.store.get(op.id)).deploy?.status).toBe('running');
      outcome = 'success';
      const released = await waitFor(id, ['released']);
      expect(released.releasedAt).toBeDefined();
      expect((await sys.runtime.store.get(op.id)).deploy?.status).toBe('succeeded');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
