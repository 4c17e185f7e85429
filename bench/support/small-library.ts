import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The demo's slugify repository: its bug, its failing tests and its recorded fix. */
const SAMPLE_DIR = path.resolve(import.meta.dirname, '../../apps/cli/demo/sample-repo');

export interface LibraryShape {
  /** Source modules beside slugify, each with its own test file. */
  modules: number;
  testsPerModule: number;
}

/** The workload (issue 16): a small library with a ~7,000-test suite and no runtime dependencies. */
export const SMALL_LIBRARY: LibraryShape = { modules: 40, testsPerModule: 175 };

function moduleSource(m: number): string {
  return [
    `/** Arithmetic helpers, set ${m}. */`,
    `export function scale${m}(x) {`,
    `  return x * ${m + 2};`,
    '}',
    '',
    `export function offset${m}(x, k) {`,
    `  return x + k * ${m + 1};`,
    '}',
    '',
  ].join('\n');
}

function moduleTests(m: number, tests: number): string {
  const lines = [
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    `import { offset${m}, scale${m} } from '../src/lib/set-${m}.js';`,
    '',
  ];
  for (let t = 0; t < tests; t++) {
    lines.push(
      t % 2 === 0
        ? `test('scale${m} of ${t}', () => assert.equal(scale${m}(${t}), ${t * (m + 2)}));`
        : `test('offset${m} of ${t}', () => assert.equal(offset${m}(${t}, ${t % 7}), ${t + (t % 7) * (m + 1)}));`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes a small library into `dir`: the slugify sample (its bug and tests) plus `modules`
 * modules with `testsPerModule` tests each, run by `node --test` like the sample's own.
 */
export async function writeSmallLibrary(dir: string, shape: LibraryShape): Promise<number> {
  await cp(SAMPLE_DIR, dir, { recursive: true });
  await mkdir(path.join(dir, 'src/lib'), { recursive: true });
  for (let m = 0; m < shape.modules; m++) {
    await writeFile(path.join(dir, `src/lib/set-${m}.js`), moduleSource(m));
    await writeFile(path.join(dir, `test/set-${m}.test.js`), moduleTests(m, shape.testsPerModule));
  }
  return 3 + shape.modules * shape.testsPerModule;
}
