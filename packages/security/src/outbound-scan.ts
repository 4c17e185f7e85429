import { PullwrightError } from '@pullwright/core';
import { type DeepDetection, deepDetect, type SecretEncoding } from './deep-scan.ts';
import type { WordSplit } from './joined-views.ts';
import { Redactor } from './redactor.ts';
import { isSecretFileName, SECRET_FILE_RULE } from './secret-file-name.ts';
import { SecretScanFailedError, type SecretScanner } from './secret-scanner.ts';

/** Where text leaves Pullwright for the forge or Slack. */
export type OutboundChannel =
  | 'file'
  | 'path'
  | 'commit-message'
  | 'branch'
  | 'pr-title'
  | 'pr-body'
  | 'review-reply'
  | 'tracking-comment'
  | 'issue-comment'
  | 'merge-message'
  | 'slack';

/** One piece of outbound text, as it will be sent. */
export interface OutboundText {
  channel: OutboundChannel;
  /** The file path, commit sha, branch, `owner/repo#number` or Slack channel it goes to. */
  where: string;
  /** For `file`, the bytes as stored (binary files too); else the text. */
  content: string | Uint8Array;
  /**
   * For `file`: the content at the same path on the commit the change starts from. A secret
   * it already holds is reported as pre-existing, not refused; one the change adds, moves
   * (another path) or copies (one more occurrence) is refused.
   */
  before?: string | Uint8Array;
}

/** Why a text is refused. Never carries a secret: at most its first 4 characters. */
export interface OutboundFinding {
  channel: OutboundChannel;
  /** `where` of the text, secrets in it masked. */
  where: string;
  ruleId: string;
  /** 1-based; 0 for a finding about a whole file (a refused file name). */
  line: number;
  preview: string;
  via?: SecretEncoding;
  /** Already there before the change (same path, same secret): shown, never refused. */
  preExisting?: true;
}

/** Prose is read with words joined (a key split by a space); a branch or path with segments joined. */
const WORDS: Partial<Record<OutboundChannel, WordSplit>> = {
  path: 'path',
  branch: 'path',
  'commit-message': 'prose',
  'pr-title': 'prose',
  'pr-body': 'prose',
  'review-reply': 'prose',
  'tracking-comment': 'prose',
  'issue-comment': 'prose',
  'merge-message': 'prose',
  slack: 'prose',
};

/** Masks the raw credential shapes in `where` that a finding did not already account for. */
const redactors = new WeakMap<SecretScanner, Redactor>();
function redactorOf(scanner: SecretScanner): Redactor {
  let r = redactors.get(scanner);
  if (!r) {
    r = new Redactor({ scanner });
    redactors.set(scanner, r);
  }
  return r;
}

const key = (d: DeepDetection): string => `${d.ruleId}\0${d.secret}`;

/**
 * `where` as it may be shown: when a path or branch holds a secret (a token, or an encoded
 * one, as a file name, or pieces of one as directories), a segment that holds it becomes
 * `[redacted]` (its extension kept) and so does every other segment long enough to be a
 * piece of it.
 */
function shownWhere(scanner: SecretScanner, where: string): string {
  const holds = (text: string, words?: WordSplit): boolean =>
    deepDetect(scanner, text, '', words ? { words } : {}).length > 0;
  if (!holds(where, 'path')) return redactorOf(scanner).redact(where);
  return where
    .split('/')
    .map((s) => {
      if (holds(s)) return `[redacted]${/\.[A-Za-z0-9]{1,8}$/.exec(s)?.[0] ?? ''}`;
      return s.length >= 8 ? '[redacted]' : s;
    })
    .join('/');
}

/**
 * The one scan every outbound text goes through — file contents and names, commit
 * messages, branch names, PR titles and bodies, review replies, tracking and issue comments,
 * merge messages, Slack messages — with the same rules, decoders and joining (`deepScan`).
 * Throws SecretScanFailedError when it cannot answer: a caller must then refuse, never read
 * that as "clean".
 */
export function scanOutbound(scanner: SecretScanner, piece: OutboundText): OutboundFinding[] {
  try {
    const where = shownWhere(scanner, piece.where);
    const findings: OutboundFinding[] = [];
    const words = WORDS[piece.channel];
    const file = piece.channel === 'file' ? piece.where : '';
    if (piece.channel === 'path' && isSecretFileName(piece.where)) {
      findings.push({ channel: 'path', where, ruleId: SECRET_FILE_RULE, line: 0, preview: '' });
    }
    // Secrets already at this path before the change, by rule and value, with their counts.
    const before = new Map<string, number>();
    if (piece.before !== undefined) {
      for (const d of deepDetect(scanner, piece.before, file)) before.set(key(d), (before.get(key(d)) ?? 0) + 1);
    }
    for (const d of deepDetect(scanner, piece.content, file, words ? { words } : {})) {
      const left = before.get(key(d)) ?? 0;
      if (left > 0) before.set(key(d), left - 1);
      findings.push({
        channel: piece.channel,
        where,
        ruleId: d.ruleId,
        line: d.line,
        preview: d.preview,
        ...(d.via === undefined ? {} : { via: d.via }),
        ...(left > 0 ? { preExisting: true as const } : {}),
      });
    }
    return findings;
  } catch (err) {
    if (err instanceof PullwrightError) throw err;
    // The message of a regex or decoder error names a position, never content.
    throw new SecretScanFailedError('internal', err instanceof Error ? err.message : 'unknown error', err);
  }
}

/** A finding as people see it: rule, place and at most the first 4 characters. */
export function describeOutboundFinding(f: OutboundFinding): string {
  const where = f.channel === 'file' || f.channel === 'path' ? f.where : `${f.channel} ${f.where}`;
  return `${f.ruleId} in ${where}${f.line ? `:${f.line}` : ''}${f.preview ? ` (${f.preview})` : ''}${f.via ? ` [${f.via}]` : ''}`;
}

/** A text was not sent: it holds a secret. The message names rule and place, never the secret. */
export class OutboundSecretError extends PullwrightError<{ channel: OutboundChannel; findings: OutboundFinding[] }> {
  constructor(channel: OutboundChannel, findings: OutboundFinding[]) {
    super(
      'secret_found',
      `${channel} refused: it would publish a secret (${findings.map(describeOutboundFinding).join('; ')}). Nothing was sent; take the secret out of the text.`,
      { channel, findings },
    );
  }
}

/**
 * Refuses an outbound text that holds a secret it did not already hold: throws
 * OutboundSecretError (or SecretScanFailedError when the scan cannot answer).
 */
export function refuseSecrets(scanner: SecretScanner, piece: OutboundText): void {
  const findings = scanOutbound(scanner, piece).filter((f) => !f.preExisting);
  if (findings.length > 0) throw new OutboundSecretError(piece.channel, findings);
}
