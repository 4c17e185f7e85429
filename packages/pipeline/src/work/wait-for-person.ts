import type { Operation, Outcome } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';

const POLL_MS = 500;

/** How a wait for a person ended: their decision, or the stop (a cancel, the timeout). */
type PersonAnswer<T> = { answered: true; value: T; op: Operation } | { answered: false; stop: Outcome };

/**
 * Polls the operation until `answer` reads a decision from it, the operation is cancelled
 * or ended elsewhere, or `timeoutMs` passes. The one wait for a person an operation has:
 * the plan confirmation and the budget pause both go through it.
 */
export async function waitForPerson<T>(input: {
  store: OperationStore;
  opId: string;
  answer: (op: Operation) => T | undefined;
  timeoutMs: number;
  pollMs?: number;
}): Promise<PersonAnswer<T>> {
  const deadline = Date.now() + input.timeoutMs;
  for (;;) {
    const op = await input.store.get(input.opId);
    if (op.status !== 'running')
      return { answered: false, stop: { code: 'requested', detail: `operation is ${op.status}` } };
    if (op.cancelRequested) return { answered: false, stop: { code: 'requested' } };
    const value = input.answer(op);
    if (value !== undefined) return { answered: true, value, op };
    const left = deadline - Date.now();
    if (left <= 0) return { answered: false, stop: { code: 'timeout', within: describeWait(input.timeoutMs) } };
    await new Promise((r) => setTimeout(r, Math.min(input.pollMs ?? POLL_MS, left)));
  }
}

/** `1 h`, `90 min`, `30 s`, `300 ms`: the unit the setting was most likely written in. */
export function describeWait(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
