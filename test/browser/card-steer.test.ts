// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Send = (text: string, clear: () => void) => void;
type Render = (op: Record<string, unknown>, on: { onMessage: Send; onRevise: Send }) => CardElement | null;
const { renderSteer } = await loadCard<{ renderSteer: Render }>('card-steer.js');

const PR = { number: 1, url: 'http://x/pr/1', headSha: 'a'.repeat(40) };

function harness(op: Record<string, unknown>) {
  const sent: [string, string][] = [];
  const el = renderSteer(op, {
    onMessage: (text, clear) => {
      sent.push(['message', text]);
      clear();
    },
    onRevise: (text) => sent.push(['revise', text]),
  });
  return { el, sent };
}

describe('the steering box', () => {
  it('sends a message to a running operation, trimmed, and clears the box', () => {
    const { el, sent } = harness({ status: 'running', cancelRequested: false });
    const text = el!.querySelector('#message-text')!;
    text.value = '  look at src/auth.ts  ';
    el!.querySelector('#message-send')!.click();
    expect(sent).toEqual([['message', 'look at src/auth.ts']]);
    expect(text.value).toBe('');
  });

  it('sends nothing for an empty box', () => {
    const { el, sent } = harness({ status: 'queued', cancelRequested: false });
    el!.querySelector('#message-send')!.click();
    expect(sent).toEqual([]);
  });

  it('asks for changes once the pull request is open', () => {
    const { el, sent } = harness({ status: 'awaiting_approval', pullRequest: PR });
    expect(el!.querySelector('#message-text')).toBeNull();
    el!.querySelector('#revise-text')!.value = 'Also handle tabs';
    el!.querySelector('#revise-send')!.click();
    expect(sent).toEqual([['revise', 'Also handle tabs']]);
  });

  it.each([
    ['merged', { status: 'merged', pullRequest: PR }],
    ['failed', { status: 'failed' }],
    ['cancelling', { status: 'running', cancelRequested: true }],
    ['awaiting approval without a PR', { status: 'awaiting_approval' }],
  ])('offers nothing when %s', (_name, op) => {
    expect(harness(op).el).toBeNull();
  });
});
