import type { CheckRun } from '@pullwright/agent';
import type { OperationEvents } from '@pullwright/queue';

/** Reports one check run on the operation's timeline (`check` event). */
export function checkEvent(events: OperationEvents, opId: string, extra: { step?: string } = {}) {
  return (run: CheckRun) =>
    events
      .append(opId, 'check', {
        name: run.name,
        passed: run.passed,
        exitCode: run.exitCode,
        durationMs: run.durationMs,
        failingTests: run.failingTests,
        ...(run.reused ? { reused: true } : {}),
        ...extra,
      })
      .then(() => undefined);
}
