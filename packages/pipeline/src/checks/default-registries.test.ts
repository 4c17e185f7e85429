import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRegistries } from './default-registries.ts';

/** docs/security.md's table of default registries, row by row: `manifest(s) | hosts`. */
function documentedTable(): [manifest: string, hosts: string[]][] {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../../../docs/security.md'), 'utf8');
  const start = doc.indexOf('| manifest | hosts |');
  expect(start).toBeGreaterThan(0);
  const rows = doc.slice(start).split('\n').slice(2);
  const table: [string, string[]][] = [];
  for (const row of rows) {
    if (!row.trim().startsWith('|')) break;
    const [manifests = '', hosts = ''] = row.split('|').slice(1, 3);
    const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    for (const manifest of names(manifests)) table.push([manifest, names(hosts)]);
  }
  return table;
}

describe('defaultRegistries', () => {
  const table = documentedTable();

  it('has a documented row per ecosystem', () => {
    expect(table.map(([m]) => m)).toEqual([
      'package.json',
      'requirements.txt',
      'pyproject.toml',
      'Pipfile',
      'go.mod',
      'Cargo.toml',
      'Gemfile',
      'composer.json',
    ]);
  });

  it.each(table)('a repository with %s may reach %j, and nothing else', async (manifest, hosts) => {
    const read = async (file: string) => (file === manifest ? '{}' : undefined);
    expect(await defaultRegistries(read)).toEqual(hosts);
  });

  it('a repository with no manifest may reach nothing by default', async () => {
    expect(await defaultRegistries(async () => undefined)).toEqual([]);
  });
});
