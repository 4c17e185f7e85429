import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageName } from './fake-npm-registry.ts';
import { type LibraryShape, writeSmallLibrary } from './small-library.ts';

const run = promisify(execFile);

/**
 * The small library with a dev toolchain (issue 29): `devDependencies` on the fake registry's
 * tree, a real `package-lock.json` resolved by npm against it, an `.npmrc` naming it, and a
 * test that loads the whole tree — the suite cannot pass without the install.
 */
export async function writeLibraryWithDependencies(
  dir: string,
  shape: LibraryShape,
  registry: string,
  npmCache: string,
): Promise<number> {
  const tests = await writeSmallLibrary(dir, shape);
  const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  manifest.devDependencies = { [packageName(0)]: '^1.0.0' };
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, '.npmrc'), `registry=${registry}/\n`);
  await writeFile(path.join(dir, '.gitignore'), 'node_modules/\n');
  await writeFile(
    path.join(dir, 'test/dev-dependencies.test.js'),
    [
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      `import { name } from '${packageName(0)}';`,
      '',
      `test('the dev toolchain is installed', () => assert.equal(name, '${packageName(0)}'));`,
      '',
    ].join('\n'),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: dir,
    env: { ...process.env, npm_config_cache: npmCache },
  });
  await rm(path.join(dir, 'node_modules'), { recursive: true, force: true });
  return tests + 1;
}
