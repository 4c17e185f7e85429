import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

describe('operating it: one operation is one trace (API → queue → worker → steps → model, forge) and a few log lines', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let sys: TestSystem;
  beforeAll(async () => {
    provider.register();
    sys = await startTestSystem({ captureLogs: true });
    await createSampleRepo(sys.runtime.localForge!);
    await sys.startWorker();
  });
  afterAll(async () => {
    await sys?.stop();
    await provider.shutdown();
  });

  it('has a span for the request, the enqueue, the job, each step, and the model and forge calls inside them', async () => {
    const created = await sys.request(
      'POST',
      '/v1/operations?trace=1',
      { type: 'debug', repo: 'acme/slugify', description: 'slugify keeps spaces' },
      { 'x-request-id': 'req-from-the-proxy-0001' },
    );
    expect(created.headers.get('x-request-id')).toBe('req-from-the-proxy-0001');
    const { id } = (await created.json()) as { id: string };
    const ready = await waitForStatus(sys, id, ['awaiting_approval', 'failed']);
    expect(ready.status).toBe('awaiting_approval');
    // The job span ends after release, a moment after the status changed.
    await eventually('the job span has ended', () => exporter.getFinishedSpans().some((s) => s.name === 'job run'), {
      timeoutMs: 15_000,
    });
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: ReadableSpan) => byId.get(s.parentSpanContext?.spanId ?? '');
    const ancestors = (s: ReadableSpan) => {
      const chain: string[] = [];
      for (let p = parentOf(s); p; p = parentOf(p)) chain.push(p.name);
      return chain;
    };
    const request = spans.find((s) => s.name === 'POST /v1/operations')!;
    expect(request).toBeDefined();
    const job = spans.find((s) => s.name === 'job run')!;
    expect(job.attributes['pullwright.operation.id']).toBe(id);
    // One trace from the REST call to the worker: BullMQ carried the context in the job.
    expect(job.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(spans.some((s) => s.name.startsWith('add ') && parentOf(s) === request)).toBe(true);

    const children = spans.filter((s) => parentOf(s) === job).map((s) => s.name);
    // Release revokes the job's git token: under the job, after its steps.
    expect(children.at(-1)).toBe('forge.revokeToken');
    expect(children.slice(0, -1)).toEqual([
      'step prepare',
      'step install',
      'step baseline',
      'step agent',
      'step verify',
      'step evidence',
      'step publish',
    ]);
    const models = spans.filter((s) => s.name === 'model.complete');
    expect(models).toHaveLength(ready.usage.modelCalls);
    for (const m of models) expect(parentOf(m)?.name).toBe('step agent');
    expect(models[0]!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    const forgeCalls = spans.filter((s) => s.name.startsWith('forge.') && ancestors(s).includes('step publish'));
    expect(forgeCalls.map((s) => s.name)).toContain('forge.openPullRequest');
    expect(
      forgeCalls.every((s) => s.attributes['pullwright.repo'] === 'acme/slugify' || s.name === 'forge.openPullRequest'),
    ).toBe(true);

    // The logs tell the same story: the access line with the request id, then one line when
    // the job starts, one per step and one at its end, each with the operation id.
    const lines = sys.logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'req-from-the-proxy-0001');
    expect(access).toMatchObject({ msg: 'POST /v1/operations 202', req: { method: 'POST', path: '/v1/operations' } });
    expect(JSON.stringify(access)).not.toContain('trace=1');
    expect(JSON.stringify(access)).not.toContain('authorization');
    const ofOp = lines
      .filter((l) => l.opId === id && l.job === 'run')
      .map((l) => String(l.msg) + (l.step ? ` ${l.step}` : ''));
    expect(ofOp).toEqual([
      'job started',
      ...['prepare', 'install', 'baseline', 'agent', 'verify', 'evidence', 'publish'].map((s) => `step finished ${s}`),
      'job finished',
    ]);
    // Nothing secret-shaped rides along: attributes are names, ids and counts.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('test-token');
  });
});
