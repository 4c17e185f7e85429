import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Operation, OperationStatus } from '@pullwright/core';
import { KEPT_DIFF_ARTIFACT, TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, TEST_TOKEN, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

interface Frame {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads server-sent events until `done` says so (or 10 s pass), then hangs up. */
async function readEvents(
  url: string,
  headers: Record<string, string>,
  done: (frames: Frame[]) => boolean,
  whileOpen: () => Promise<unknown> = async () => undefined,
): Promise<Frame[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const frames: Frame[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let acted = false;
  try {
    while (!done(frames)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const frame: Frame = {};
        for (const line of buffer.slice(0, cut).split('\n')) {
          const [field, ...rest] = line.split(': ');
          if (field === 'id' || field === 'event' || field === 'data') frame[field] = rest.join(': ');
        }
        if (frame.event) frames.push(frame);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
      }
      if (!acted && frames.some((f) => f.event === 'ready')) {
        acted = true;
        await whileOpen();
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return frames;
}

const waitFor = (sys: TestSystem, id: string, statuses: OperationStatus[]): Promise<Operation> =>
  waitForStatus(sys, id, statuses);

const bearer = { authorization: `Bearer ${TEST_TOKEN}` };

describe('dashboard endpoints without a worker', () => {
  let sys: TestSystem;
  let repo: string;
  beforeAll(async () => {
    sys = await startTestSystem({ worker: false });
    repo = await createSampleRepo(sys.runtime.localForge!);
  });
  afterAll(async () => sys?.stop());

  async function create(description: string): Promise<string> {
    const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description });
    return ((await res.json()) as { id: string }).id;
  }

  it('retries a failed operation as a new one with the same inputs, linked both ways, once', async () => {
    const first = await sys.request('POST', '/v1/operations', {
      type: 'implement',
      repo,
      baseBranch: 'main',
      description: 'add kebab mode',
      context: { acceptance: 'kebab("A B") === "a-b"' },
      budget: { turns: 12, costUsd: 1.5 },
    });
    const { id } = (await first.json()) as { id: string };
    const running = await sys.request('POST', `/v1/operations/${id}/retry`, {});
    expect(running.status).toBe(409);
    await sys.runtime.store.transition(id, 'running');
    await sys.runtime.store.end(id, { code: 'checks_failed', detail: 'check "test" exited with 1' });

    const retry = await sys.request('POST', `/v1/operations/${id}/retry`, { user: 'ci-bot' });
    expect(retry.status).toBe(202);
    const body = (await retry.json()) as { id: string; status: string; retryOf: string };
    expect(body).toMatchObject({ status: 'queued', retryOf: id });
    expect(retry.headers.get('location')).toBe(`/v1/operations/${body.id}`);
    const original = await sys.runtime.store.get(id);
    const copy = await sys.runtime.store.get(body.id);
    expect(copy.id).not.toBe(id);
    for (const key of ['type', 'repo', 'baseBranch', 'description', 'context', 'budget'] as const)
      expect(copy[key]).toEqual(original[key]);
    expect(copy.budget).toEqual({ turns: 12, costUsd: 1.5 });
    expect(copy.requester).toEqual({ source: 'api', user: 'ci-bot' });
    expect((await sys.runtime.events.list(body.id)).map((e) => [e.type, e.data.opId])).toContainEqual(['retry_of', id]);
    expect((await sys.runtime.events.list(id)).at(-1)).toMatchObject({ type: 'retried', data: { retryId: body.id } });
    const job = await sys.runtime.queue.queue.getJob(body.id);
    expect(job?.name).toBe('run');

    // A second click gets the same retry back.
    const again = await sys.request('POST', `/v1/operations/${id}/retry`, {});
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(body.id);
  });

  it('shows an empty diff before a pull request exists, and 404 for a transcript that is not there', async () => {
    const id = await create('nothing yet');
    const diff = await sys.request('GET', `/v1/operations/${id}/diff`);
    expect(diff.status).toBe(200);
    expect(await diff.json()).toEqual({ pullRequest: null, headSha: null, files: [] });
    const transcript = await sys.request('GET', `/v1/operations/${id}/transcript`);
    expect(transcript.status).toBe(404);
  });

  it("serves an operation's own transcript and artifacts from shared storage, and names a bad artifact", async () => {
    const id = await create('own transcript');
    const other = await create('other');
    // A transcript path on the record (written by older workers) is not read: files are not shared.
    const outside = path.join(sys.dataDir, 'secret.jsonl');
    await writeFile(outside, '{"kind":"secret"}\n');
    await sys.runtime.store.patch(id, { transcriptPath: outside }, { type: 'checkpoint', data: { step: 'test' } });
    await sys.runtime.artifacts.append(other, TRANSCRIPT_ARTIFACT, `{"kind":"task","token":"${TEST_TOKEN}"}\n`);
    expect((await sys.request('GET', `/v1/operations/${id}/transcript`)).status).toBe(404);
    const own = await sys.request('GET', `/v1/operations/${other}/transcript`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const served = await own.text();
    expect(served).toMatch(/^\{"kind":"task","token":"\[redacted[^"]*\]"\}\n$/);
    expect(served).not.toContain(TEST_TOKEN);

    await sys.runtime.artifacts.put(other, KEPT_DIFF_ARTIFACT, '+const fixed = true;\n');
    const diff = await sys.request('GET', `/v1/operations/${other}/artifacts/${KEPT_DIFF_ARTIFACT}`);
    expect(diff.status).toBe(200);
    expect(await diff.text()).toBe('+const fixed = true;\n');
    expect((await sys.request('GET', `/v1/operations/${id}/artifacts/${KEPT_DIFF_ARTIFACT}`)).status).toBe(404);
    const bad = await sys.request('GET', `/v1/operations/${id}/artifacts/..%2Fapi-token`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/name/);
  });

  it('reports queue health: counts, no workers, and the oldest waiting job', async () => {
    await create('waiting for a worker');
    // No worker: every job but a cancelled operation's is still waiting, the first one longest.
    const waiting = (await sys.runtime.store.list({ limit: 200 })).filter((o) => o.status !== 'cancelled');
    const res = await sys.request('GET', '/v1/queue/health');
    expect(res.status).toBe(200);
    const health = (await res.json()) as {
      counts: Record<string, number>;
      workers: unknown[];
      oldestWaiting: { opId: string; waitingMs: number };
    };
    // Run jobs carry their operation's priority: BullMQ keeps them in `prioritized`.
    expect((health.counts.waiting ?? 0) + (health.counts.prioritized ?? 0)).toBeGreaterThanOrEqual(1);
    expect(health.workers).toEqual([]);
    expect(health.oldestWaiting.opId).toBe(waiting.at(-1)!.id);
    expect(health.oldestWaiting.waitingMs).toBeGreaterThanOrEqual(0);
  });

  it('streams the global feed live, and resumes after Last-Event-ID without gaps or repeats', async () => {
    const url = `${sys.api.url}/v1/events`;
    let created = '';
    const live = await readEvents(
      url,
      bearer,
      (frames) => frames.some((f) => f.event === 'feed' && JSON.parse(f.data!).opId === created && created !== ''),
      async () => {
        created = await create('seen live');
      },
    );
    const ready = live.find((f) => f.event === 'ready')!;
    const seen = live.filter((f) => f.event === 'feed').map((f) => JSON.parse(f.data!));
    expect(seen[0]).toMatchObject({ opId: created, type: 'created', status: 'queued' });
    expect(seen.every((e) => e.opId === created)).toBe(true);

    // Two more things happen while nobody listens; a resume gets exactly those.
    const resumeFrom = live.at(-1)!.id!;
    const later = await create('happened while away');
    await sys.request('POST', `/v1/operations/${later}/cancel`, {});
    const resumed = await readEvents(url, { ...bearer, 'last-event-id': resumeFrom }, (frames) =>
      frames.some((f) => f.event === 'ready'),
    );
    const missed = resumed.filter((f) => f.event === 'feed').map((f) => JSON.parse(f.data!));
    expect(missed.map((e) => [e.opId, e.type, e.status])).toEqual([
      [later, 'created', 'queued'],
      [later, 'status', 'cancelled'],
    ]);
    expect(resumed.find((f) => f.event === 'ready')!.id).toBe(missed.at(-1).id);
    expect(ready.id).toMatch(/^\d+-\d+$/);
  });

  it('refuses the feed without credentials', async () => {
    expect((await fetch(`${sys.api.url}/v1/events`)).status).toBe(401);
  });
});

describe('dashboard endpoints on a real run', () => {
  let sys: TestSystem;
  afterEach(async () => sys?.stop());

  it('serves the pull request diff per file and the redacted transcript', async () => {
    sys = await startTestSystem();
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const res = await sys.request('POST', '/v1/operations', {
      type: 'debug',
      repo,
      description: 'slugify keeps spaces',
    });
    const { id } = (await res.json()) as { id: string };
    const ready = await waitFor(sys, id, ['awaiting_approval', 'failed']);
    expect(ready.status).toBe('awaiting_approval');

    const diff = (await (await sys.request('GET', `/v1/operations/${id}/diff`)).json()) as {
      headSha: string;
      files: {
        path: string;
        status: string;
        additions: number;
        deletions: number;
        lines: { kind: string; text: string }[];
      }[];
    };
    expect(diff.headSha).toBe(ready.pullRequest!.headSha);
    expect(diff.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['src/slugify.js', 'modified', 1, 1],
    ]);
    const lines = diff.files[0]!.lines;
    expect(lines.find((l) => l.kind === 'add')?.text).toContain("split(/\\s+/).join('-')");
    expect(lines.find((l) => l.kind === 'del')?.text).toContain("replace(' ', '-')");

    const transcript = await sys.request('GET', `/v1/operations/${id}/transcript`);
    expect(transcript.status).toBe(200);
    const text = await transcript.text();
    expect(text).not.toContain(TEST_TOKEN);
    const entries = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string });
    expect(entries[0]!.kind).toBe('task');
    expect(entries.filter((e) => e.kind === 'tool').length).toBeGreaterThanOrEqual(3);

    // The audit export: the record, its timeline, then the transcript, as JSONL.
    const audit = await sys.request('GET', `/v1/operations/${id}/audit`);
    expect(audit.status).toBe(200);
    const records = (await audit.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; type?: string; operation?: { id: string } });
    expect(records[0]).toMatchObject({ kind: 'operation', operation: { id } });
    expect(records.filter((r) => r.kind === 'event').map((r) => r.type)).toContain('status');
    expect(records.filter((r) => r.kind === 'transcript')).toHaveLength(entries.length);
    expect((await sys.request('GET', '/v1/operations/nope0000/audit')).status).toBe(404);

    const health = (await (await sys.request('GET', '/v1/queue/health')).json()) as { workers: unknown[] };
    expect(health.workers.length).toBeGreaterThanOrEqual(1);
  });
});
