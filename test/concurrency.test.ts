import { ReplayProvider, ReplayTranscript } from '@pullwright/agent';
import type { Operation, OperationStatus } from '@pullwright/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

const waitAll = (sys: TestSystem, ids: string[], statuses: OperationStatus[]): Promise<Operation[]> =>
  Promise.all(ids.map((id) => waitForStatus(sys, id, statuses, 60_000)));

const eventsOf = async (sys: TestSystem, id: string) => sys.runtime.events.list(id);

/** A transcript that plans, edits and finishes on one file of the sample repository. */
function transcriptEditing(file: string, oldText: string, newText: string) {
  const plan = {
    summary: `Change ${file}`,
    steps: [{ title: 'Edit', files: [file], acceptance: 'checks pass' }],
    risks: [],
  };
  return ReplayTranscript.parse({
    turns: [
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
      { content: [{ type: 'tool_use', name: 'edit_file', input: { path: file, oldText, newText } }] },
      // A slow-ish check keeps the lock held long enough for the other operation to meet it.
      { content: [{ type: 'tool_use', name: 'run_check', input: { name: 'test' } }] },
      { content: [{ type: 'text', text: `Changed ${file}.` }] },
      { content: [{ type: 'text', text: JSON.stringify({ decision: 'accept', reasons: [], must_fix: [] }) }] },
    ],
  });
}

const SLUGIFY_FIX = [
  "  return title.toLowerCase().replace(' ', '-');",
  "  return title.trim().toLowerCase().split(/\\s+/).join('-');",
] as const;

describe('file locks between operations', () => {
  let sys: TestSystem | undefined;
  afterEach(async () => {
    await sys?.stop();
    sys = undefined;
  });

  it('runs two operations on the same file one after the other, the second shown waiting, and reports the overlap', async () => {
    sys = await startTestSystem({ env: { WORKER_CONCURRENCY: '2' } });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const transcript = transcriptEditing('src/slugify.js', ...SLUGIFY_FIX);
    sys.runtime.createProvider = () => new ReplayProvider(transcript);
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: `slugify fix ${n}` });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const ops = await waitAll(sys, ids, ['awaiting_approval', 'failed']);
    expect(ops.map((o) => o.error)).toEqual([undefined, undefined]);

    const waits = await Promise.all(
      ids.map(async (id) => (await eventsOf(sys!, id)).filter((e) => e.type === 'waiting')),
    );
    const waiter = waits.findIndex((w) => w.length > 0);
    expect(waiter).toBeGreaterThanOrEqual(0);
    const holder = 1 - waiter;
    expect(waits[holder]).toEqual([]);
    expect(waits[waiter]![0]!.data).toMatchObject({ files: ['src/slugify.js'], holder: ids[holder] });

    // The waiter got the file only after the holder was done with it (its branch pushed).
    const holderPush = (await eventsOf(sys, ids[holder]!)).find((e) => e.type === 'step' && e.data.step === 'push')!;
    const waiterLock = (await eventsOf(sys, ids[waiter]!)).find((e) => e.type === 'locks_acquired')!;
    expect(waiterLock.data).toMatchObject({ waited: true });
    expect(Date.parse(waiterLock.ts)).toBeGreaterThanOrEqual(Date.parse(holderPush.ts));
    expect(ops[waiter]!.waiting).toBeUndefined();
    // The later one says its branch touches the same file as the earlier, still open one.
    expect(ops[waiter]!.overlaps).toEqual([expect.objectContaining({ opId: ids[holder], files: ['src/slugify.js'] })]);
    // No lock outlives the operations (released when each job ends).
    for (const id of ids) {
      while (!(await eventsOf(sys, id)).some((e) => e.type === 'step' && e.data.step === 'release'))
        await new Promise((r) => setTimeout(r, 20));
    }
    expect(await sys.runtime.fileLocks.holders(repo)).toEqual([]);
  });

  it('runs operations on different files in parallel', async () => {
    sys = await startTestSystem({ env: { WORKER_CONCURRENCY: '2' } });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    const byDescription: Record<string, ReplayTranscript> = {
      code: transcriptEditing('src/slugify.js', ...SLUGIFY_FIX),
      docs: transcriptEditing('README.md', '# sample-slugify', '# sample-slugify (slugs for titles)'),
    };
    sys.runtime.createProvider = (op) => new ReplayProvider(byDescription[op.description]!);
    const ids: string[] = [];
    for (const [type, description] of [
      ['debug', 'code'],
      ['implement', 'docs'],
    ]) {
      const res = await sys.request('POST', '/v1/operations', { type, repo, description });
      ids.push(((await res.json()) as { id: string }).id);
    }
    const ops = await waitAll(sys, ids, ['awaiting_approval', 'failed']);
    expect(ops.map((o) => [o.status, o.error])).toEqual([
      ['awaiting_approval', undefined],
      ['awaiting_approval', undefined],
    ]);
    for (const id of ids) expect((await eventsOf(sys, id)).filter((e) => e.type === 'waiting')).toEqual([]);
    // Both held their locks at the same time: each acquired before the other pushed.
    const [a, b] = await Promise.all(ids.map((id) => eventsOf(sys!, id)));
    const lockedAt = (ev: typeof a) => Date.parse(ev!.find((e) => e.type === 'locks_acquired')!.ts);
    const pushedAt = (ev: typeof a) => Date.parse(ev!.find((e) => e.type === 'step' && e.data.step === 'push')!.ts);
    expect(lockedAt(a)).toBeLessThan(pushedAt(b));
    expect(lockedAt(b)).toBeLessThan(pushedAt(a));
    expect(ops.every((o) => !o.overlaps?.length)).toBe(true);
  });
});
