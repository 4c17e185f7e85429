import { type ArtifactStore, sortArtifactNames, TRANSCRIPT_ARTIFACT } from './artifact-store.ts';
import type { OperationEvents } from './operation-events.ts';
import type { OperationStore } from './operation-store.ts';

interface AuditTrailDeps {
  store: OperationStore;
  events: OperationEvents;
  artifacts: ArtifactStore;
  /** Applied to every line on the way out: a secret added to the configuration later is hidden too. */
  redact: (text: string) => string;
}

const EVENT_PAGE = 1000;

/**
 * The whole record of one operation as JSONL lines, in this order: the operation, every
 * event of its timeline, every transcript entry, then the other artifacts (the kept diff).
 * `GET /v1/operations/:id/audit` and `pullwright export <id>` both write these lines.
 * Throws NotFoundError (before yielding anything) for an unknown or expired operation.
 */
export async function* auditTrail(deps: AuditTrailDeps, opId: string): AsyncGenerator<string> {
  const operation = await deps.store.get(opId);
  const line = (value: Record<string, unknown>) => `${deps.redact(JSON.stringify(value))}\n`;
  yield line({ kind: 'operation', operation });
  for (let after = '-'; ; ) {
    const page = await deps.events.list(opId, after, EVENT_PAGE);
    for (const event of page) yield line({ kind: 'event', ...event });
    if (page.length < EVENT_PAGE) break;
    after = page.at(-1)!.id;
  }
  const names = await deps.artifacts.names(opId);
  const transcript = names.includes(TRANSCRIPT_ARTIFACT)
    ? await deps.artifacts.read(opId, TRANSCRIPT_ARTIFACT)
    : undefined;
  for (const entry of transcript?.content.split('\n') ?? []) {
    if (!entry.trim()) continue;
    yield line({ kind: 'transcript', entry: parseEntry(entry) });
  }
  if (transcript?.truncated) yield line({ kind: 'transcript_truncated', artifact: TRANSCRIPT_ARTIFACT });
  for (const name of sortArtifactNames(names.filter((n) => n !== TRANSCRIPT_ARTIFACT))) {
    const artifact = await deps.artifacts.read(opId, name);
    if (artifact) yield line({ kind: 'artifact', name, truncated: artifact.truncated, content: artifact.content });
  }
}

function parseEntry(entry: string): unknown {
  try {
    return JSON.parse(entry);
  } catch {
    return entry;
  }
}
