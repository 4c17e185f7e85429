import { type Operation, PullwrightError, type Requester } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';

const RETRYABLE: ReadonlySet<Operation['status']> = new Set(['failed', 'cancelled']);

/**
 * A new operation with the same inputs as a failed or cancelled one. The two are linked in
 * both timelines (`retried` on the old, `retry_of` on the new). One retry per operation: a
 * second click (or a replayed request) gets the first retry back, `created: false`.
 */
export async function dashboardRetry(
  deps: Pick<Runtime, 'store' | 'events' | 'queue'>,
  id: string,
  by: Pick<Requester, 'user' | 'source'>,
): Promise<{ op: Operation; created: boolean }> {
  const original = await deps.store.get(id);
  if (!RETRYABLE.has(original.status)) {
    throw new PullwrightError(
      'invalid_transition',
      `only a failed or cancelled operation can be retried; this one is ${original.status}`,
      {
        from: original.status,
        to: 'queued',
      },
    );
  }
  const { op, created } = await deps.store.createOnce(`retry:${id}`, {
    type: original.type,
    repo: original.repo,
    baseBranch: original.baseBranch,
    description: original.description,
    context: original.context,
    ...(original.budget ? { budget: original.budget } : {}),
    requester: { source: by.source, user: by.user },
  });
  if (created) {
    await deps.events.append(op.id, 'retry_of', { opId: id, by: by.user });
    await deps.events.append(id, 'retried', { retryId: op.id, by: by.user });
  }
  // As for a create: enqueueing is a no-op when the first attempt got that far.
  await deps.queue.add('run', { opId: op.id });
  return { op, created };
}
