/** Every Redis key the Slack package writes, under the deployment's prefix. */
export class SlackKeys {
  constructor(readonly prefix: string) {}
  /** Hash: the Slack side of one operation (channel, message ts, cursor…). */
  session(opId: string): string {
    return `${this.prefix}:slack:op:{${opId}}`;
  }
  /** Set of operation ids the notifier still follows. */
  active(): string {
    return `${this.prefix}:slack:active`;
  }
  /** String: operation id of the message (and so the thread) at `channel`/`ts`. */
  thread(channel: string, ts: string): string {
    return `${this.prefix}:slack:thread:${channel}:${ts}`;
  }
  /** Where the notifier stopped reading the global feed. */
  feedCursor(): string {
    return `${this.prefix}:slack:feed-cursor`;
  }
  /** Held by the one notifier that posts, when several API processes run. */
  notifierLease(): string {
    return `${this.prefix}:slack:notifier-lease`;
  }
  /** Marks an Events API delivery as handled: Slack retries an event it thinks we missed. */
  event(eventId: string): string {
    return `${this.prefix}:slack:event:${eventId}`;
  }
}
