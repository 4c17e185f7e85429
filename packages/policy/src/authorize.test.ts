import type { Action } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { assertAuthorized, authorize, ForbiddenError } from './authorize.ts';
import { IdentityDirectory } from './identity-directory.ts';
import { mergePolicies } from './merge-policies.ts';

const directory = IdentityDirectory.fromConfig(
  JSON.stringify([
    { id: 'pat', role: 'proposer', slack: ['U0PAT'], github: ['pat-gh'], api: ['pat'] },
    { id: 'cy', role: 'committer', github: ['cy'] },
    { id: 'mia', role: 'merger', groups: ['dba'], dashboard: ['mia@acme.test'] },
    { id: 'dee', role: 'deployer', slack: ['U0DEE'] },
    { id: 'ada', role: 'admin', api: ['ada'] },
  ]),
);

describe('identities', () => {
  it('maps Slack ids, GitHub logins, dashboard users and API callers to one identity', () => {
    expect(directory.resolve({ source: 'slack', user: 'U0PAT' }).id).toBe('pat');
    expect(directory.resolve({ source: 'github', user: 'PAT-GH' }).id).toBe('pat');
    expect(directory.resolve({ source: 'api', user: 'pat' }).id).toBe('pat');
    expect(directory.resolve({ source: 'dashboard', user: 'mia@acme.test' })).toEqual({
      id: 'mia',
      role: 'merger',
      groups: ['dba'],
    });
  });

  it('a handle is bound to its source: a Slack id sent as a GitHub login is nobody', () => {
    expect(directory.resolve({ source: 'github', user: 'U0PAT' })).toEqual({
      id: 'github:U0PAT',
      role: null,
      groups: [],
    });
  });

  it('without IDENTITIES every caller is an admin known by its user name (the API token holder)', () => {
    const open = IdentityDirectory.fromConfig(undefined);
    expect(open.resolve({ source: 'api', user: 'api' })).toEqual({ id: 'api', role: 'admin', groups: [] });
  });

  it.each([
    ['[{"id":"x","role":"boss"}]', 'IDENTITIES.0.role: Invalid option'],
    ['[{"id":"x","role":"admin","mail":"x@example.com"}]', 'IDENTITIES.0.mail: unknown field'],
    ['[{"id":"x","role":"admin","email":"x"}]', 'IDENTITIES.0.email: Invalid email'],
    ['[{"id":"x","role":"admin","email":"x@example.com>\\nSigned-off-by: y"}]', 'IDENTITIES.0.email: Invalid email'],
    ['[{"id":"x","role":"admin"},{"id":"x","role":"proposer"}]', 'IDENTITIES.1.id: duplicate id x'],
    ['[{', 'IDENTITIES: not JSON'],
    ['/nonexistent/identities.json', 'IDENTITIES: cannot read /nonexistent/identities.json: ENOENT'],
  ])('refuses %s', (value, message) => {
    expect(() => IdentityDirectory.fromConfig(value)).toThrow(message);
  });
});

describe('authorize', () => {
  const who = (source: 'slack' | 'github' | 'dashboard' | 'api', user: string) => directory.resolve({ source, user });

  it.each<[string, Action, boolean]>([
    ['pat', 'request', true],
    ['pat', 'approve', false],
    ['cy', 'approve', true],
    ['cy', 'merge', false],
    ['mia', 'merge', true],
    ['mia', 'deploy', false],
    ['dee', 'deploy', true],
    ['ada', 'deploy', true],
  ])('%s may %s: %s', (id, action, allowed) => {
    const identity = {
      pat: who('api', 'pat'),
      cy: who('github', 'cy'),
      mia: who('dashboard', 'mia@acme.test'),
      dee: who('slack', 'U0DEE'),
      ada: who('api', 'ada'),
    }[id]!;
    expect(authorize(identity, action).allowed).toBe(allowed);
  });

  it('a refusal names the missing role', () => {
    const result = authorize(who('slack', 'U0PAT'), 'approve');
    expect(result).toMatchObject({ allowed: false, missingRole: 'committer' });
    expect(!result.allowed && result.reason).toBe(
      'pat may not approve: that needs the committer role (pat has the proposer role)',
    );
    expect(() => assertAuthorized(who('github', 'stranger'), 'request')).toThrow(
      'github:stranger may not request operations: that needs the proposer role (github:stranger has no role)',
    );
    try {
      assertAuthorized(who('github', 'cy'), 'deploy');
    } catch (err) {
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as ForbiddenError).code).toBe('forbidden');
      expect((err as ForbiddenError).context).toEqual({ action: 'deploy', missingRole: 'deployer', identity: 'cy' });
    }
  });

  it('the requester may cancel or reject their own operation, not someone else’s', () => {
    expect(authorize(who('api', 'pat'), 'cancel', { requesterId: 'pat' }).allowed).toBe(true);
    expect(authorize(who('api', 'pat'), 'reject', { requesterId: 'pat' }).allowed).toBe(true);
    expect(authorize(who('api', 'pat'), 'cancel', { requesterId: 'mia' }).allowed).toBe(false);
    expect(authorize(who('api', 'pat'), 'approve', { requesterId: 'pat' }).allowed).toBe(false);
  });

  it('the effective policy raises the bar', () => {
    const { permissions } = mergePolicies({}, { permissions: { request: 'committer' } });
    expect(authorize(who('api', 'pat'), 'request', { permissions })).toMatchObject({
      allowed: false,
      missingRole: 'committer',
    });
  });
});
