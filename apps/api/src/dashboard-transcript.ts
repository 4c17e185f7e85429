import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Operation } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import type { Response } from 'express';
import { sendError } from './http-errors.ts';

/**
 * Streams one operation's transcript (JSONL) and nothing else: the file must be that
 * operation's and inside the transcripts directory, whatever the record says. Lines pass
 * the Redactor again on the way out, so a secret added to the configuration after the
 * transcript was written is still hidden.
 */
export async function dashboardTranscript(
  res: Response,
  op: Operation,
  deps: Pick<Runtime, 'redactor' | 'transcriptsDir'>,
): Promise<void> {
  const dir = path.resolve(deps.transcriptsDir);
  // Written from the first model call; the record names it only once the loop is done.
  const file = path.resolve(op.transcriptPath ?? path.join(dir, `${op.id}.jsonl`));
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (path.dirname(file) !== dir || path.basename(file) !== `${op.id}.jsonl` || !exists) {
    return sendError(res, 404, 'not_found', 'this operation has no transcript yet');
  }
  res.status(200).set({ 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' });
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (res.destroyed) break;
      if (!line || res.write(`${deps.redactor.redact(line)}\n`)) continue;
      await new Promise((resume) => {
        res.once('drain', resume);
        res.once('close', resume);
      });
    }
  } finally {
    lines.close();
    res.end();
  }
}
