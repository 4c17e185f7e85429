import { describe, expect, it } from 'vitest';
import { withoutHostPaths } from './without-host-paths.ts';

describe('withoutHostPaths', () => {
  it.each([
    [
      "fatal: '/srv/pullwright/data/forge/acme/app.git' does not appear to be a git repository",
      "fatal: '…/app.git' does not appear to be a git repository",
    ],
    [
      'error: failed to push some refs to /tmp/pw-test-x1/forge/acme/app.git/',
      'error: failed to push some refs to …/app.git',
    ],
    ['at Object.<anonymous> (/home/ci/work/node_modules/x/index.js:10:3)', 'at Object.<anonymous> (…/index.js:10:3)'],
    ['ENOENT: no such file, open "/root/.pullwright/keys/app.pem"', 'ENOENT: no such file, open "…/app.pem"'],
  ])('cuts %j', (text, expected) => {
    expect(withoutHostPaths(text)).toBe(expected);
  });

  it.each([
    'GitHub: pushing agent/op-1 failed (503): Service Unavailable',
    'see https://github.example/acme/app/pull/7 and http://127.0.0.1:3000/v1/operations/abc',
    'branch agent/op-1 on the forge has commits refs/heads/main does not',
    'check "test" exited with 1: src/math.test.js:3 expected 1/2',
    'a/b/c and ./x/y and ../up/there',
  ])('keeps %j as it is', (text) => {
    expect(withoutHostPaths(text)).toBe(text);
  });
});
