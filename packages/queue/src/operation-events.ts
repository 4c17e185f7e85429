import { eventType, type OperationEvent, type OperationEventDataOf, type OperationEventType } from '@pullwright/core';
import { checkedEvent } from './checked-event.ts';
import { feedEntryArgs } from './operation-feed.ts';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

function parseEntries(opId: string, entries: [string, string[]][]): OperationEvent[] {
  return entries.map(([id, fields]) => {
    const map: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) map[fields[i]!] = fields[i + 1]!;
    return { id, ts: map.ts ?? '', opId, type: eventType(map.type ?? ''), data: JSON.parse(map.data ?? '{}') };
  });
}

/**
 * The append-only audit trail of one operation (a Redis stream). Transitions are written
 * by OperationStore in the same script as the status; steps (tool calls, checks) here.
 */
export class OperationEvents {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** Applied to every event before it is stored: events are shown to people. */
    private readonly scrub: <T>(value: T) => T = (v) => v,
  ) {}

  /** Writes one event; its type and data are checked against the vocabulary (core `OperationEventData`): by the compiler, and under test at run time (`checkedEvent`). */
  async append<T extends OperationEventType>(opId: string, type: T, data: OperationEventDataOf<T>): Promise<string> {
    const ts = new Date().toISOString();
    const clean = this.scrub(checkedEvent(type, data));
    const id = await this.redis.xadd(
      this.keys.events(opId),
      '*',
      'ts',
      ts,
      'type',
      type,
      'data',
      JSON.stringify(clean),
    );
    await this.redis.xadd(...feedEntryArgs(this.keys, { opId, ts, type }));
    return id as string;
  }

  /** Events after `afterId` (exclusive); all of them by default. */
  async list(opId: string, afterId = '-', count = 1000): Promise<OperationEvent[]> {
    const start = afterId === '-' ? '-' : `(${afterId}`;
    const entries = (await this.redis.xrange(this.keys.events(opId), start, '+', 'COUNT', count)) as [
      string,
      string[],
    ][];
    return parseEntries(opId, entries);
  }

  /**
   * Waits up to `blockMs` for events after `afterId`. Needs a connection of its own:
   * XREAD BLOCK holds the connection until it returns.
   */
  async waitForNext(blocking: RedisClient, opId: string, afterId: string, blockMs: number): Promise<OperationEvent[]> {
    const res = (await blocking.xread('BLOCK', blockMs, 'STREAMS', this.keys.events(opId), afterId)) as
      | [string, [string, string[]][]][]
      | null;
    return res?.[0] ? parseEntries(opId, res[0][1]) : [];
  }
}
