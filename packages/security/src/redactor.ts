/**
 * One scrubber for every output channel: logs, transcripts, events, PR bodies, Slack text
 * and error messages. It masks (1) the exact values the process knows are secret (its own
 * tokens and keys) and (2) anything shaped like a well-known credential.
 */

/** Shapes of credentials that must never be echoed, whoever they belong to. */
export const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-ant-[A-Za-z0-9_-]{20,}\b/g,
  /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}\b/g,
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g,
  // user:password@ in URLs (redis://, postgres://, https://)
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^:/\s@]*:)[^@\s/]{3,}(?=@)/gi,
];

export interface RedactorOptions {
  /** Exact values to mask (the process's own API keys, tokens, signing secrets). */
  secrets?: Iterable<string>;
}

/** Shows only the last 2 characters, so an operator can tell which key it was. */
export function maskSecret(value: string): string {
  return `[redacted…${value.slice(-2)}]`;
}

export class Redactor {
  readonly #secrets: string[] = [];

  constructor(options: RedactorOptions = {}) {
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
    for (const pattern of CREDENTIAL_PATTERNS) {
      out = out.replace(pattern, (m) => maskSecret(m));
    }
    return out;
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
