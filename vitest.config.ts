import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/build-cli.ts', 'test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Whole-system tests spawn git, redis and node children; two cores.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
