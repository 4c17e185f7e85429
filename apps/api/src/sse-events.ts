import type { Runtime } from '@pullwright/pipeline';
import type { Request, Response } from 'express';

const BLOCK_MS = 15_000;

/**
 * Server-sent events from the operation's stream. `Last-Event-ID` (sent by browsers on
 * reconnect) resumes after the last event the client saw, so nothing is lost or repeated.
 */
export async function streamEvents(
  req: Request,
  res: Response,
  opId: string,
  deps: Pick<Runtime, 'events' | 'redis' | 'logger'>,
) {
  res.status(200).set({
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let last = req.get('last-event-id') ?? (typeof req.query.after === 'string' ? req.query.after : '0-0');
  if (!/^\d+-\d+$/.test(last)) last = '0-0';
  // XREAD BLOCK holds its connection: one per client, closed with the response.
  const blocking = deps.redis.duplicate();
  let open = true;
  req.on('close', () => {
    open = false;
    blocking.disconnect();
  });
  const send = (events: { id: string }[]) => {
    for (const e of events) {
      res.write(`id: ${e.id}\nevent: operation\ndata: ${JSON.stringify(e)}\n\n`);
      last = e.id;
    }
  };
  try {
    send(await deps.events.list(opId, last === '0-0' ? '-' : last));
    while (open) {
      const events = await deps.events.waitForNext(blocking, opId, last, BLOCK_MS);
      if (events.length) send(events);
      else res.write(': keep-alive\n\n');
    }
  } catch (err) {
    if (open) deps.logger.warn({ err, opId }, 'event stream ended');
  } finally {
    blocking.disconnect();
    res.end();
  }
}
