// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type View = { shownSha?: string; rejecting?: string; canApprove: boolean; user: string };
type Render = (op: Record<string, unknown>, view: View, on: Record<string, (arg?: string) => void>) => CardElement;
const { renderActions } = await loadCard<{ renderActions: Render }>('card-actions.js');

const HEAD = 'b'.repeat(40);
const SHOWN = 'a'.repeat(40);
const AWAITING = {
  status: 'awaiting_approval',
  cancelRequested: false,
  pullRequest: { number: 1, url: 'x', headSha: HEAD },
};
const ALICE = { canApprove: true, user: 'alice' };

function harness(op: Record<string, unknown>, view: View) {
  const calls: string[] = [];
  const on = Object.fromEntries(
    ['onApprove', 'onOpenReject', 'onReject', 'onKeep', 'onCancel', 'onRetry', 'onShowChanges'].map((name) => [
      name,
      (arg?: string) => calls.push(arg === undefined ? name : `${name}:${arg}`),
    ]),
  );
  return { el: renderActions(op, view, on), calls };
}

describe('the action buttons', () => {
  it('approve the head on screen', () => {
    const { el, calls } = harness(AWAITING, { ...ALICE, shownSha: HEAD });
    const approve = el.querySelector('#approve')!;
    expect(approve.textContent).toBe('Approve bbbbbbb');
    expect(approve.dataset.sha).toBe(HEAD);
    approve.click();
    el.querySelector('#reject')!.click();
    expect(calls).toEqual([`onApprove:${HEAD}`, 'onOpenReject']);
    expect(el.hidden).toBe(false);
  });

  it('warn when the branch moved since the changes on screen, and still approve what was shown', () => {
    const { el, calls } = harness(AWAITING, { ...ALICE, shownSha: SHOWN });
    expect(el.querySelector('.warn-text')!.textContent).toBe(
      'The branch moved to bbbbbbb since you looked at aaaaaaa. Show the new changes',
    );
    el.querySelector('.warn-text button')!.click();
    el.querySelector('#approve')!.click();
    expect(calls).toEqual(['onShowChanges', `onApprove:${SHOWN}`]);
  });

  it('are disabled for someone not on the approver list', () => {
    const { el } = harness(AWAITING, { canApprove: false, user: 'bob', shownSha: HEAD });
    expect(el.querySelector('#approve')!.disabled).toBe(true);
    expect(el.querySelector('#reject')!.disabled).toBe(true);
    expect(el.querySelector('p')!.textContent).toBe('bob is not on the approver list.');
  });

  it('reject with a trimmed reason from the form, or go back', () => {
    const { el, calls } = harness(AWAITING, { ...ALICE, shownSha: HEAD, rejecting: HEAD });
    expect(el.querySelector('#approve')).toBeNull();
    expect(el.querySelector('label')!.textContent).toBe('Reason for rejecting');
    el.querySelector('#reject-reason')!.value = '  wrong approach ';
    el.querySelector('#reject-confirm')!.click();
    [...el.querySelectorAll('button')].find((b) => b.textContent === 'Keep it')!.click();
    expect(calls).toEqual(['onReject:wrong approach', 'onKeep']);
  });

  it('drop a reject form opened for an older head', () => {
    const { el } = harness(AWAITING, { ...ALICE, shownSha: HEAD, rejecting: SHOWN });
    expect(el.querySelector('#reject-reason')).toBeNull();
    expect(el.querySelector('#approve')).not.toBeNull();
  });

  it('cancel a running operation, once', () => {
    const running = harness({ status: 'running', cancelRequested: false }, ALICE);
    running.el.querySelector('#cancel')!.click();
    expect(running.calls).toEqual(['onCancel']);
    const cancelling = harness({ status: 'running', cancelRequested: true }, ALICE).el.querySelector('#cancel')!;
    expect(cancelling.textContent).toBe('Cancelling…');
    expect(cancelling.disabled).toBe(true);
  });

  it('retry a failed operation', () => {
    const { el, calls } = harness({ status: 'failed', cancelRequested: false }, ALICE);
    el.querySelector('#retry')!.click();
    expect(calls).toEqual(['onRetry']);
  });

  it('are hidden when the operation offers no action', () => {
    const { el } = harness({ status: 'merged', cancelRequested: false }, ALICE);
    expect(el.hidden).toBe(true);
    expect(el.querySelectorAll('button').length).toBe(0);
  });
});
