import { describe, expect, it } from 'vitest';
import { admitsGitHubLogin } from './admits-github-login.ts';

describe('admitsGitHubLogin', () => {
  it.each([
    ['https://github.com', null, false],
    ['https://www.github.com', null, false],
    ['https://GitHub.com/', null, false],
    ['https://github.com', 'proposer', true],
    ['https://github.acme.internal', null, true],
    ['https://acme.ghe.com', null, true],
    ['https://github.acme.internal', 'admin', true],
  ] as const)('%s, role %s → %s', (url, role, admitted) => {
    expect(admitsGitHubLogin(url, { role })).toBe(admitted);
  });
});
