import { type EventSource, NotFoundError, type Operation } from '@pullwright/core';
import type { EventSourceLog } from '@pullwright/queue';
import { readInboundEvent } from './inbound-event.ts';
import type { OperationActions } from './operation-actions.ts';

type EventOutcome = { op: Operation; created: boolean } | { ignored: string };

/**
 * `POST /v1/events/<source>`: a delivery from a configured source (EVENT_SOURCES), checked
 * against that source's secret, becomes one operation per event id on the source's
 * repository — a redelivery or a second alert for the same event gets the first one back.
 */
export class InboundEvents {
  constructor(
    private readonly sources: Readonly<Record<string, EventSource>>,
    private readonly actions: Pick<OperationActions, 'createFromPolicy'>,
    private readonly log: EventSourceLog,
  ) {}

  /** The configured sources with what they last delivered: the dashboard's list. */
  async list() {
    const last = await this.log.lastEvents();
    return Object.entries(this.sources).map(([name, s]) => ({
      name,
      kind: s.kind,
      repo: s.repo,
      type: s.type,
      branch: s.branch,
      lastEvent: last[name],
    }));
  }

  async receive(name: string, headers: (name: string) => string | undefined, raw: Buffer): Promise<EventOutcome> {
    const source = Object.hasOwn(this.sources, name) ? this.sources[name] : undefined;
    if (!source) throw new NotFoundError('event source', name);
    const event = readInboundEvent(source, headers, raw);
    if ('ignored' in event) return event;
    const result = await this.actions.createFromPolicy(
      {
        type: source.type,
        repo: source.repo,
        baseBranch: source.branch,
        description: `${source.kind === 'sentry' ? 'Sentry alert' : `Event from ${name}`}: ${event.title}`,
        context: {
          ...(event.errorText ? { errorText: event.errorText } : {}),
          ...(event.stack ? { stack: event.stack } : {}),
        },
        requester: { source: 'policy', user: `event:${name}` },
        origin: {
          kind: 'event',
          source: name,
          eventId: event.eventId,
          title: event.title,
          ...(event.url ? { url: event.url } : {}),
        },
      },
      `event:${name}:${event.eventId}`,
    );
    if (result.created)
      await this.log.record(name, { at: new Date().toISOString(), eventId: event.eventId, opId: result.op.id });
    return result;
  }
}
