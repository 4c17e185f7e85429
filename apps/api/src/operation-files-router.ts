import type { Runtime } from '@pullwright/pipeline';
import { ARTIFACT_NAME, auditTrail, sortArtifactNames, TRANSCRIPT_ARTIFACT } from '@pullwright/queue';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { sendError } from './http-errors.ts';
import { OperationIdParam } from './request-schemas.ts';
import { validate } from './validate.ts';

type Deps = Pick<Runtime, 'store' | 'events' | 'artifacts' | 'redactor'>;

const ArtifactNameParam = z.string().regex(ARTIFACT_NAME, 'must be a file name: A-Z a-z 0-9 . _ -');

const NDJSON = { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' };

function opId(req: Request): string {
  return validate(OperationIdParam, req.params.id, 'id');
}

/** Writes lines with backpressure, stopping when the client leaves. */
async function streamLines(res: Response, lines: AsyncIterable<string> | Iterable<string>): Promise<void> {
  try {
    for await (const line of lines) {
      if (res.destroyed) break;
      if (res.write(line)) continue;
      await new Promise((resume) => {
        res.once('drain', resume);
        res.once('close', resume);
      });
    }
  } finally {
    res.end();
  }
}

/**
 * What an operation left behind, read from the ArtifactStore (shared storage, so any API
 * replica answers, whichever worker ran the operation): its transcript, its other artifacts
 * (the numbered run record, the reports, the kept diff) and the whole audit record. Everything passes the Redactor again on the
 * way out, so a secret added to the configuration after it was written is still hidden.
 */
export function operationFilesRouter(deps: Deps): Router {
  const router = Router();
  const redact = (text: string) => deps.redactor.redact(text);

  router.get('/:id/transcript', async (req, res) => {
    const op = await deps.store.get(opId(req));
    const transcript = await deps.artifacts.read(op.id, TRANSCRIPT_ARTIFACT);
    if (!transcript) return sendError(res, 404, 'not_found', 'this operation has no transcript yet');
    const lines = transcript.content
      .split('\n')
      .filter(Boolean)
      .map((line) => `${redact(line)}\n`);
    if (transcript.truncated)
      lines.push(`${JSON.stringify({ kind: 'truncated', reason: 'transcript size cap reached' })}\n`);
    res.status(200).set(NDJSON);
    return streamLines(res, lines);
  });

  /** The run record and everything else stored with the operation, numbered artifacts in order. */
  router.get('/:id/artifacts', async (req, res) => {
    const op = await deps.store.get(opId(req));
    const names = sortArtifactNames(await deps.artifacts.names(op.id));
    res
      .status(200)
      .set('Cache-Control', 'no-store')
      .json({
        artifacts: names.map((name) => ({
          name,
          url: `/v1/operations/${op.id}/artifacts/${encodeURIComponent(name)}`,
        })),
      });
  });

  router.get('/:id/artifacts/:name', async (req, res) => {
    const op = await deps.store.get(opId(req));
    const name = validate(ArtifactNameParam, req.params.name, 'name');
    const artifact = await deps.artifacts.read(op.id, name);
    if (!artifact) return sendError(res, 404, 'not_found', `this operation has no artifact ${name}`);
    res
      .status(200)
      .set({
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Disposition': `attachment; filename="${op.id}-${name}"`,
        'X-Pullwright-Truncated': String(artifact.truncated),
      })
      .send(redact(artifact.content));
  });

  router.get('/:id/audit', async (req, res) => {
    const id = opId(req);
    // Throws NotFoundError before the first line, so an unknown id is still a clean 404.
    const trail = auditTrail({ ...deps, redact }, id);
    const first = await trail.next();
    res.status(200).set({ ...NDJSON, 'Content-Disposition': `attachment; filename="${id}-audit.jsonl"` });
    return streamLines(
      res,
      (async function* () {
        if (!first.done) yield first.value;
        yield* trail;
      })(),
    );
  });

  return router;
}
