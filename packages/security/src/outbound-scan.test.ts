import { describe, expect, it } from 'vitest';
import { sampleSecret } from './credential-samples.ts';
import { OutboundSecretError, refuseSecrets, scanOutbound } from './outbound-scan.ts';
import { SecretScanFailedError, SecretScanner } from './secret-scanner.ts';

const scanner = new SecretScanner();
const token = sampleSecret('github-pat', 5);
const other = sampleSecret('github-pat', 6);
const spaced = `${token.slice(0, 14)} ${token.slice(14)}`;

describe('scanOutbound', () => {
  it.each([
    'commit-message',
    'pr-title',
    'pr-body',
    'review-reply',
    'tracking-comment',
    'issue-comment',
    'merge-message',
    'slack',
  ] as const)('reads %s text with words joined', (channel) => {
    const findings = scanOutbound(scanner, { channel, where: 'acme/api#1', content: `Rotated: ${spaced}.` });
    expect(findings).toEqual([
      { channel, where: 'acme/api#1', ruleId: 'github-pat', line: 1, preview: 'ghp_…', via: 'joined' },
    ]);
  });

  it('reads a branch or path with its segments joined, and shows where masked', () => {
    const where = `agent/${token.slice(0, 20)}/${token.slice(20)}`;
    const findings = scanOutbound(scanner, { channel: 'branch', where, content: where });
    expect(findings.map((f) => [f.ruleId, f.via])).toEqual([['github-pat', 'joined']]);
    expect(findings[0]!.where).not.toContain(token.slice(4, 20));
  });

  it('masks a path whose name is an encoded secret', () => {
    const path = `notes/${Buffer.from(token).toString('base64url')}.txt`;
    const findings = scanOutbound(scanner, { channel: 'path', where: path, content: path });
    expect(findings.map((f) => [f.ruleId, f.via])).toEqual([['github-pat', 'base64']]);
    expect(findings[0]!.where).toBe('notes/[redacted].txt');
  });

  describe('what a change adds', () => {
    const file = (content: string, before?: string) =>
      scanOutbound(scanner, {
        channel: 'file',
        where: 'src/config.ts',
        content,
        ...(before === undefined ? {} : { before }),
      }).map((f) => [f.line, f.preExisting ?? false]);

    it('reports a secret the file already held as pre-existing', () => {
      expect(file(`const a = 1;\nconst t = "${token}";\n`, `const t = "${token}";\n`)).toEqual([[2, true]]);
    });
    it('refuses a secret the change adds beside it', () => {
      expect(file(`const t = "${token}";\nconst u = "${other}";\n`, `const t = "${token}";\n`)).toEqual([
        [1, true],
        [2, false],
      ]);
    });
    it('refuses a second copy of the same secret', () => {
      expect(file(`const t = "${token}";\nconst u = "${token}";\n`, `const t = "${token}";\n`)).toEqual([
        [1, true],
        [2, false],
      ]);
    });
    it('refuses a secret moved to a file that did not hold it', () => {
      expect(file(`const t = "${token}";\n`)).toEqual([[1, false]]);
    });
  });
});

describe('refuseSecrets', () => {
  it('throws a readable error that never holds the secret', () => {
    let error: unknown;
    try {
      refuseSecrets(scanner, { channel: 'tracking-comment', where: 'acme/api#7', content: `ok\n${spaced}` });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutboundSecretError);
    const e = error as OutboundSecretError;
    expect(e.code).toBe('secret_found');
    expect(e.message).toBe(
      'tracking-comment refused: it would publish a secret (github-pat in tracking-comment acme/api#7:2 (ghp_…) [joined]). Nothing was sent; take the secret out of the text.',
    );
    expect(JSON.stringify(e.context)).not.toContain(token.slice(4, 14));
  });

  it('lets a clean text through', () => {
    expect(() =>
      refuseSecrets(scanner, { channel: 'pr-body', where: 'acme/api', content: 'Fixes slugify.' }),
    ).not.toThrow();
  });

  it('fails closed when the scan cannot answer', () => {
    const broken = Object.assign(Object.create(SecretScanner.prototype) as SecretScanner, {
      spans: () => {
        throw new RangeError('regex blew up');
      },
      specific: () => broken,
    });
    expect(() => refuseSecrets(broken, { channel: 'slack', where: 'C1', content: 'hi' })).toThrow(
      SecretScanFailedError,
    );
  });
});
