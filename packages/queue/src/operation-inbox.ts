import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

interface InboxMessage {
  from: string;
  source: 'slack' | 'dashboard' | 'github' | 'api';
  text: string;
  at: string;
}

/**
 * Messages people send to a running operation (a Slack thread reply, a dashboard note).
 * The worker drains the inbox before each model call, so the model reads them on its next turn.
 */
export class OperationInbox {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  async push(opId: string, message: Omit<InboxMessage, 'at'>): Promise<void> {
    const full: InboxMessage = { ...message, at: new Date().toISOString() };
    await this.redis.rpush(this.keys.inbox(opId), JSON.stringify(full));
  }

  /** Takes every waiting message, oldest first, atomically (two drains never both get one). */
  async drain(opId: string): Promise<InboxMessage[]> {
    const key = this.keys.inbox(opId);
    const [[, items]] = (await this.redis.multi().lrange(key, 0, -1).del(key).exec()) as [
      [unknown, string[]],
      [unknown, number],
    ];
    return items.map((s) => JSON.parse(s) as InboxMessage);
  }
}
