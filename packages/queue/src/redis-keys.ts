/**
 * Every Redis key the queue package writes. Operation keys carry the id in a `{}` hash tag
 * so an operation's record, its event stream, inbox and artifacts share one Cluster slot
 * (the update script touches all four). The listing index and the feed are global keys in
 * slots of their own: they are written beside, never inside, an operation's script.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  operation(id: string): string {
    return `${this.prefix}:op:{${id}}`;
  }

  events(id: string): string {
    return `${this.prefix}:op:{${id}}:events`;
  }

  /**
   * What the model gateway metered for one subject (an operation, or a feature request's
   * analysis): calls, tokens and cost, counted where the keys are, whatever the worker says.
   */
  gatewayMeter(subject: string): string {
    return `${this.prefix}:gateway:{${subject}}`;
  }

  /**
   * Model spend (USD) on one UTC day: one repository's, or all operations' without `repo`.
   * The day is the hash tag, so both counters of a day share a Cluster slot (one script adds to both).
   */
  dailySpend(day: string, repo?: string): string {
    return `${this.prefix}:spend:{${day}}:${repo ? `repo:${repo}` : 'all'}`;
  }

  /** Messages for a running operation from people (Slack thread replies…). */
  inbox(id: string): string {
    return `${this.prefix}:op:{${id}}:inbox`;
  }

  /**
   * The model conversation of one job of an operation (`run`, `revise:<n>`…), checkpointed
   * turn by turn so a retried job resumes it. Same slot as the operation record.
   */
  conversation(id: string, scope: string): string {
    return `${this.prefix}:op:{${id}}:conversation:${scope}`;
  }

  /** Hash of the operation's artifacts (transcript, kept diff), chunked and compressed. */
  artifacts(id: string): string {
    return `${this.prefix}:op:{${id}}:artifacts`;
  }

  /** Sorted set of operation ids by creation time: the listing index. */
  operationIndex(): string {
    return `${this.prefix}:ops`;
  }

  /** All events of all operations, capped: a live feed for the dashboard list, not the audit trail. */
  feed(): string {
    return `${this.prefix}:feed`;
  }

  /** Hash `type\tstatus\treason` → count: how operations ended, for /metrics. */
  outcomes(): string {
    return `${this.prefix}:metrics:outcomes`;
  }

  /** One feature request (JSON); kept until deleted, like a backlog. */
  featureRequest(id: string): string {
    return `${this.prefix}:fr:{${id}}`;
  }

  /** Sorted set of feature request ids by creation time. */
  featureRequestIndex(): string {
    return `${this.prefix}:frs`;
  }

  /** Every repository's schedules (one hash; field `<repo>/<name>`): what the dashboard lists and pauses. */
  schedules(): string {
    return `${this.prefix}:schedules`;
  }

  /** The last event each configured source delivered (one hash; field: the source's name). */
  eventSources(): string {
    return `${this.prefix}:event-sources`;
  }

  idempotency(key: string): string {
    return `${this.prefix}:idem:${key}`;
  }
}
