import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:cluster`: the same tests against a real Redis Cluster (3 primaries) instead of
 * one redis-server: the walking skeleton, the lock tests, the crash loop, and the checks that
 * every write stays in one slot. `.ci/run` runs it after the crash loop.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: [
      'test/cluster/**/*.cluster.ts',
      'test/walking-skeleton.test.ts',
      'packages/locks/src/**/*.test.ts',
      'test/chaos/crash-loop.chaos.ts',
    ],
    globalSetup: [path.resolve(import.meta.dirname, 'global-setup.ts')],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: the lock property test's timing margins are ms, and the crash loop fills both cores.
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});
