import { z } from 'zod';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

/** The last event a configured source delivered, and the operation it became. */
const LastEvent = z.object({ at: z.string(), eventId: z.string(), opId: z.string() });
type LastEvent = z.infer<typeof LastEvent>;

/** What the dashboard shows per event source: when it last delivered, and what that started. */
export class EventSourceLog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async record(source: string, last: LastEvent): Promise<void> {
    await this.redis.hset(this.keys.eventSources(), source, JSON.stringify(last));
  }

  async lastEvents(): Promise<Record<string, LastEvent>> {
    const raw = await this.redis.hgetall(this.keys.eventSources());
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, LastEvent.parse(JSON.parse(v))]));
  }
}
