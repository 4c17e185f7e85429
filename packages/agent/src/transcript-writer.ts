import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Redactor } from '@pullwright/security';

/**
 * Append-only JSONL record of one operation's model conversation: every request summary,
 * response, tool call and result, redacted before it touches the disk.
 */
export class TranscriptWriter {
  #ready: Promise<unknown> | undefined;

  constructor(
    readonly file: string,
    private readonly redactor: Redactor,
  ) {}

  async append(kind: string, data: Record<string, unknown>): Promise<void> {
    this.#ready ??= mkdir(path.dirname(this.file), { recursive: true });
    await this.#ready;
    const line = JSON.stringify({ ts: new Date().toISOString(), kind, ...data });
    await appendFile(this.file, `${this.redactor.redact(line)}\n`);
  }
}
