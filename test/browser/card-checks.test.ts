// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (checks: Record<string, unknown>[], status: string) => CardElement;
const { renderChecks } = await loadCard<{ renderChecks: Render }>('card-checks.js');

const check = (over: Record<string, unknown>) => ({
  name: 'test',
  command: 'npm test',
  passed: true,
  exitCode: 0,
  durationMs: 4200,
  output: 'ok',
  failingTests: [],
  preExisting: false,
  ...over,
});

describe('the checks card', () => {
  it('marks each check passed or failed, with its failing tests, output and a pre-existing tag', () => {
    const el = renderChecks(
      [
        check({}),
        check({
          name: 'lint',
          command: 'npm run lint',
          passed: false,
          exitCode: 1,
          output: '',
          failingTests: ['a > b'],
          preExisting: true,
        }),
      ],
      'awaiting_approval',
    );
    const [pass, fail] = [...el.querySelectorAll('li.check')];
    expect(pass!.className).toBe('check check-pass');
    expect(pass!.querySelector('summary')!.textContent).toBe('✓testnpm testpassed · 4.2 s');
    expect(pass!.querySelector('pre')!.textContent).toBe('ok');
    expect(fail!.className).toBe('check check-fail');
    expect(fail!.querySelector('summary')!.textContent).toBe('✗lintnpm run lintpre-existingexit 1 · 4.2 s');
    expect(fail!.querySelector('.tests-red li')!.textContent).toBe('a > b');
    expect(fail!.querySelector('pre')!.textContent).toBe('(no output)');
  });

  it.each([
    ['running', 'The checks run after the agent has made its changes.'],
    ['queued', 'The checks run after the agent has made its changes.'],
    ['failed', 'No checks ran.'],
  ])('with no checks while %s says why', (status, text) => {
    expect(renderChecks([], status).textContent).toBe(text);
  });
});
