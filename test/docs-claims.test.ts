import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENV_VARIABLES, Outcome } from '@pullwright/core';
import { describe, expect, it } from 'vitest';

/** Sentences of docs/ that name things the code declares: each list is checked against the declaration. */
const root = path.resolve(import.meta.dirname, '..');

describe('docs/security.md: what each process holds', () => {
  const table = readFileSync(path.join(root, 'docs/security.md'), 'utf8');
  const row = (name: string) => table.split('\n').find((line) => line.startsWith(`| ${name}`)) ?? '';
  /** Secrets every deployment need not set name themselves through another row (Redis's password sits in its URL). */
  const named = (line: string, variable: string) =>
    line.includes(`\`${variable}\``) ||
    (variable.startsWith('REDIS_') && line.includes('Redis password')) ||
    (variable.startsWith('SLACK_') && line.includes('`SLACK_*`'));
  it.each([
    ['API', 'api'],
    ['Worker', 'worker'],
  ] as const)('the %s row names every secret variable that process reads', (name, role) => {
    const line = row(name);
    expect(line).not.toBe('');
    const secrets = Object.entries(ENV_VARIABLES)
      .filter(([, v]) => v.secret !== false && v.readBy.includes(role))
      .map(([n]) => n);
    expect(secrets.length).toBeGreaterThan(0);
    expect(secrets.filter((s) => !named(line, s))).toEqual([]);
  });
});

describe('docs/operating.md: the outcome counter', () => {
  it('names every outcome code as a reason label', () => {
    const doc = readFileSync(path.join(root, 'docs/operating.md'), 'utf8');
    const codes = Outcome.options.map((o) => o.shape.code.value);
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.filter((c) => !doc.includes(`\`${c}\``))).toEqual([]);
  });
});
