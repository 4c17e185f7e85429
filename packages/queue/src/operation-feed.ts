import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

/** One feed entry: which operation, when, what happened, and its status after (when the writer knew it). */
interface FeedEntry {
  /** Redis stream id: ordered, and the resume point for readers (SSE Last-Event-ID, the Slack cursor). */
  id: string;
  opId: string;
  ts: string;
  type: string;
  status?: string;
}

/**
 * The feed is capped (approximately, `MAXLEN ~`): it is a live view for lists and notifiers,
 * not the audit trail, which is each operation's own stream. 10 000 entries is hours of
 * activity, far more than a reader reconnecting after a blip needs.
 */
const FEED_MAXLEN = '10000';

/**
 * The arguments of the one XADD that writes the feed, for `redis.xadd(...)` and
 * `multi().xadd(...)` alike, so every writer records the same fields.
 */
export function feedEntryArgs(keys: RedisKeys, entry: Omit<FeedEntry, 'id'>): [string, ...string[]] {
  const fields = ['opId', entry.opId, 'ts', entry.ts, 'type', entry.type];
  if (entry.status) fields.push('status', entry.status);
  return [keys.feed(), 'MAXLEN', '~', FEED_MAXLEN, '*', ...fields];
}

function parseEntries(entries: [string, string[]][]): FeedEntry[] {
  return entries.map(([id, fields]) => {
    const map: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) map[fields[i]!] = fields[i + 1]!;
    return {
      id,
      opId: map.opId ?? '',
      ts: map.ts ?? '',
      type: map.type ?? 'unknown',
      ...(map.status ? { status: map.status } : {}),
    };
  });
}

/** What happened to any operation, newest last: read by the dashboard list and the Slack notifier. */
export class OperationFeed {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** The newest entry's id (`0-0` when empty): where a reader that wants only new entries starts. */
  async end(): Promise<string> {
    const newest = (await this.redis.xrevrange(this.keys.feed(), '+', '-', 'COUNT', 1)) as [string, string[]][];
    return newest[0]?.[0] ?? '0-0';
  }

  /** Entries after `afterId` (exclusive). */
  async list(afterId: string, count = 1000): Promise<FeedEntry[]> {
    const start = afterId === '-' ? '-' : `(${afterId}`;
    return parseEntries(
      (await this.redis.xrange(this.keys.feed(), start, '+', 'COUNT', count)) as [string, string[]][],
    );
  }

  /**
   * Waits up to `blockMs` for entries after `afterId`. Needs a connection of its own:
   * XREAD BLOCK holds the connection until it returns.
   */
  async waitForNext(blocking: RedisClient, afterId: string, blockMs: number, count = 1000): Promise<FeedEntry[]> {
    const read = (await blocking.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.keys.feed(), afterId)) as
      | [string, [string, string[]][]][]
      | null;
    return read?.[0] ? parseEntries(read[0][1]) : [];
  }
}
