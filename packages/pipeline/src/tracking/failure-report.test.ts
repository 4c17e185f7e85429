import { describe, expect, it } from 'vitest';
import { failureReport } from './failure-report.ts';

describe('failureReport (seed 000 failure format)', () => {
  it('has the four sections in order; with nothing more specific, the reason is the one issue', () => {
    const report = failureReport({
      title: 'implement failed',
      request: 'Add rate limiting',
      outcome: { code: 'path_refused', detail: 'path refused (protected): "package-lock.json"\nmore detail' },
      issues: [],
      files: [],
    });
    expect(report).toBe(
      [
        '## implement failed',
        '',
        '### Summary',
        'Attempted: Add rate limiting. It stopped: path refused (protected): "package-lock.json".',
        '',
        '### Issues',
        '- path refused (protected): "package-lock.json"',
        '',
        '### Partial changes',
        'No file was changed.',
        '',
        '### Recommendation',
        'The change needs a path no operation may touch (protected, a secret file, a nested repository): make that part by hand, or retry without it.',
        '',
      ].join('\n'),
    );
  });

  it('shows traces under their issue, cuts a long kept diff, and picks the recommendation by the outcome code', () => {
    const diff = `diff --git a/a b/a\n${'+x\n'.repeat(4000)}`;
    const report = failureReport({
      title: 'fix failed',
      request: 'Fix the test',
      outcome: { code: 'budget', detail: 'turns' },
      issues: [{ text: 'check `test` exited with 1', trace: 'not ok 1 - adds\n```inner```' }],
      files: ['src/a.js'],
      keptDiff: { diff, artifact: 'kept.diff' },
    });
    expect(report).toContain("- check `test` exited with 1\n\n  ```\n  not ok 1 - adds\n  '''inner'''\n  ```");
    expect(report).toMatch(/\n… \(\d+ more characters in the artifact\)\n```\n/);
    expect(report.length).toBeLessThan(7500);
    expect(report).toContain("Raise the operation's budget");
  });

  it('says a retry may succeed only for a code whose cause is outside the request (retryable)', () => {
    const input = { title: 'fix failed', request: 'Fix it', issues: [], files: [] };
    const retry = 'Retrying it unchanged may succeed';
    expect(failureReport({ ...input, outcome: { code: 'model', detail: 'overloaded' } })).toContain(retry);
    expect(failureReport({ ...input, outcome: { code: 'secret_found', detail: 'a key' } })).not.toContain(retry);
  });
});
