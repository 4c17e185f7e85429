import type { Runtime } from '@pullwright/pipeline';
import { OperationFeed } from '@pullwright/queue';
import type { Request, Response } from 'express';
import { sseStream } from './sse-stream.ts';

/**
 * `GET /v1/events`: what happened to any operation, as server-sent events from the global
 * feed stream, for the operations list. A new client starts at the end (it has just loaded
 * the list); a reconnecting one sends `Last-Event-ID` and gets what it missed first. The
 * first frame names the current end, so even a quiet reconnect resumes without a gap.
 */
export function streamFeed(req: Request, res: Response, deps: Pick<Runtime, 'redis' | 'keys' | 'logger'>) {
  const feed = new OperationFeed(deps.redis, deps.keys);
  return sseStream(
    req,
    res,
    {
      event: 'feed',
      ready: true,
      backlog: async (resume) =>
        resume ? { events: await feed.list(resume), cursor: resume } : { events: [], cursor: await feed.end() },
      next: (blocking, cursor, blockMs) => feed.waitForNext(blocking, cursor, blockMs),
    },
    deps,
  );
}
