export { BranchRegistry } from './branch-registry.ts';
export { DEFAULT_FILE_LEASE_MS, FileLocks } from './file-locks.ts';
export { LeaseKeeper } from './lease-keeper.ts';
export { LockWaitError } from './lock-wait-error.ts';
export { LockWaiter } from './lock-waiter.ts';
export { DEFAULT_MERGE_LEASE_MS, MergeLock } from './merge-lock.ts';
