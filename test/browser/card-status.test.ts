// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (op: Record<string, unknown>) => CardElement;
const { renderStatus } = await loadCard<{ renderStatus: Render }>('card-status.js');

const OP = {
  id: 'op_1',
  type: 'debug',
  status: 'awaiting_approval',
  repo: 'acme/web',
  baseBranch: 'main',
  branch: 'agent/op_1-slugify',
  description: 'slugify keeps spaces\nOnly the first space becomes a dash.',
  requester: { source: 'slack', user: 'alice' },
  createdAt: new Date(Date.now() - 5 * 60_000).toISOString(),
};

describe('the status header', () => {
  it('shows the status, type, id, title, branches, requester, age and the PR link', () => {
    const el = renderStatus({
      ...OP,
      pullRequest: { number: 7, url: 'https://github.example/acme/web/pull/7', headSha: 'a'.repeat(40) },
      origin: { kind: 'issue', number: 12, title: 'Spaces in slugs', url: 'https://github.example/acme/web/issues/12' },
    });
    expect(el.querySelector('#op-status [data-status="awaiting_approval"]')!.textContent).toBe('Awaiting approval');
    expect(el.querySelector('.type-debug')!.textContent).toBe('debug');
    expect(el.querySelector('#op-status code')!.textContent).toBe('op_1');
    expect(el.querySelector('h1')!.textContent).toBe('slugify keeps spaces');
    expect(el.querySelector('.op-description')!.textContent).toBe('Only the first space becomes a dash.');
    const meta = el.querySelector('.op-meta')!.textContent;
    expect(meta).toContain('acme/web');
    expect(meta).toContain('main ← agent/op_1-slugify');
    expect(meta).toContain('by alice');
    expect(meta).toContain('5m ago');
    expect(el.querySelector('.pr-link')!.getAttribute('href')).toBe('https://github.example/acme/web/pull/7');
    expect(el.querySelector('.pr-link')!.textContent).toBe('Pull request #7');
    expect(el.querySelector('.origin-link')!.textContent).toBe('from issue #12: Spaces in slugs');
  });

  it('links a local forge PR on this origin', () => {
    const el = renderStatus({ ...OP, pullRequest: { number: 2, url: 'http://127.0.0.1:9/forge/acme/web/pull/2' } });
    expect(el.querySelector('.pr-link')!.getAttribute('href')).toBe('/forge/acme/web/pull/2');
  });

  it('has no branch, description, PR or issue link before there are any; a non-web origin is not linked', () => {
    const el = renderStatus({
      ...OP,
      branch: undefined,
      description: 'one line',
      origin: { kind: 'issue', number: 3, title: 'x', url: 'javascript:alert(1)' },
    });
    expect(el.querySelector('.op-meta')!.textContent).not.toContain('←');
    expect(el.querySelector('.op-description')).toBeNull();
    expect(el.querySelector('.pr-link')).toBeNull();
    expect(el.querySelector('.origin-link')).toBeNull();
  });

  it('names a schedule or an event it came from, linking only a web address', () => {
    const scheduled = renderStatus({
      ...OP,
      requester: { source: 'policy', user: 'schedule:nightly' },
      origin: { kind: 'schedule', name: 'nightly', cron: '0 3 * * *', tick: '2026-11-27T03:00:00.000Z' },
    });
    expect(scheduled.querySelector('.origin')!.textContent).toBe(
      'from schedule nightly (0 3 * * *, 2026-11-27T03:00:00.000Z)',
    );
    const alerted = renderStatus({
      ...OP,
      origin: { kind: 'event', source: 'sentry', eventId: 'e1', title: 'Boom', url: 'https://sentry.example/e1' },
    });
    expect(alerted.querySelector('.origin-link')!.getAttribute('href')).toBe('https://sentry.example/e1');
    expect(alerted.querySelector('.origin-link')!.textContent).toBe('from sentry event e1: Boom');
  });
});
