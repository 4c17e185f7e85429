import { PullwrightError } from '@pullwright/core';
import { type OutboundChannel, type OutboundFinding, scanOutbound } from './outbound-scan.ts';
import { SecretScanFailedError, type SecretScanner } from './secret-scanner.ts';

/** Everything one publish sends out, as it will be sent. */
export interface PublishableChange {
  /** The branch name pushed. */
  branch?: string;
  /** Every new commit (not only the head): each message is published. */
  commits?: ReadonlyArray<{ sha: string; message: string }>;
  /**
   * Every blob a new commit's tree adds, with its path; bytes as stored (binary files too).
   * `before`: the content at that path on the commit the change starts from, if any.
   */
  files?: ReadonlyArray<{ path: string; content: Uint8Array | string; before?: Uint8Array | string }>;
  /** PR title and body, and any other text the publish sends. */
  texts?: ReadonlyArray<{ channel: Exclude<OutboundChannel, 'file' | 'path' | 'branch'>; text: string }>;
}

interface PublishScanOptions {
  /** Wall-clock budget for the whole change. Default 60 s. */
  budgetMs?: number;
}

/**
 * Scans what a publish sends, piece by piece, with `scanOutbound`: the branch name, every
 * commit message, every file's name and content (a secret already at that path on the base
 * comes back as `preExisting`), and the texts. Throws SecretScanFailedError when it cannot
 * finish (budget, internal error): the publish gate must then refuse, never read that as
 * "clean".
 */
export function scanPublishableChange(
  scanner: SecretScanner,
  change: PublishableChange,
  options: PublishScanOptions = {},
): OutboundFinding[] {
  const budget = options.budgetMs ?? 60_000;
  const started = performance.now();
  const findings: OutboundFinding[] = [];
  const scan = (piece: Parameters<typeof scanOutbound>[1]): void => {
    if (performance.now() - started > budget) throw new SecretScanFailedError('timeout', `exceeded ${budget} ms`);
    findings.push(...scanOutbound(scanner, piece));
  };
  try {
    if (change.branch !== undefined) scan({ channel: 'branch', where: change.branch, content: change.branch });
    for (const c of change.commits ?? []) scan({ channel: 'commit-message', where: c.sha, content: c.message });
    for (const f of change.files ?? []) {
      // The path is published too (a token as a file name is still a token).
      scan({ channel: 'path', where: f.path, content: f.path });
      scan({
        channel: 'file',
        where: f.path,
        content: f.content,
        ...(f.before === undefined ? {} : { before: f.before }),
      });
    }
    for (const t of change.texts ?? []) scan({ channel: t.channel, where: t.channel, content: t.text });
  } catch (err) {
    if (err instanceof PullwrightError) throw err;
    throw new SecretScanFailedError('internal', err instanceof Error ? err.message : 'unknown error', err);
  }
  return findings;
}
