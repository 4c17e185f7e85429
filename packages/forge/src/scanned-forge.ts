import { type Logger, silentLogger } from '@pullwright/core';
import { type OutboundText, refuseSecrets, type SecretScanner } from '@pullwright/security';
import type { Forge } from './forge.ts';

/**
 * For every member of the Forge interface, the texts a call publishes (channel, where,
 * text), or null when it publishes none. A mapped type over `keyof Forge`: a method added to
 * the interface does not compile until it is listed here, so no channel can skip the scan.
 */
type OutboundOf = {
  [K in keyof Forge]-?: NonNullable<Forge[K]> extends (...args: infer A) => unknown
    ? ((...args: A) => OutboundText[]) | null
    : null;
};

const OUTBOUND: OutboundOf = {
  name: null,
  cloneUrl: null,
  repositoryExists: null,
  gitAuth: null,
  revokeToken: null,
  openPullRequest: (req) => [
    { channel: 'branch', where: req.repo, content: req.head },
    { channel: 'pr-title', where: req.repo, content: req.title },
    { channel: 'pr-body', where: req.repo, content: req.body },
  ],
  findOpenPullRequest: null,
  getPullRequest: null,
  mergePullRequest: (repo, number, options) => [
    { channel: 'merge-message', where: `${repo}#${number}`, content: options.message },
  ],
  closePullRequest: null,
  updatePullRequestBody: (repo, number, body) => [{ channel: 'pr-body', where: `${repo}#${number}`, content: body }],
  pullRequestDiff: null,
  upsertTrackingComment: (repo, number, body) => [
    { channel: 'tracking-comment', where: `${repo}#${number}`, content: body },
  ],
  listReviewComments: null,
  replyToReviewComment: (repo, number, _commentId, body) => [
    { channel: 'review-reply', where: `${repo}#${number}`, content: body },
  ],
  botLogin: null,
  addReaction: null,
  commentOnIssue: (repo, number, body) => [{ channel: 'issue-comment', where: `${repo}#${number}`, content: body }],
  listCheckRuns: null,
  checkRunDetails: null,
  hasWriteAccess: null,
  readFile: null,
  // The files were scanned by the publish gate (pre-existing secrets told apart there); the texts again here.
  createCommits: (repo, upload) => [
    { channel: 'branch', where: repo, content: upload.branch },
    ...upload.commits.map((c) => ({ channel: 'commit-message' as const, where: c.sha, content: c.message })),
  ],
};

/**
 * The forge with every text it would publish (PR title, body and head branch, tracking
 * comment, review replies, issue comments, merge message) scanned first by the one outbound
 * scan: a text holding a secret is not sent, and the call fails with OutboundSecretError
 * naming the rule and where (never the secret). The narrowest chokepoint: whatever job,
 * handler or step writes to the forge, it writes through here. Methods outside the Forge
 * interface (LocalForge's own) and `instanceof` pass through.
 */
export function scannedForge<F extends Forge>(forge: F, scanner: SecretScanner, logger: Logger = silentLogger()): F {
  return new Proxy(forge, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      // Bound to the forge itself: its methods read private fields, which a proxy does not have.
      const bound = value.bind(target) as (...args: unknown[]) => unknown;
      const outbound = typeof prop === 'string' ? (OUTBOUND as Record<string, unknown>)[prop] : undefined;
      if (typeof outbound !== 'function') return bound;
      return async (...args: unknown[]) => {
        for (const piece of (outbound as (...a: unknown[]) => OutboundText[])(...args)) {
          try {
            refuseSecrets(scanner, piece);
          } catch (err) {
            logger.warn({ channel: piece.channel, err: (err as Error).message }, 'outbound text refused');
            throw err;
          }
        }
        return bound(...args);
      };
    },
  });
}
