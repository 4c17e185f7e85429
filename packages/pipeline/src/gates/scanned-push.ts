import {
  type OutboundFinding,
  type PublishableChange,
  type SecretScanner,
  scanPublishableChange,
} from '@pullwright/security';
import { listPushContent } from '@pullwright/workspace';

declare const clearedByScan: unique symbol;

/**
 * Proof that the secret scan read exactly what a push of `headSha` over `since` sends and
 * found nothing the push would add. Only `scanPush` makes one, and `publishCommits` takes
 * nothing else: a new way to publish commits (a run, a revision, the merge train's base
 * merge) cannot leave the worktree without passing the same scan.
 */
export interface ScannedPush {
  readonly branch: string;
  readonly headSha: string;
  readonly since: readonly string[];
  readonly [clearedByScan]: true;
}

interface PushScan {
  /** Every finding, with those already on `since` marked pre-existing (they do not block). */
  findings: OutboundFinding[];
  /** Nested repositories the push would add: refused like a protected path. */
  gitlinks: string[];
  /** Present only when nothing blocks: no gitlink, no finding the push adds. */
  clearance?: ScannedPush;
}

/**
 * The secret scan of a push: every new commit's message, every blob its trees add (binary
 * and `-diff` files included, encoded and split secrets decoded and joined), the branch name
 * and any texts that leave with it (`scanPublishableChange`). Throws when the scan cannot
 * answer; the caller refuses the push then (fail closed).
 */
export async function scanPush(
  scanner: SecretScanner,
  dir: string,
  push: { branch: string; headSha: string; since: readonly string[]; texts?: PublishableChange['texts'] },
): Promise<PushScan> {
  const content = await listPushContent(dir, push.headSha, push.since);
  if (content.gitlinks.length > 0) return { findings: [], gitlinks: content.gitlinks };
  const findings = scanPublishableChange(scanner, {
    branch: push.branch,
    commits: content.commits,
    files: content.files,
    ...(push.texts ? { texts: push.texts } : {}),
  });
  if (findings.some((f) => !f.preExisting)) return { findings, gitlinks: [] };
  const clearance = { branch: push.branch, headSha: push.headSha, since: [...push.since] } as unknown as ScannedPush;
  return { findings, gitlinks: [], clearance };
}
