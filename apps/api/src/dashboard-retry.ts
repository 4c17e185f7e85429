import { type Operation, PullwrightError } from '@pullwright/core';
import type { Caller, Runtime } from '@pullwright/pipeline';

const RETRYABLE: ReadonlySet<Operation['status']> = new Set(['failed', 'cancelled']);

/**
 * A new operation with the same inputs as a failed or cancelled one. The two are linked in
 * both timelines (`retried` on the old, `retry_of` on the new). One retry per operation: a
 * second click (or a replayed request) gets the first retry back, `created: false`. It is a
 * new request like any other: the retrier needs the role to request, and the original's
 * budget is checked against the caps for them (an admin's raised cap does not carry over).
 */
export async function dashboardRetry(
  deps: Pick<Runtime, 'store' | 'events' | 'actions'>,
  id: string,
  by: Caller,
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
  // Enqueued as a create is: a no-op when the first attempt got that far.
  const { op, created } = await deps.actions.create(
    {
      type: original.type,
      repo: original.repo,
      baseBranch: original.baseBranch,
      description: original.description,
      context: original.context,
      ...(original.budget ? { budget: original.budget } : {}),
      requester: { source: by.source, user: by.user },
    },
    `retry:${id}`,
  );
  if (created) {
    await deps.events.append(op.id, 'retry_of', { opId: id, by: by.user });
    await deps.events.append(id, 'retried', { retryId: op.id, by: by.user });
  }
  return { op, created };
}
