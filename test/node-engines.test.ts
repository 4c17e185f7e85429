import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockPackage {
  version?: string;
  optional?: boolean;
  engines?: { node?: string };
}

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8')) as unknown;

describe('Node versions', () => {
  it('every package npm ci installs runs on the oldest Node the package.json accepts (no EBADENGINE warning)', () => {
    const { engines } = read('package.json') as { engines: { node: string } };
    const oldest = semver.minVersion(engines.node)!.version;
    const { packages } = read('package-lock.json') as { packages: Record<string, LockPackage> };
    const refused = Object.entries(packages)
      // npm skips an optional package whose engines do not match, without a warning.
      .filter(([name, p]) => name.startsWith('node_modules/') && !p.optional && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(oldest, p.engines!.node!))
      .map(([name, p]) => `${name.replace(/^node_modules\//, '')}@${p.version} needs Node ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });

  it('README states the same oldest Node', () => {
    const { engines } = read('package.json') as { engines: { node: string } };
    const [major, minor] = semver.minVersion(engines.node)!.version.split('.');
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(`Needs Node ${major}.${minor}+`);
  });
});
