import type { OperationEvent } from '@pullwright/core';
import type { StepDuration } from './metrics-store.ts';

function eventMs(event: OperationEvent): number {
  const fromTs = Date.parse(event.ts);
  return Number.isFinite(fromTs) ? fromTs : Number(event.id.split('-')[0]);
}

/**
 * Step durations of one job attempt, read off the events it appended (in order): the job
 * frame marks every step `state: started` and `state: finished`, so each finished step has
 * its time. A step the attempt did not finish (crash, failure) yields nothing: only complete
 * steps are measured, so a retried job does not count a half step twice.
 */
export function stepDurations(events: OperationEvent[]): StepDuration[] {
  const out: StepDuration[] = [];
  const started = new Map<string, number>();
  for (const event of events) {
    if (event.type !== 'step' || typeof event.data.step !== 'string') continue;
    const step = event.data.step;
    if (event.data.state === 'started') started.set(step, eventMs(event));
    else if (event.data.state === 'finished') {
      const from = started.get(step);
      if (from !== undefined) out.push({ step, seconds: Math.max(0, eventMs(event) - from) / 1000 });
      started.delete(step);
    }
  }
  return out;
}
