import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, text } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 21: an operation's priority is its run job's BullMQ priority. With the only worker
 * slot busy, a `critical` request queued after three `low` ones is the next to start. The
 * order is read from the feed (one Redis stream of every operation's status changes, in the
 * order Redis appended them), not from timing.
 */

let sys: TestSystem;
/** Resolves the blocker's first model call: until then the one worker slot is taken. */
let release: () => void = () => undefined;
let blockerAsked: () => void = () => undefined;

beforeAll(async () => {
  sys = await startTestSystem({ env: { WORKER_CONCURRENCY: '1', MAX_REPAIRS: '0' } });
  await sys.runtime.localForge!.createRepository('acme/prio', {
    'package.json': JSON.stringify({ name: 'prio', scripts: { test: 'node -e 0' } }),
    'index.js': 'module.exports = 1;\n',
  });
}, 60_000);

afterAll(async () => sys?.stop());

async function create(description: string, priority: string): Promise<string> {
  const res = await sys.request('POST', '/v1/operations', { type: 'debug', repo: 'acme/prio', description, priority });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** A stream entry's `[k1, v1, k2, v2…]` as an object. */
function fieldsOf(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

describe('priority', () => {
  it('with one worker busy, a critical operation queued after three low ones starts first', async () => {
    const asked = new Promise<void>((resolve) => {
      blockerAsked = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    sys.runtime.createProvider = (op) =>
      op.description === 'blocker'
        ? new ScriptedModel([
            async () => {
              blockerAsked();
              await gate;
              return text('No plan.');
            },
          ])
        : // The others end at their planner's first answer: only the order they start in matters.
          new ScriptedModel([text('No plan.')]);

    const blocker = await create('blocker', 'medium');
    await asked; // the worker's one slot is now taken by the blocker's model call
    const low = [await create('low one', 'low'), await create('low two', 'low'), await create('low three', 'low')];
    const critical = await create('critical', 'critical');
    const queued = await sys.runtime.queue.queue.getJobs(['prioritized'], 0, -1, true);
    expect(queued.map((j) => j.id)).toEqual([critical, ...low]);
    release();

    for (const id of [blocker, ...low, critical]) await waitForStatus(sys, id, ['failed', 'awaiting_approval']);
    const feed = await sys.runtime.redis.xrange(sys.runtime.keys.feed(), '-', '+');
    const started = feed
      .map(([, fields]) => fieldsOf(fields))
      .filter((f) => f.type === 'status' && f.status === 'running')
      .map((f) => f.opId);
    expect(started).toEqual([blocker, critical, ...low]);
  });
});
