import { describe, expect, it } from 'vitest';
import { signVerification, type VerificationBlock, verifyVerification } from './verification-block.ts';

const KEY = 'k'.repeat(32);
const block: VerificationBlock = {
  v: 1,
  operation: 'op1',
  repo: 'acme/app',
  baseSha: 'a'.repeat(40),
  headSha: 'b'.repeat(40),
  checks: [{ name: 'test', command: 'npm test --> x', exitCode: 0, durationMs: 812, passed: true }],
  secretScan: { passed: true, findings: 0 },
};
const body = `## Summary\nfixed\n\n${signVerification(block, KEY)}`;

describe('verification block', () => {
  it('verifies a block it signed, and returns its content', () => {
    expect(verifyVerification(body, KEY)).toEqual({ valid: true, block });
  });

  it('keeps a command containing "-->" inside the comment', () => {
    const comment = signVerification(block, KEY);
    expect(comment.indexOf('-->')).toBe(comment.length - 3);
  });

  it.each([
    ['a changed head sha', body.replace('b'.repeat(40), 'c'.repeat(40))],
    ['a changed exit code', body.replace('"exitCode":0', '"exitCode":1')],
    ['a changed signature', body.replace(/hmac-sha256:([0-9a-f])/, (_m, c) => `hmac-sha256:${c === '0' ? '1' : '0'}`)],
    ['a truncated signature', body.replace(/(hmac-sha256:[0-9a-f]{10})[0-9a-f]+/, '$1')],
  ])('rejects %s', (_name, tampered) => {
    const result = verifyVerification(tampered, KEY);
    expect(result.valid).toBe(false);
    expect(result.reason).toMatch(/signature mismatch|malformed/);
  });

  it('rejects the right block under another key', () => {
    expect(verifyVerification(body, 'x'.repeat(32))).toMatchObject({ valid: false, reason: /signature mismatch/ });
  });

  it.each([
    ['no block', '## Summary'],
    ['an unclosed block', '<!-- pullwright-verification v1\n{}\nhmac-sha256:00'],
    ['not JSON', '<!-- pullwright-verification v1\n{nope\nhmac-sha256:00\n-->'],
    ['a block without a signature', `<!-- pullwright-verification v1\n${JSON.stringify(block)}\n-->`],
  ])('reports %s as invalid', (_name, text) => {
    expect(verifyVerification(text, KEY).valid).toBe(false);
  });

  it('checks the last block: an earlier forged one in quoted text does not count', () => {
    const forged = signVerification({ ...block, headSha: 'd'.repeat(40) }, 'attacker-key-0000000');
    expect(verifyVerification(`${forged}\n\n${body}`, KEY).valid).toBe(true);
    expect(verifyVerification(`${body}\n\n${forged}`, KEY).valid).toBe(false);
  });
});
