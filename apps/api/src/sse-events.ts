import { withDescription } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import type { Request, Response } from 'express';
import { sseStream } from './sse-stream.ts';

/**
 * `GET /v1/operations/:id/events`: the operation's stream as server-sent events, from the start
 * or the client's cursor; each event with its `description` (core `describeEvent`).
 */
export function streamEvents(
  req: Request,
  res: Response,
  opId: string,
  deps: Pick<Runtime, 'events' | 'redis' | 'logger'>,
) {
  return sseStream(
    req,
    res,
    {
      event: 'operation',
      backlog: async (resume) => ({
        events: (await deps.events.list(opId, resume ?? '-')).map(withDescription),
        cursor: resume ?? '0-0',
      }),
      next: async (blocking, cursor, blockMs) =>
        (await deps.events.waitForNext(blocking, opId, cursor, blockMs)).map(withDescription),
    },
    { ...deps, logContext: { opId } },
  );
}
