import { ValidationError } from '@pullwright/core';

/** Braces would end the `{owner/repo}` hash tag early and split a repo over Cluster slots. */
const PREFIX = /^[^{}\s]+$/;

export function assertPrefix(prefix: string): void {
  if (!PREFIX.test(prefix)) {
    throw new ValidationError('invalid key prefix', [
      { field: 'prefix', reason: 'must be non-empty, without braces or spaces' },
    ]);
  }
}

export function assertOpId(opId: string): void {
  if (opId.length === 0) throw new ValidationError('invalid lock owner', [{ field: 'opId', reason: 'empty' }]);
}

export function assertLease(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new ValidationError('invalid lease', [{ field: 'leaseMs', reason: 'must be a positive integer (ms)' }]);
  }
}
