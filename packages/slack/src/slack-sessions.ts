import type { RedisClient } from '@pullwright/queue';
import type { SlackKeys } from './slack-keys.ts';

/**
 * How an operation's progress reaches Slack: `bot` posts one channel message and a thread
 * (needs SLACK_BOT_TOKEN and the bot in the channel); `response_url` posts the milestones
 * through the command's response URL (Slack allows 5 posts in 30 minutes).
 */
export type SlackDelivery = 'bot' | 'response_url';

export interface SlackSession {
  opId: string;
  channel: string;
  /** Slack user id of the requester. */
  user: string;
  delivery: SlackDelivery;
  responseUrl: string | undefined;
  budgetUsd: number | undefined;
  auto: boolean;
  /** ts of the channel message kept current; the thread hangs off it. */
  rootTs: string | undefined;
  /** ts of the thread message holding the Approve / Reject buttons. */
  prTs: string | undefined;
  /** ts of the thread message holding the plan with Start / Modify / Cancel. */
  planTs: string | undefined;
  /** Last event of the operation's stream already shown in Slack. */
  cursor: string | undefined;
  /** What the operation is doing, in words, for the channel message. */
  step: string | undefined;
  lastEventAt: string | undefined;
}

type NewSlackSession = Pick<
  SlackSession,
  'opId' | 'channel' | 'user' | 'delivery' | 'responseUrl' | 'budgetUsd' | 'auto'
>;

type Mutable = Partial<Pick<SlackSession, 'delivery' | 'prTs' | 'planTs' | 'cursor' | 'step' | 'lastEventAt'>>;

/** A finished operation's session is kept this long, so late clicks and reactions still find it. */
const FINISHED_TTL_S = 14 * 24 * 3600;
const EVENT_DEDUPE_TTL_S = 3600;

/** The Slack side of operations, in Redis: who asked where, which message, how far it was shown. */
export class SlackSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: SlackKeys,
  ) {}

  /** Idempotent: a retried command writes the same fields and leaves the progress fields alone. */
  async create(s: NewSlackSession): Promise<void> {
    const fields: Record<string, string> = {
      channel: s.channel,
      user: s.user,
      delivery: s.delivery,
      auto: s.auto ? '1' : '0',
    };
    if (s.responseUrl) fields.responseUrl = s.responseUrl;
    if (s.budgetUsd !== undefined) fields.budgetUsd = String(s.budgetUsd);
    // Two slots on a Cluster (the session is in the operation's, the set is global), so two
    // writes: the session first, so the notifier never follows an id without one.
    await this.redis.hset(this.keys.session(s.opId), fields);
    await this.redis.sadd(this.keys.active(), s.opId);
  }

  async get(opId: string): Promise<SlackSession | undefined> {
    const h = await this.redis.hgetall(this.keys.session(opId));
    if (!h.channel || !h.user) return undefined;
    return {
      opId,
      channel: h.channel,
      user: h.user,
      delivery: h.delivery === 'response_url' ? 'response_url' : 'bot',
      responseUrl: h.responseUrl,
      budgetUsd: h.budgetUsd ? Number(h.budgetUsd) : undefined,
      auto: h.auto === '1',
      rootTs: h.rootTs,
      prTs: h.prTs,
      planTs: h.planTs,
      cursor: h.cursor,
      step: h.step,
      lastEventAt: h.lastEventAt,
    };
  }

  async update(opId: string, fields: Mutable): Promise<void> {
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>;
    if (Object.keys(set).length > 0) await this.redis.hset(this.keys.session(opId), set);
  }

  /** Records the channel message and indexes it, so replies and reactions find the operation. */
  async bindThread(opId: string, channel: string, ts: string): Promise<void> {
    // Separate slots on a Cluster; the thread index is what replies look up, so it goes last.
    await this.redis.hset(this.keys.session(opId), { rootTs: ts });
    await this.redis.set(this.keys.thread(channel, ts), opId);
  }

  findByThread(channel: string, ts: string): Promise<string | null> {
    return this.redis.get(this.keys.thread(channel, ts));
  }

  active(): Promise<string[]> {
    return this.redis.smembers(this.keys.active());
  }

  async isActive(opId: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.active(), opId)) === 1;
  }

  /** The operation is over and fully shown: stop following it, forget the response URL, keep the rest a while. */
  async finish(opId: string, channel: string, rootTs: string | undefined): Promise<void> {
    // One MULTI per Cluster slot: the global set, the operation's session, the thread index.
    await this.redis.srem(this.keys.active(), opId);
    await this.redis
      .multi()
      .hdel(this.keys.session(opId), 'responseUrl')
      .expire(this.keys.session(opId), FINISHED_TTL_S)
      .exec();
    if (rootTs) await this.redis.expire(this.keys.thread(channel, rootTs), FINISHED_TTL_S);
  }

  /**
   * Follows a finished operation again (a deploy after the merge reports in its thread);
   * false when its session is gone.
   */
  async resume(opId: string): Promise<boolean> {
    if (!(await this.redis.persist(this.keys.session(opId)))) return false;
    await this.redis.sadd(this.keys.active(), opId);
    return true;
  }

  /** True the first time an Events API delivery is seen (retries carry the same event id). */
  async claimEvent(eventId: string): Promise<boolean> {
    return (await this.redis.set(this.keys.event(eventId), '1', 'EX', EVENT_DEDUPE_TTL_S, 'NX')) === 'OK';
  }

  feedCursor(): Promise<string | null> {
    return this.redis.get(this.keys.feedCursor());
  }

  async setFeedCursor(id: string): Promise<void> {
    await this.redis.set(this.keys.feedCursor(), id);
  }
}
