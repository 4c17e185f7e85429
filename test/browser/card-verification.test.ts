// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (v: Record<string, unknown> | null | undefined, headSha: string | undefined) => CardElement;
const { renderVerification } = await loadCard<{ renderVerification: Render }>('card-verification.js');

const HEAD = 'abcdef1234567890';
const block = (headSha: string) => ({
  headSha,
  checks: [{ command: 'npm test', exitCode: 0, durationMs: 812 }],
  secretScan: { passed: false, findings: 2 },
});

describe('the verification card', () => {
  it('vouches for the current head with the signed checks and scan', () => {
    const el = renderVerification({ valid: true, block: block(HEAD) }, HEAD);
    expect(el.querySelector('p')!.textContent).toBe('Signed by Pullwright for the current head.');
    expect(el.querySelector('p')!.className).toBe('good');
    expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'npm test exit 0 · 812 ms',
      'secret scan: 2 finding(s)',
    ]);
  });

  it('flags a block signed for an older head', () => {
    const el = renderVerification({ valid: true, block: block('1234567aaaa') }, HEAD);
    expect(el.querySelector('p')!.textContent).toBe('Signed for 1234567, not the current head.');
    expect(el.querySelector('p')!.className).toBe('bad');
  });

  it.each([
    ['loading', undefined, 'Checking the signature…'],
    ['unreadable', null, 'The verification block could not be checked.'],
    ['invalid', { valid: false, reason: 'no block in the PR body' }, 'Not valid: no block in the PR body.'],
    ['invalid without a reason', { valid: false }, 'Not valid: the signature does not match.'],
  ])('says so when %s', (_name, v, text) => {
    expect(renderVerification(v, HEAD).textContent).toBe(text);
  });
});
