import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/**
 * Runs a job with its token holder (`<opId>/<job>`) in scope. A worker without the App key
 * makes every GitHub call with its job's brokered token: the REST calls of a forge method do
 * not say which job they serve, the scope does.
 */
export function inJobScope<T>(holder: string, run: () => T): T {
  return scope.run(holder, run);
}

/** The token holder of the job this code runs for, or undefined outside a job. */
export function currentJobHolder(): string | undefined {
  return scope.getStore();
}
