import type { OperationEvent } from '@pullwright/core';
import type { StepDuration } from './metrics-store.ts';

function eventMs(event: OperationEvent): number {
  const fromTs = Date.parse(event.ts);
  return Number.isFinite(fromTs) ? fromTs : Number(event.id.split('-')[0]);
}

/**
 * Step durations of one job attempt, read off the events it appended (in order):
 * - `prepare`: from the job's start to the `step: prepare` event;
 * - any step that reports `state: started` and later `state: finished` (agent, verify…);
 * - `publish`: from the last finished step to the `awaiting_approval` status (commit, push, PR).
 * A step the attempt did not finish (crash, failure) yields nothing: only complete steps
 * are measured, so a retried job does not count a half step twice.
 */
export function stepDurations(events: OperationEvent[], jobStartedMs: number): StepDuration[] {
  const out: StepDuration[] = [];
  const started = new Map<string, number>();
  let lastFinishedMs: number | undefined;
  for (const event of events) {
    const at = eventMs(event);
    const step = typeof event.data.step === 'string' ? event.data.step : undefined;
    if (event.type === 'step' && step === 'prepare') {
      out.push({ step: 'prepare', seconds: Math.max(0, at - jobStartedMs) / 1000 });
      lastFinishedMs = at;
    } else if (event.type === 'step' && step && event.data.state === 'started') {
      started.set(step, at);
    } else if (event.type === 'step' && step && event.data.state === 'finished') {
      const from = started.get(step);
      if (from !== undefined) out.push({ step, seconds: Math.max(0, at - from) / 1000 });
      started.delete(step);
      lastFinishedMs = at;
    } else if (event.type === 'status' && event.data.to === 'awaiting_approval' && lastFinishedMs !== undefined) {
      out.push({ step: 'publish', seconds: Math.max(0, at - lastFinishedMs) / 1000 });
    }
  }
  return out;
}
