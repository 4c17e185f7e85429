import { describe, expect, it } from 'vitest';
import { parseSlackCommand, slackUsage } from './slack-command.ts';

describe('parseSlackCommand', () => {
  const runs: [string, string, Record<string, unknown>][] = [
    [
      '/debug',
      'acme/api TypeError in auth.ts:45',
      { type: 'debug', repo: 'acme/api', description: 'TypeError in auth.ts:45' },
    ],
    ['/debug', 'TypeError: x is undefined', { repo: undefined, description: 'TypeError: x is undefined' }],
    [
      '/implement',
      'acme/web add rate limiting --base develop',
      { type: 'implement', repo: 'acme/web', baseBranch: 'develop', description: 'add rate limiting' },
    ],
    [
      '/fix',
      '--auto --budget 2.5 acme/api flaky test',
      { type: 'fix', auto: true, budgetUsd: 2.5, repo: 'acme/api', description: 'flaky test' },
    ],
    ['/fix', 'acme/api flaky test --budget=$3', { budgetUsd: 3, description: 'flaky test' }],
    [
      '/debug',
      'acme/api --priority critical prod is down',
      { priority: 'critical', repo: 'acme/api', description: 'prod is down' },
    ],
    ['/debug', 'vercel/next.js hydration error', { repo: 'vercel/next.js', description: 'hydration error' }],
    // Pasted stack traces keep their lines; unknown flags are part of the text.
    [
      '/debug',
      'acme/api Error: boom\n  at f (a.js:1)\n  at g (b.js:2) --verbose',
      { description: 'Error: boom\n  at f (a.js:1)\n  at g (b.js:2) --verbose' },
    ],
    [
      '/debug',
      '  acme/api   trailing spaces   ',
      { repo: 'acme/api', description: 'trailing spaces', auto: false, budgetUsd: undefined, baseBranch: undefined },
    ],
  ];
  it.each(runs)('%s %j', (command, text, expected) => {
    expect(parseSlackCommand(command, text)).toMatchObject({ kind: 'run', ...expected });
  });

  it.each([
    [
      'acme/api Rate-limit the API --base develop',
      { repo: 'acme/api', baseBranch: 'develop', description: 'Rate-limit the API' },
    ],
    [
      'Rate-limit the API\nper key',
      { repo: undefined, baseBranch: undefined, description: 'Rate-limit the API\nper key' },
    ],
    ['acme/api add &lt;Badge&gt; --auto', { repo: 'acme/api', description: 'add <Badge> --auto' }],
  ])('/feature %j', (text, expected) => {
    expect(parseSlackCommand('/feature', text)).toEqual({ kind: 'feature', baseBranch: undefined, ...expected });
  });

  it.each([
    ['', /describe the feature/],
    ['acme/api', /describe the feature/],
    ['x --base', /--base needs a branch name/],
    ['x --base a --base b', /--base was given twice/],
  ])('/feature %j is answered with usage', (text, problem) => {
    const parsed = parseSlackCommand('/feature', text);
    expect(parsed).toMatchObject({ kind: 'usage', command: '/feature' });
    expect((parsed as { problem: string }).problem).toMatch(problem);
    expect(slackUsage('/feature')).toContain('/feature [owner/repo]');
  });

  const malformed: [string, string, RegExp][] = [
    ['/debug', '', /describe/],
    ['/debug', '   ', /describe/],
    ['/debug', 'acme/api', /describe/],
    ['/debug', 'acme/api --auto', /describe/],
    ['/debug', 'x --priority urgent', /--priority needs one of/],
    ['/debug', 'x --priority high --priority low', /--priority was given twice/],
    ['/implement', 'x --budget', /--budget/],
    ['/implement', 'x --budget abc', /--budget/],
    ['/implement', 'x --budget -1', /--budget/],
    ['/implement', 'x --budget 0', /--budget/],
    ['/implement', 'x --budget 5000', /--budget/],
    ['/implement', 'x --base', /--base/],
    ['/implement', 'x --base ../../etc', /--base/],
    ['/implement', 'x --base -rf', /--base/],
    ['/implement', 'x --base a --base b', /twice/],
    ['/deploy', 'prod', /"prod" is not an operation id/],
    ['/deploy', '', /name the operation to deploy/],
    ['/ship', 'x', /unknown command/],
    ['/status', 'not an id!', /not an operation id/],
    ['/pw-status', 'not an id!', /not an operation id/],
    ['/cancel', '', /name the operation/],
    ['/cancel', 'ABC', /not an operation id/],
  ];
  it.each(malformed)('%s %j is a usage answer', (command, text, problem) => {
    const parsed = parseSlackCommand(command, text);
    expect(parsed).toMatchObject({ kind: 'usage', command });
    expect(parsed.kind === 'usage' && parsed.problem).toMatch(problem);
  });

  it('reads /pw-status (and /status from an app made with an older manifest), /cancel and /deploy', () => {
    expect(parseSlackCommand('/pw-status', '')).toEqual({ kind: 'status', opId: undefined });
    expect(parseSlackCommand('/pw-status', 'lx2k9a3f01ab')).toEqual({ kind: 'status', opId: 'lx2k9a3f01ab' });
    expect(parseSlackCommand('/status', '')).toEqual({ kind: 'status', opId: undefined });
    expect(parseSlackCommand('/status', ' lx2k9a3f01ab ')).toEqual({ kind: 'status', opId: 'lx2k9a3f01ab' });
    expect(parseSlackCommand('/cancel', 'lx2k9a3f01ab')).toEqual({ kind: 'cancel', opId: 'lx2k9a3f01ab' });
    expect(parseSlackCommand('/deploy', 'lx2k9a3f01ab')).toEqual({ kind: 'deploy', opId: 'lx2k9a3f01ab' });
  });

  it('refuses a description longer than an operation may hold', () => {
    expect(parseSlackCommand('/debug', 'x'.repeat(20_001))).toMatchObject({ kind: 'usage' });
  });

  it('usage carries an example for each command', () => {
    expect(slackUsage('/debug')).toMatch(/Example: `\/debug acme\/api /);
    expect(slackUsage('/implement')).toContain('--budget <usd>');
    expect(slackUsage('/cancel')).toMatch(/Example: `\/cancel lx2k9a3f01ab`/);
    expect(slackUsage('/pw-status')).toMatch(/Example: `\/pw-status lx2k9a3f01ab`/);
  });
});
