import type { Runtime } from '@pullwright/pipeline';
import type { Request, Response } from 'express';

const BLOCK_MS = 15_000;
const BACKLOG = 1000;
const STREAM_ID = /^\d+-\d+$/;

interface FeedEvent {
  id: string;
  opId: string;
  ts: string;
  type: string;
  /** The operation's status after the event, when the writer recorded it. */
  status?: string;
}

function parse(entries: [string, string[]][]): FeedEvent[] {
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

/**
 * `GET /v1/events`: what happened to any operation, as server-sent events from the global
 * feed stream, for the operations list. A new client starts at the end (it has just loaded
 * the list); a reconnecting one sends `Last-Event-ID` and gets what it missed first. The
 * first frame names the current end, so even a quiet reconnect resumes without a gap.
 */
export async function streamFeed(req: Request, res: Response, deps: Pick<Runtime, 'redis' | 'keys' | 'logger'>) {
  const key = deps.keys.feed();
  const resume = req.get('last-event-id');
  res.status(200).set({
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const blocking = deps.redis.duplicate();
  let open = true;
  req.on('close', () => {
    open = false;
    blocking.disconnect();
  });
  let last = '0-0';
  const send = (events: FeedEvent[]) => {
    for (const e of events) {
      res.write(`id: ${e.id}\nevent: feed\ndata: ${JSON.stringify(e)}\n\n`);
      last = e.id;
    }
  };
  try {
    if (resume && STREAM_ID.test(resume)) {
      last = resume;
      send(parse((await deps.redis.xrange(key, `(${resume}`, '+', 'COUNT', BACKLOG)) as [string, string[]][]));
    } else {
      const newest = (await deps.redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][];
      last = newest[0]?.[0] ?? '0-0';
    }
    res.write(`id: ${last}\nevent: ready\ndata: {}\n\n`);
    while (open) {
      const read = (await blocking.xread('COUNT', BACKLOG, 'BLOCK', BLOCK_MS, 'STREAMS', key, last)) as
        | [string, [string, string[]][]][]
        | null;
      const events = read?.[0] ? parse(read[0][1]) : [];
      if (events.length) send(events);
      else res.write(': keep-alive\n\n');
    }
  } catch (err) {
    if (open) deps.logger.warn({ err }, 'feed stream ended');
  } finally {
    blocking.disconnect();
    res.end();
  }
}
