import { readdirSync, readFileSync } from 'node:fs';
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

describe('docs/: defaults written by hand', () => {
  it('every `| `VAR` | `value` |` row states the default the variable declares', () => {
    const rows: string[] = [];
    const wrong: string[] = [];
    for (const file of readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'))) {
      // configuration.md is generated from the declarations (environment-contract.test.ts).
      if (file === 'configuration.md') continue;
      const text = readFileSync(path.join(root, 'docs', file), 'utf8');
      for (const [, name = '', value = ''] of text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| `([^`|]+)` \|/gm)) {
        const declared = ENV_VARIABLES[name];
        if (!declared) continue;
        rows.push(`${file}: ${name}`);
        if (declared.default !== value) wrong.push(`${file}: ${name} says ${value}, declared ${declared.default}`);
      }
    }
    expect(rows.length).toBeGreaterThan(3);
    expect(wrong).toEqual([]);
  });
});
