// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (
  op: Record<string, unknown>,
  on: { onStart: () => void; onModify: (note: string) => void; onCancel: () => void },
) => CardElement | null;
const { renderPlanDecision } = await loadCard<{ renderPlanDecision: Render }>('card-plan.js');

const PENDING = { status: 'running', cancelRequested: false, planConfirmation: { state: 'pending', since: 'x' } };

function harness(op: Record<string, unknown>) {
  const calls: string[] = [];
  const el = renderPlanDecision(op, {
    onStart: () => calls.push('start'),
    onModify: (note) => calls.push(`modify:${note}`),
    onCancel: () => calls.push('cancel'),
  });
  return { el, calls };
}

describe('the plan decision card', () => {
  it('starts, cancels, and modifies only with a note', () => {
    const { el, calls } = harness(PENDING);
    const click = (id: string) => el!.querySelector(id)!.click();
    click('#plan-modify');
    expect(calls).toEqual([]);
    expect(el!.querySelector('#plan-note')!.getAttribute('aria-invalid')).toBe('true');
    el!.querySelector('#plan-note')!.value = ' keep the old API ';
    click('#plan-modify');
    click('#plan-start');
    click('#plan-cancel');
    expect(calls).toEqual(['modify:keep the old API', 'start', 'cancel']);
  });

  it.each([
    ['no plan waits', { status: 'running', cancelRequested: false }],
    ['the plan was started', { ...PENDING, planConfirmation: { state: 'started', since: 'x' } }],
    ['a cancel was asked', { ...PENDING, cancelRequested: true }],
    ['the operation is not running', { ...PENDING, status: 'failed' }],
  ])('is absent when %s', (_name, op) => {
    expect(harness(op).el).toBeNull();
  });
});
