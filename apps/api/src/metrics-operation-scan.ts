import type { LockWait, OperationStatus, StuckReport } from '@pullwright/core';
import type { OperationStore, RedisClient, RedisKeys } from '@pullwright/queue';

/**
 * Operations a scrape or a board request looks at: the newest ones by creation time. Live
 * operations are recent (an operation runs for minutes, awaits approval for days), and a
 * bound keeps a scrape at a few MGETs however long the history grows.
 */
const SCAN_LIMIT = 2000;
const PAGE = 200;

/** The fields of an operation the board and the metrics need, read without full validation. */
export interface ScannedOperation {
  id: string;
  repo: string;
  status: OperationStatus;
  waiting?: LockWait;
  stuck?: StuckReport;
}

/** The newest `limit` operations, newest first. */
export async function scanOperations(
  deps: { redis: RedisClient; keys: RedisKeys; store: OperationStore },
  limit = SCAN_LIMIT,
): Promise<ScannedOperation[]> {
  const out: ScannedOperation[] = [];
  for (let offset = 0; offset < limit; offset += PAGE) {
    const ids = await deps.redis.zrevrange(deps.keys.operationIndex(), offset, Math.min(limit, offset + PAGE) - 1);
    if (ids.length === 0) break;
    const raws = await deps.store.rawRecords(ids);
    for (const raw of raws) {
      if (!raw) continue;
      const op = JSON.parse(raw) as ScannedOperation;
      out.push({
        id: op.id,
        repo: op.repo,
        status: op.status,
        ...(op.waiting ? { waiting: op.waiting } : {}),
        ...(op.stuck ? { stuck: op.stuck } : {}),
      });
    }
    if (ids.length < PAGE) break;
  }
  return out;
}
