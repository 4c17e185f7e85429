import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:chaos`: long-running crash tests with real worker processes. Their files end
 * in `.chaos.ts` so `npm test` (which collects `*.test.ts`) never picks them up.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    globalSetup: [
      path.resolve(import.meta.dirname, '../build-cli.ts'),
      path.resolve(import.meta.dirname, '../global-setup.ts'),
    ],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});
