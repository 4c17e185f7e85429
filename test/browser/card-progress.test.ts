// @vitest-environment happy-dom
import { type OperationEvent, withDescription } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (op: Record<string, unknown>, events: readonly object[], now: number) => CardElement;
const { renderProgress } = await loadCard<{ renderProgress: Render }>('card-progress.js');

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
// As the API sends it: with its line from core's describeEvent.
const event = (s: number, type: string, data: Record<string, unknown>) =>
  withDescription({ id: `${s}-0`, ts: at(s), opId: 'op_1', type: type as OperationEvent['type'], data });
const OP = { status: 'running', cancelRequested: false, createdAt: at(0), updatedAt: at(0) };

describe('the "Now" card', () => {
  it('names the running step, its detail, how long it runs and how long since the last output', () => {
    const events = [
      event(1, 'status', { from: 'queued', to: 'running' }),
      event(2, 'step', { step: 'agent', state: 'started' }),
      event(10, 'model', { role: 'coder', turn: 3 }),
    ];
    const el = renderProgress(OP, events, T0 + 70_000);
    expect(el.querySelector('.step')!.className).toBe('step step-active');
    expect(el.querySelector('.step')!.textContent).toBe('Agent working');
    expect(el.querySelector('.muted')!.textContent).toBe('coder turn 3');
    expect(el.querySelector('#elapsed')!.textContent).toBe('1 m 08 s');
    expect([...el.querySelectorAll('dt')].map((d) => d.textContent)).toEqual(['For', 'Last output']);
    expect(el.querySelectorAll('dd')[1]!.textContent).toBe('1 m 00 s ago');
    expect(el.querySelectorAll('dd')[1]!.className).toBe('');
  });

  it('flags a step silent for more than two minutes', () => {
    const el = renderProgress(OP, [event(2, 'step', { step: 'verify', state: 'started' })], T0 + 200_000);
    expect(el.querySelector('.step')!.textContent).toBe('Running the checks');
    expect(el.querySelectorAll('dd')[1]!.className).toBe('warn-text');
  });

  it('says how long an ended operation took, without a last-output line; before any event it waits', () => {
    const ended = renderProgress(
      { ...OP, status: 'merged', updatedAt: at(90) },
      [event(90, 'status', { from: 'merging', to: 'merged' })],
      T0 + 500_000,
    );
    expect(ended.querySelector('.step')!.textContent).toBe('Merged');
    expect([...ended.querySelectorAll('dt')].map((d) => d.textContent)).toEqual(['Took']);
    expect(ended.querySelector('#elapsed')!.textContent).toBe('1 m 30 s');
    const queued = renderProgress({ ...OP, status: 'queued' }, [], T0 + 3000);
    expect(queued.querySelector('.step')!.textContent).toBe('Waiting for a worker');
    expect(queued.querySelector('#elapsed')!.textContent).toBe('3.0 s');
  });
});
