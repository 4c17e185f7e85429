// @vitest-environment happy-dom

import type { Finding } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (findings: Finding[], op: Record<string, unknown>) => CardElement;
const { renderFindings } = await loadCard<{ renderFindings: Render }>('card-findings.js');

const PR = { number: 4, url: 'http://x/pr/4', headSha: 'a'.repeat(40) };

describe('the secret scan card', () => {
  it('lists each finding by rule and place, and the text it was in when not a file', () => {
    const el = renderFindings(
      [
        { ruleId: 'github-token', file: 'src/a.ts', line: 3, preview: 'ghp_…', channel: 'file' },
        { ruleId: 'aws-key', file: 'agent/op1-fix', line: 0, preview: 'AKIA…', channel: 'commit-message' },
      ],
      { status: 'failed' },
    );
    expect([...el.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'github-token src/a.ts:3',
      'aws-key agent/op1-fix — in the commit message',
    ]);
  });

  it('says which findings were already on the base and did not block', () => {
    const el = renderFindings(
      [{ ruleId: 'github-pat', file: 'src/legacy.js', line: 2, preview: 'ghp_…', channel: 'file', preExisting: true }],
      {
        status: 'awaiting_approval',
        pullRequest: PR,
      },
    );
    expect(el.querySelector('li')?.textContent).toBe('github-pat src/legacy.js:2 (already on the base; did not block)');
  });

  it('reads as clean only once the scan ran on an opened PR', () => {
    const clean = renderFindings([], { status: 'awaiting_approval', pullRequest: PR });
    expect(clean.textContent).toBe('No findings: the diff passed the secret scan.');
    expect(clean.className).toBe('good-text');
    expect(renderFindings([], { status: 'running', pullRequest: PR }).textContent).toBe('None so far.');
    expect(renderFindings([], { status: 'failed' }).textContent).toBe('None so far.');
  });
});
