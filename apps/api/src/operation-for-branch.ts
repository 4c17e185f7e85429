import type { Operation } from '@pullwright/core';
import type { OperationStore } from '@pullwright/queue';

/**
 * `<prefix><opId>-<slug>` (the prefix is the policy's `branches.prefix`, default `agent/`):
 * the id is base36 time + hex, so it starts the last segment and ends at its first dash.
 */
const OPERATION_BRANCH = /(?:^|\/)([a-z0-9]+)(?:-[^/]*)?$/;

/**
 * The operation whose branch `ref` is: the branch names it, and its record must name this
 * repository and branch back (and this PR, when a number is given) — a branch someone named
 * like ours is not ours.
 */
export async function operationForBranch(
  store: OperationStore,
  repo: string,
  ref: string,
  number?: number,
): Promise<Operation | undefined> {
  const id = OPERATION_BRANCH.exec(ref)?.[1];
  if (!id) return undefined;
  const op = await store.find(id);
  if (!op || op.repo !== repo || op.branch !== ref) return undefined;
  if (number !== undefined && op.pullRequest && op.pullRequest.number !== number) return undefined;
  return op;
}
