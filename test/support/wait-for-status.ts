import type { Operation, OperationStatus } from '@pullwright/core';
import type { TestSystem } from './test-runtime.ts';

/** Polls the store until the operation reaches one of `statuses`; the error names where it is stuck. */
export async function waitForStatus(
  sys: TestSystem,
  id: string,
  statuses: OperationStatus[],
  timeoutMs = 45_000,
): Promise<Operation> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const op = await sys.runtime.store.get(id);
    if (statuses.includes(op.status)) return op;
    if (Date.now() > deadline) throw new Error(`operation ${id} is still ${op.status}: ${op.error ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
