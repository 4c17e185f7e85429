import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:containers`: the images built, the compose stack booted and the Docker runner
 * exercised on a real engine (global-setup.ts). Files end in `.container.ts` so `npm test`
 * never collects them; `.ci/run` runs this suite after the others.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/containers/**/*.container.ts'],
    globalSetup: [path.resolve(import.meta.dirname, 'global-setup.ts')],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file at a time: both use the one engine, and the stack's checks fill both cores.
    fileParallelism: false,
  },
});
