import { PullwrightError } from '@pullwright/core';
import { deepScan, type SecretEncoding } from './deep-scan.ts';
import { Redactor } from './redactor.ts';
import { isSecretFileName } from './secret-file-name.ts';
import { SecretScanFailedError, type SecretScanner } from './secret-scanner.ts';

/** Where text reaches the forge (or Slack) from a publish. */
export type PublishChannel =
  | 'file'
  | 'path'
  | 'commit-message'
  | 'branch'
  | 'pr-title'
  | 'pr-body'
  | 'comment'
  | 'slack';

/** Everything one publish sends out, as it will be sent. */
export interface PublishableChange {
  /** The branch name pushed. */
  branch?: string;
  /** Every new commit (not only the head): each message is published. */
  commits?: ReadonlyArray<{ sha: string; message: string }>;
  /** Every blob a new commit's tree adds, with its path; bytes as stored (binary files too). */
  files?: ReadonlyArray<{ path: string; content: Uint8Array | string }>;
  /** PR title and body, review replies, the tracking comment, Slack text. */
  texts?: ReadonlyArray<{ channel: 'pr-title' | 'pr-body' | 'comment' | 'slack'; text: string }>;
}

/** A reason to refuse the publish. Never carries a secret: at most its first 4 characters. */
export interface PublishFinding {
  channel: PublishChannel;
  /** The file path, commit sha, branch or channel name the finding is in, secrets in it masked. */
  where: string;
  ruleId: string;
  /** 1-based; 0 for a finding about a whole file (a refused file name). */
  line: number;
  preview: string;
  via?: SecretEncoding;
}

export interface PublishScanOptions {
  /** Wall-clock budget for the whole change. Default 60 s. */
  budgetMs?: number;
}

/** The rule id of a file refused by its name (`.env`, `id_rsa`, `*.p12`…). */
export const SECRET_FILE_RULE = 'secret-file';

/**
 * Scans what a publish sends, channel by channel, with `deepScan` (decoded base64/hex runs,
 * strings joined over lines, printable strings of binary files) and refuses secret files by
 * name. Throws SecretScanFailedError when it cannot finish (budget, internal error): the
 * publish gate must then refuse, never read that as "clean".
 */
export function scanPublishableChange(
  scanner: SecretScanner,
  change: PublishableChange,
  options: PublishScanOptions = {},
): PublishFinding[] {
  const budget = options.budgetMs ?? 60_000;
  const started = performance.now();
  const findings: PublishFinding[] = [];
  // A branch name or path can itself hold the secret: `where` is shown masked.
  const redactor = new Redactor({ scanner });
  const scan = (channel: PublishChannel, where: string, content: string | Uint8Array, file = ''): void => {
    if (performance.now() - started > budget) {
      throw new SecretScanFailedError('timeout', `exceeded ${budget} ms`);
    }
    for (const f of deepScan(scanner, content, file)) findings.push({ channel, where: redactor.redact(where), ...f });
  };
  try {
    if (change.branch !== undefined) scan('branch', change.branch, change.branch);
    for (const c of change.commits ?? []) scan('commit-message', c.sha, c.message);
    for (const f of change.files ?? []) {
      if (isSecretFileName(f.path)) {
        findings.push({
          channel: 'path',
          where: redactor.redact(f.path),
          ruleId: SECRET_FILE_RULE,
          line: 0,
          preview: '',
        });
      }
      // The path is published too (a token as a file name is still a token).
      scan('path', f.path, f.path);
      scan('file', f.path, f.content, f.path);
    }
    for (const t of change.texts ?? []) scan(t.channel, t.channel, t.text);
  } catch (err) {
    if (err instanceof PullwrightError) throw err;
    throw new SecretScanFailedError('internal', err instanceof Error ? err.message : 'unknown error', err);
  }
  return findings;
}
