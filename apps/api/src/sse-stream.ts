import type { Logger } from '@pullwright/core';
import type { RedisClient } from '@pullwright/queue';
import type { Request, Response } from 'express';

/** How long one XREAD BLOCK waits; a quiet stream sends a keep-alive comment this often. */
const BLOCK_MS = 15_000;
const STREAM_ID = /^\d+-\d+$/;

/** A Redis stream as server-sent events: what is stored after a cursor, then what comes next. */
interface SseSource<E extends { id: string }> {
  /** The SSE `event:` name of every frame. */
  event: string;
  /** Events stored after the client's cursor (none given: `undefined`), and the cursor to follow from. */
  backlog(resume: string | undefined): Promise<{ events: E[]; cursor: string }>;
  /** Waits up to `blockMs` for events after `cursor` on a connection of its own. */
  next(blocking: RedisClient, cursor: string, blockMs: number): Promise<E[]>;
  /** Sends `event: ready` naming the cursor once the backlog is out, so a quiet reconnect resumes without a gap. */
  ready?: boolean;
}

/**
 * The one SSE loop of the API. The client's cursor is `Last-Event-ID` (browsers send it on
 * reconnect) or `?after=`, so nothing is lost or repeated. XREAD BLOCK holds its connection:
 * one per client, closed with the response.
 */
export async function sseStream<E extends { id: string }>(
  req: Request,
  res: Response,
  source: SseSource<E>,
  deps: { redis: RedisClient; logger: Logger; logContext?: Record<string, unknown> },
): Promise<void> {
  res.status(200).set({
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const asked = req.get('last-event-id') ?? (typeof req.query.after === 'string' ? req.query.after : undefined);
  const resume = asked !== undefined && STREAM_ID.test(asked) ? asked : undefined;
  const blocking = deps.redis.duplicate();
  let open = true;
  req.on('close', () => {
    open = false;
    blocking.disconnect();
  });
  let cursor = resume ?? '0-0';
  const send = (events: E[]) => {
    for (const e of events) {
      res.write(`id: ${e.id}\nevent: ${source.event}\ndata: ${JSON.stringify(e)}\n\n`);
      cursor = e.id;
    }
  };
  try {
    const first = await source.backlog(resume);
    cursor = first.cursor;
    send(first.events);
    if (source.ready) res.write(`id: ${cursor}\nevent: ready\ndata: {}\n\n`);
    while (open) {
      const events = await source.next(blocking, cursor, BLOCK_MS);
      if (events.length) send(events);
      else res.write(': keep-alive\n\n');
    }
  } catch (err) {
    if (open) deps.logger.warn({ err, ...deps.logContext }, `${source.event} stream ended`);
  } finally {
    blocking.disconnect();
    res.end();
  }
}
