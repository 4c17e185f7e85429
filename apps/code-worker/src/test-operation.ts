/** Test helper: what the worker tests create an operation from (`store.create({ ...TEST_OPERATION, … })`). */
export const TEST_OPERATION = {
  type: 'debug',
  repo: 'acme/app',
  baseBranch: 'main',
  description: 'x',
  requester: { source: 'api', user: 'dev' },
} as const;
