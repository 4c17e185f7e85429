import type { CheckResult } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { autoApprove } from './auto-approve.ts';
import { mergePolicies } from './merge-policies.ts';

const enabled = mergePolicies({ auto_approve: { enabled: true } }, { auto_approve: { enabled: true } });
const green: CheckResult[] = [
  {
    name: 'test',
    command: 'npm test',
    passed: true,
    exitCode: 0,
    durationMs: 1,
    output: '',
    failingTests: [],
    preExisting: false,
  },
];

const fileDiff = (file: string, lines: string[], header = 'new file mode 100644\n--- /dev/null') =>
  `diff --git a/${file} b/${file}\n${header}\n+++ b/${file}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;

describe('autoApprove', () => {
  it('approves a small docs change when every criterion holds, naming the rule', () => {
    const d = autoApprove({ checks: green }, fileDiff('docs/usage.md', ['Use it.']), enabled);
    expect(d).toMatchObject({ approve: true, rule: 'auto_approve: ≤ 20 lines of tests/docs, checks green' });
    expect(d.risk.level).toBe('low');
  });

  it.each([
    [
      'the policy does not enable it',
      mergePolicies({}, {}),
      fileDiff('docs/a.md', ['x']),
      green,
      'auto-approval is not enabled by the policy',
    ],
    [
      'more than 20 lines',
      enabled,
      fileDiff(
        'docs/a.md',
        Array.from({ length: 21 }, (_, i) => `l${i}`),
      ),
      green,
      '21 changed lines (at most 20)',
    ],
    ['a source file', enabled, fileDiff('src/a.js', ['const a = 1;']), green, 'not only tests/docs: src/a.js (source)'],
    ['a new dependency', enabled, fileDiff('requirements.txt', ['requests==2.0']), green, 'dependencies changed'],
    [
      'a workflow file',
      enabled,
      fileDiff('.github/workflows/x.yml', ['on: push']),
      green,
      'high risk is never auto-approved',
    ],
    ['red checks', enabled, fileDiff('docs/a.md', ['x']), [{ ...green[0]!, passed: false }], 'checks not green: test'],
    ['no checks', enabled, fileDiff('docs/a.md', ['x']), [], 'no checks ran'],
  ])('refuses when %s', (_name, policy, diff, checks, reason) => {
    const d = autoApprove({ checks }, diff, policy);
    expect(d.approve).toBe(false);
    expect(!d.approve && d.reasons).toContain(reason);
  });

  it('refuses on a secret finding and when a path rule applies', () => {
    expect(autoApprove({ checks: green }, fileDiff('docs/a.md', ['x']), enabled, { secretFindings: 1 })).toMatchObject({
      approve: false,
      risk: { level: 'high' },
    });
    const ruled = mergePolicies(
      { auto_approve: { enabled: true } },
      { auto_approve: { enabled: true }, path_rules: [{ paths: ['docs/legal/**'], required: 2 }] },
    );
    const d = autoApprove({ checks: green }, fileDiff('docs/legal/terms.md', ['x']), ruled);
    expect(!d.approve && d.reasons).toEqual(['path rules apply: docs/legal/**']);
  });
});
