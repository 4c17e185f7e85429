import { splitSecretSpans } from './deep-scan.ts';
import { SecretScanner } from './secret-scanner.ts';

/**
 * One scrubber for every output channel: logs, transcripts, events, PR bodies, Slack text
 * and error messages. It masks (1) the exact values the process knows are secret (its own
 * tokens and keys) and (2) anything the SecretScanner's rules find — the same credential
 * shapes that block a commit, so there is one list of them to maintain — also when a key is
 * split between words (every piece is masked). Encoded secrets are not decoded here: the
 * outbound scan refuses a text that holds one.
 */

interface RedactorOptions {
  /** Exact values to mask (the process's own API keys, tokens, signing secrets). */
  secrets?: Iterable<string>;
  /** Whose rules define "shaped like a credential"; defaults to the shipped rules. */
  scanner?: SecretScanner;
}

/** Shows only the last 2 characters, so an operator can tell which key it was (seed 003). */
export function maskSecret(value: string): string {
  return `[redacted…${value.slice(-2)}]`;
}

let sharedScanner: SecretScanner | undefined;

export class Redactor {
  readonly #secrets: string[] = [];
  readonly #scanner: SecretScanner;

  constructor(options: RedactorOptions = {}) {
    sharedScanner ??= new SecretScanner();
    this.#scanner = options.scanner ?? sharedScanner;
    for (const s of options.secrets ?? []) this.addSecret(s);
  }

  /** Values shorter than 6 characters are not secrets worth masking and would mangle text. */
  addSecret(value: string): void {
    if (value.length < 6 || this.#secrets.includes(value)) return;
    this.#secrets.push(value);
    // Longest first, so a secret containing another is masked whole.
    this.#secrets.sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(maskSecret(secret));
    }
    const raw = this.#scanner.spans(out);
    const split = splitSecretSpans(this.#scanner, out);
    if (raw.length + split.length === 0) return out;
    const spans = split.length === 0 ? raw : [...raw, ...split].sort((a, b) => a.start - b.start);
    // Overlapping findings (two rules on one token) become one masked range.
    let result = '';
    let cursor = 0;
    let i = 0;
    while (i < spans.length) {
      const start = spans[i]!.start;
      let end = spans[i]!.end;
      while (i + 1 < spans.length && spans[i + 1]!.start < end) end = Math.max(end, spans[++i]!.end);
      i++;
      if (start < cursor) continue;
      result += out.slice(cursor, start) + maskSecret(out.slice(start, end));
      cursor = end;
    }
    return result + out.slice(cursor);
  }

  /** Deep copy with every string redacted: for events and JSON bodies. */
  redactValue<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.redactValue(v);
      return out as T;
    }
    return value;
  }
}
