import type { ResolvedPathRule } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { matchPathRules } from './path-rules.ts';

const rule = (...paths: string[]): ResolvedPathRule => ({
  name: paths[0]!,
  paths,
  required: 1,
  roles: [],
  groups: [],
  not_requester: false,
});

describe('path-rule matching', () => {
  it.each([
    ['migrations/**', 'migrations/0001_init.sql', true],
    ['migrations/**', 'db/migrations/0001.sql', false],
    ['**/migrations/**', 'db/migrations/0001.sql', true],
    ['.github/**', '.github/workflows/ci.yml', true],
    ['.github/**', 'docs/.github/x', false],
    ['**/auth/**', 'auth/login.ts', true],
    ['**/auth/**', 'src/auth/deep/token.ts', true],
    ['**/auth/**', 'src/author.ts', false],
    ['**/*.sql', 'schema.sql', true],
    ['**/*.sql', 'db/seed/users.sql', true],
    ['src/*.ts', 'src/a/b.ts', false],
    ['**/.env*', 'config/.env.production', true],
    ['Dockerfile', 'dockerfile', false],
  ])('%s vs %s → %s', (pattern, file, expected) => {
    expect(matchPathRules([rule(pattern)], [file]).length > 0).toBe(expected);
  });

  it('returns each matching rule with the files it matched', () => {
    const rules = [rule('migrations/**'), rule('.github/**', '**/auth/**'), rule('docs/**')];
    const files = ['migrations/1.sql', 'src/auth/a.ts', '.github/workflows/ci.yml', 'README.md'];
    expect(matchPathRules(rules, files).map((m) => [m.rule.name, m.files])).toEqual([
      ['migrations/**', ['migrations/1.sql']],
      ['.github/**', ['src/auth/a.ts', '.github/workflows/ci.yml']],
    ]);
  });
});
