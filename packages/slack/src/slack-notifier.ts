import { randomBytes } from 'node:crypto';
import { defineLuaCommand, FINAL_STATUSES, type Operation, type OperationEvent } from '@pullwright/core';
import { duplicateRedis, OperationFeed, type RedisClient, type RedisKeys } from '@pullwright/queue';
import type { Result } from 'ioredis';
import { SlackApiError } from './slack-client.ts';
import type { SlackDeps } from './slack-deps.ts';
import type { SlackKeys } from './slack-keys.ts';
import type { SlackNote } from './slack-messages.ts';
import type { SlackSession } from './slack-sessions.ts';

const leaseLua = new URL('./notifier-lease-1.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwSlackNotifierLease(key: string, token: string, ttlMs: string): Result<number, Context>;
  }
}

export interface SlackNotifierOptions {
  /** Longest wait on the event feed before the loop looks at its lease and timers again. */
  blockMs?: number;
  /** How often running operations' channel messages are rewritten so elapsed time stays current. */
  refreshMs?: number;
  /** A dead notifier's lease frees itself after this long; another API process then takes over. */
  leaseMs?: number;
}

/** Errors after which the channel cannot be posted to by the bot: fall back to the response URL. */
const CHANNEL_UNREACHABLE = new Set(['not_in_channel', 'channel_not_found', 'is_archived', 'no bot token configured']);
/** Events that are Slack's own bookkeeping, not progress. */
const OWN_EVENTS = new Set(['slack_session', 'slack_thread']);
const PAGE = 500;

interface Pending {
  again: boolean;
  done: Promise<void>;
}

/**
 * Follows operations started from Slack and shows them there: one channel message kept
 * current with chat.update, details in its thread. It reads the global event feed with
 * XREAD BLOCK on a connection of its own; each operation's own stream, from a cursor
 * stored per operation, says what is new, so a restart neither loses nor repeats a post.
 * Only the notifier holding the lease posts, so several API processes can run one each.
 */
export class SlackNotifier {
  readonly #deps: SlackDeps;
  readonly #redis: RedisClient;
  readonly #blocking: RedisClient;
  readonly #feed: OperationFeed;
  readonly #leaseKey: string;
  readonly #token = randomBytes(8).toString('hex');
  readonly #blockMs: number;
  readonly #refreshMs: number;
  readonly #leaseMs: number;
  readonly #pending = new Map<string, Pending>();
  /** Last channel message rendered per operation: an unchanged render is not sent again. */
  readonly #rendered = new Map<string, string>();
  #leader = false;
  #closed = false;
  #loop: Promise<void> | undefined;

  constructor(
    deps: SlackDeps & { redis: RedisClient; queueKeys: RedisKeys; slackKeys: SlackKeys },
    options: SlackNotifierOptions = {},
  ) {
    this.#deps = deps;
    this.#redis = deps.redis;
    // XREAD BLOCK holds its connection until it returns; unlimited retries so it survives a Redis restart.
    this.#blocking = duplicateRedis(deps.redis, { maxRetriesPerRequest: null });
    this.#blocking.on('error', () => undefined);
    this.#feed = new OperationFeed(deps.redis, deps.queueKeys);
    this.#leaseKey = deps.slackKeys.notifierLease();
    this.#leaseMs = options.leaseMs ?? 15_000;
    this.#blockMs = Math.min(options.blockMs ?? 5000, Math.floor(this.#leaseMs / 3));
    this.#refreshMs = options.refreshMs ?? 15_000;
    defineLuaCommand(this.#redis, 'pwSlackNotifierLease', leaseLua);
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#blocking.disconnect();
    await this.#loop;
    await Promise.all([...this.#pending.values()].map((p) => p.done));
    if (this.#leader) await this.#redis.pwSlackNotifierLease(this.#leaseKey, this.#token, '0').catch(() => undefined);
    this.#leader = false;
  }

  /** Brings one operation's Slack view up to date. Calls for the same operation run one at a time and coalesce. */
  sync(opId: string): Promise<void> {
    const running = this.#pending.get(opId);
    if (running) {
      running.again = true;
      return running.done;
    }
    const entry: Pending = { again: true, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        while (entry.again && !this.#closed) {
          entry.again = false;
          await this.#sync(opId).catch((err) =>
            // Retried on the next event or refresh: the cursor only moves past what was shown.
            this.#deps.logger.warn({ opId, err: (err as Error).message }, 'slack sync failed'),
          );
        }
      } finally {
        this.#pending.delete(opId);
      }
    })();
    this.#pending.set(opId, entry);
    return entry.done;
  }

  async #run(): Promise<void> {
    let cursor = '$';
    let renewAt = 0;
    let refreshAt = Date.now() + this.#refreshMs;
    while (!this.#closed) {
      try {
        if (Date.now() >= renewAt) {
          const held =
            (await this.#redis.pwSlackNotifierLease(this.#leaseKey, this.#token, String(this.#leaseMs))) === 1;
          renewAt = Date.now() + Math.floor(this.#leaseMs / 3);
          if (held && !this.#leader) cursor = await this.#catchUp();
          this.#leader = held;
        }
        if (!this.#leader) {
          await sleep(Math.min(1000, this.#leaseMs / 3));
          continue;
        }
        const entries = await this.#feed.waitForNext(this.#blocking, cursor, this.#blockMs);
        for (const { id, opId, type } of entries) {
          // A deploy of a merged operation reports in the thread the merge had closed.
          const follow =
            opId &&
            ((await this.#deps.sessions.isActive(opId)) ||
              (type === 'deploy' && (await this.#deps.sessions.resume(opId))));
          if (opId && follow) void this.sync(opId);
          cursor = id;
        }
        if (entries.length > 0) await this.#deps.sessions.setFeedCursor(cursor);
        if (Date.now() >= refreshAt) {
          refreshAt = Date.now() + this.#refreshMs;
          for (const opId of await this.#deps.sessions.active()) void this.sync(opId);
        }
      } catch (err) {
        if (this.#closed) break;
        this.#deps.logger.warn({ err: (err as Error).message }, 'slack notifier: feed read failed; retrying');
        await sleep(1000);
      }
    }
  }

  /**
   * On taking the lease: resume the feed where the last notifier stopped (or at its end),
   * and sync every followed operation, which covers anything the feed no longer holds.
   */
  async #catchUp(): Promise<string> {
    const cursor = (await this.#deps.sessions.feedCursor()) || (await this.#feed.end());
    for (const opId of await this.#deps.sessions.active()) void this.sync(opId);
    return cursor;
  }

  async #sync(opId: string): Promise<void> {
    const { sessions, store, messages } = this.#deps;
    const session = await sessions.get(opId);
    const initial = await store.find(opId);
    if (!session || !initial) {
      await sessions.finish(opId, session?.channel ?? '', session?.rootTs);
      return;
    }
    if (session.delivery === 'bot' && !session.rootTs) await this.#postRoot(session, initial);

    let view = session;
    let op = initial;
    for (;;) {
      const events = await this.#deps.events.list(opId, view.cursor ?? '-', PAGE);
      // Read after the events: the operation is at least as new as every event shown.
      op = await store.get(opId);
      for (const e of events) view = await this.#apply(view, e, op);
      if (events.length < PAGE) break;
    }

    if (view.delivery === 'bot' && view.rootTs) {
      const message = messages.status(op, view);
      const key = JSON.stringify(message);
      if (this.#rendered.get(opId) !== key) {
        await this.#deps.client.update(view.channel, view.rootTs, message);
        this.#rendered.set(opId, key);
      }
    }
    if (FINAL_STATUSES.has(op.status) && op.deploy?.status !== 'running') {
      await sessions.finish(opId, view.channel, view.rootTs);
      this.#rendered.delete(opId);
    }
  }

  async #postRoot(session: SlackSession, op: Operation): Promise<void> {
    const { client, messages, sessions, store } = this.#deps;
    try {
      const ts = await client.postMessage(session.channel, messages.status(op, session));
      await sessions.bindThread(op.id, session.channel, ts);
      session.rootTs = ts;
      await store.update(op.id, (cur) => ({ ...cur, requester: { ...cur.requester, thread: ts } }), {
        type: 'slack_thread',
        data: { channel: session.channel, ts },
      });
    } catch (err) {
      if (!(err instanceof SlackApiError && CHANNEL_UNREACHABLE.has(err.context.slackError))) throw err;
      // The bot was not invited to the channel: the command's response URL still reaches it.
      this.#deps.logger.warn(
        { opId: op.id, reason: err.context.slackError },
        'slack: posting milestones via response_url',
      );
      session.delivery = 'response_url';
      await sessions.update(op.id, { delivery: 'response_url' });
    }
  }

  /** Shows one event and moves the cursor past it; a failed post leaves the cursor so it is retried. */
  async #apply(session: SlackSession, e: OperationEvent, op: Operation): Promise<SlackSession> {
    const { messages, client, sessions } = this.#deps;
    const next: SlackSession = { ...session, cursor: e.id };
    if (!OWN_EVENTS.has(e.type)) {
      next.step = messages.step(e) ?? session.step;
      next.lastEventAt = e.ts;
    }
    const note = messages.note(e, op);
    if (note) {
      const ts = await this.#deliver(session, note);
      if (ts && note.approval) next.prTs = ts;
      if (ts && note.plan) next.planTs = ts;
    }
    if (next.planTs && next.delivery === 'bot' && planSettled(e, op)) {
      // Start / Modify / Cancel must not outlive the decision: the plan message now says what happened.
      await client.update(next.channel, next.planTs, messages.planDecided(op));
      next.planTs = undefined;
    }
    if (e.type === 'status' && e.data.to !== 'awaiting_approval' && next.prTs && next.delivery === 'bot') {
      // The buttons must not outlive the decision: the PR message now says what happened.
      await client.update(next.channel, next.prTs, messages.decided(op));
    }
    await sessions.update(session.opId, {
      cursor: next.cursor,
      step: next.step,
      lastEventAt: next.lastEventAt,
      prTs: next.prTs,
      planTs: next.planTs ?? '',
    });
    return next;
  }

  async #deliver(session: SlackSession, note: SlackNote): Promise<string | undefined> {
    const { client } = this.#deps;
    const message = { text: note.text, ...(note.blocks ? { blocks: note.blocks } : {}) };
    if (session.delivery === 'bot' && session.rootTs)
      return client.postMessage(session.channel, message, session.rootTs);
    if (note.milestone && session.responseUrl) {
      await client.respond(session.responseUrl, { response_type: 'in_channel', replace_original: false, ...message });
    }
    return undefined;
  }
}

/** The plan message's buttons have had their say: a decision, or the operation stopped before one. */
function planSettled(e: OperationEvent, op: Operation): boolean {
  if (e.type === 'plan_confirmation') return e.data.state !== 'pending';
  return e.type === 'cancel_requested' || (e.type === 'status' && FINAL_STATUSES.has(op.status));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
