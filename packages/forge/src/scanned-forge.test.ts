import { OutboundSecretError, SecretScanner } from '@pullwright/security';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { describe, expect, it } from 'vitest';
import type { Forge } from './forge.ts';
import { scannedForge } from './scanned-forge.ts';

const token = sampleSecret('slack-bot-token', 41);
/** The token split by one space: what a redactor, which masks whole shapes, lets through. */
const spaced = `${token.slice(0, 16)} ${token.slice(16)}`;

/** Records what reaches it; private state, as GitHubForge has, so the proxy must bind calls to it. */
class RecordingForge {
  readonly name = 'recording';
  readonly #sent: unknown[][] = [];
  get sent(): unknown[][] {
    return this.#sent;
  }
  #record = async (...args: unknown[]) => {
    this.#sent.push(args);
    return { number: 1 };
  };
  openPullRequest = this.#record;
  updatePullRequestBody = this.#record;
  upsertTrackingComment = this.#record;
  replyToReviewComment = this.#record;
  commentOnIssue = this.#record;
  mergePullRequest = this.#record;
  closePullRequest = this.#record;
  cloneUrl(repo: string): string {
    return `file:///forge/${repo}.git`;
  }
}

type Call = (f: Forge, text: string) => Promise<unknown>;
const CALLS: Array<[string, Call]> = [
  ['PR title', (f, t) => f.openPullRequest({ repo: 'acme/api', head: 'agent/x', base: 'main', title: t, body: '' })],
  ['PR body', (f, t) => f.openPullRequest({ repo: 'acme/api', head: 'agent/x', base: 'main', title: 'x', body: t })],
  ['PR head branch', (f, t) => f.openPullRequest({ repo: 'acme/api', head: t, base: 'main', title: 'x', body: '' })],
  ['PR body update', (f, t) => f.updatePullRequestBody('acme/api', 1, t)],
  ['tracking comment', (f, t) => f.upsertTrackingComment('acme/api', 1, t)],
  ['review reply', (f, t) => f.replyToReviewComment('acme/api', 1, 9, t)],
  ['issue comment', (f, t) => f.commentOnIssue('acme/api', 1, t)],
  ['merge message', (f, t) => f.mergePullRequest('acme/api', 1, { expectedHeadSha: 'abc', message: t })],
];

describe('scannedForge', () => {
  const scanner = new SecretScanner();

  it.each(CALLS)('refuses a %s that holds a secret, and sends nothing', async (_what, call) => {
    for (const text of [`see ${token}`, `see ${spaced}`, `see ${Buffer.from(token).toString('base64')}`]) {
      const inner = new RecordingForge();
      const forge = scannedForge(inner as unknown as Forge, scanner);
      await expect(call(forge, text)).rejects.toThrow(OutboundSecretError);
      expect(inner.sent).toEqual([]);
    }
  });

  it.each(CALLS)('sends a clean %s as it is', async (_what, call) => {
    const inner = new RecordingForge();
    const forge = scannedForge(inner as unknown as Forge, scanner);
    await call(forge, 'agent/fix-slugify');
    expect(inner.sent).toHaveLength(1);
  });

  it('passes other calls through and keeps instanceof', async () => {
    const inner = new RecordingForge();
    const forge = scannedForge(inner as unknown as Forge, scanner);
    expect(forge).toBeInstanceOf(RecordingForge);
    expect(forge.cloneUrl('acme/api')).toBe('file:///forge/acme/api.git');
    await forge.closePullRequest('acme/api', 1);
    expect(inner.sent).toEqual([['acme/api', 1]]);
  });
});
