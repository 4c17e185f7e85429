// @vitest-environment happy-dom

import { Plan } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (
  op: Record<string, unknown>,
  on: { onStart: () => void; onModify: (note: string) => void; onCancel: () => void },
) => CardElement | null;
const { renderPlanDecision, renderPlan } = await loadCard<{
  renderPlanDecision: Render;
  renderPlan: (plan: Plan) => CardElement;
}>('card-plan.js');

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

describe('the plan card', () => {
  it('lists the steps with their files and acceptance, and the risks noted', () => {
    const el = renderPlan(
      Plan.parse({
        plan_id: 'plan_9',
        summary: 'Slugs keep their words',
        steps: [
          { id: 'T1', title: 'Add the test', files: ['test/slug.test.ts'], acceptance: 'it fails' },
          { title: 'Fix slugify', acceptance: 'it passes' },
        ],
        risks: ['other callers rely on spaces'],
      }),
    );
    expect(el.querySelector('code')!.textContent).toBe('plan_9');
    const [first, second] = [...el.querySelectorAll('.plan-steps > li')];
    expect(first!.dataset.task).toBe('T1');
    expect(first!.querySelector('strong')!.textContent).toBe('T1 · Add the test');
    expect(first!.querySelector('.plan-files')!.textContent).toBe('test/slug.test.ts');
    expect(first!.querySelector('p')!.textContent).toBe('Done when: it fails');
    expect(second!.textContent).toBe('Fix slugifyDone when: it passes');
    expect(el.querySelector('h3')!.textContent).toBe('Risks noted');
    expect(el.querySelector('.bullets')!.textContent).toBe('other callers rely on spaces');
  });

  it('shows a plan without risks with no risks heading', () => {
    const el = renderPlan(Plan.parse({ summary: 'just do it', steps: [{ title: 'Do it', acceptance: 'done' }] }));
    expect(el.querySelectorAll('.plan-steps > li')).toHaveLength(1);
    expect(el.querySelector('h3')).toBeNull();
  });
});
