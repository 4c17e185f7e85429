import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Redactor } from '@pullwright/security';

/**
 * Where transcript lines go. The pipeline passes shared storage (the ArtifactStore: any API
 * replica serves the transcript); a file path is kept for local tools and tests.
 */
interface TranscriptSink {
  append(text: string): Promise<void>;
}

function fileSink(file: string): TranscriptSink {
  let ready: Promise<unknown> | undefined;
  return {
    async append(text) {
      ready ??= mkdir(path.dirname(file), { recursive: true });
      await ready;
      await appendFile(file, text);
    },
  };
}

/**
 * Append-only JSONL record of one operation's model conversation: every request summary,
 * response, tool call and result, redacted before it leaves the process.
 */
export class TranscriptWriter {
  readonly #sink: TranscriptSink;

  constructor(
    destination: string | TranscriptSink,
    private readonly redactor: Redactor,
  ) {
    this.#sink = typeof destination === 'string' ? fileSink(destination) : destination;
  }

  async append(kind: string, data: Record<string, unknown>): Promise<void> {
    const line = JSON.stringify({ ts: new Date().toISOString(), kind, ...data });
    await this.#sink.append(`${this.redactor.redact(line)}\n`);
  }
}
