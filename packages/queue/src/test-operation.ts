import type { NewOperation } from './operation-store.ts';

/** A plain request for tests of the queue package's stores (not exported from the package). */
export const TEST_OPERATION: NewOperation = {
  type: 'debug',
  repo: 'acme/app',
  baseBranch: 'main',
  description: 'TypeError in auth.ts:45',
  requester: { source: 'api', user: 'dev' },
};
