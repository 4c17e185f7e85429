import type { Operation, OperationStatus } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { eventually } from '@pullwright/testing/eventually';

type WithStore = { runtime: Pick<Runtime, 'store'> };

/** Polls the store until the operation satisfies `done`; the error names where it is stuck. */
export async function waitForOperation(
  sys: WithStore,
  id: string,
  done: (op: Operation) => boolean,
  timeoutMs = 45_000,
): Promise<Operation> {
  let last: Operation | undefined;
  return eventually(
    () => `operation ${id} is done (it is ${last?.status ?? 'missing'}: ${last?.error ?? ''})`,
    async () => {
      last = await sys.runtime.store.get(id);
      return done(last) ? last : undefined;
    },
    { timeoutMs },
  );
}

/** Until the operation reaches one of `statuses`. */
export function waitForStatus(
  sys: WithStore,
  id: string,
  statuses: OperationStatus[],
  timeoutMs = 45_000,
): Promise<Operation> {
  return waitForOperation(sys, id, (op) => statuses.includes(op.status), timeoutMs);
}
