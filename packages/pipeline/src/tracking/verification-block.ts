import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Operation } from '@pullwright/core';
import { z } from 'zod';

/** What the service vouches for on a PR: which commits, which commands with which results. */
export const VerificationBlock = z.object({
  v: z.literal(1),
  operation: z.string(),
  repo: z.string(),
  baseSha: z.string(),
  headSha: z.string(),
  checks: z.array(
    z.object({
      name: z.string(),
      command: z.string(),
      exitCode: z.number().nullable(),
      durationMs: z.number(),
      passed: z.boolean(),
    }),
  ),
  secretScan: z.object({ passed: z.boolean(), findings: z.number().int().nonnegative() }),
  /** How the head's commits were published: signed by the forge (its API), or pushed unsigned and why. */
  commits: z.object({ signature: z.enum(['forge', 'unsigned']), reason: z.string().optional() }).optional(),
});
export type VerificationBlock = z.infer<typeof VerificationBlock>;

interface VerificationResult {
  valid: boolean;
  block?: VerificationBlock;
  /** Why the block is not valid (absent, malformed, signature mismatch). */
  reason?: string;
}

const OPEN = '<!-- pullwright-verification v1';
const CLOSE = '-->';
const SIG_PREFIX = 'hmac-sha256:';

/** The block for an operation as it stands (checks and secret scan of its last verification). */
export function verificationBlockOf(op: Operation, headSha: string): VerificationBlock {
  return {
    v: 1,
    operation: op.id,
    repo: op.repo,
    baseSha: op.baseSha ?? '',
    headSha,
    checks: op.checks.map((c) => ({
      name: c.name,
      command: c.command,
      exitCode: c.exitCode,
      durationMs: c.durationMs,
      passed: c.passed,
    })),
    secretScan: { passed: op.findings.length === 0, findings: op.findings.length },
    ...(op.commitSignature
      ? {
          commits: {
            signature: op.commitSignature.state,
            ...(op.commitSignature.reason ? { reason: op.commitSignature.reason } : {}),
          },
        }
      : {}),
  };
}

/**
 * JSON that cannot end the HTML comment it sits in: `<` and `>` only occur inside strings
 * in JSON, where the \u escapes mean the same.
 */
function commentSafeJson(block: VerificationBlock): string {
  return JSON.stringify(VerificationBlock.parse(block)).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

function mac(json: string, key: string): string {
  return createHmac('sha256', key).update(json, 'utf8').digest('hex');
}

/**
 * The block as an HTML comment for the end of a PR body (invisible when rendered). The
 * signature covers the exact JSON line, so verification needs no canonical form.
 */
export function signVerification(block: VerificationBlock, key: string): string {
  const json = commentSafeJson(block);
  return `${OPEN}\n${json}\n${SIG_PREFIX}${mac(json, key)}\n${CLOSE}`;
}

/**
 * Checks the last verification block in a PR body. Anyone who can edit the PR can change
 * the body, so only a block whose HMAC matches is worth believing.
 */
export function verifyVerification(body: string, key: string): VerificationResult {
  const start = body.lastIndexOf(OPEN);
  if (start < 0) return { valid: false, reason: 'no verification block in the pull request body' };
  const end = body.indexOf(CLOSE, start + OPEN.length);
  if (end < 0) return { valid: false, reason: 'the verification block is not closed' };
  const lines = body
    .slice(start + OPEN.length, end)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const [json, sigLine] = lines;
  if (lines.length !== 2 || !json || !sigLine?.startsWith(SIG_PREFIX))
    return { valid: false, reason: 'the verification block is malformed' };
  let block: VerificationBlock;
  try {
    const parsed = VerificationBlock.safeParse(JSON.parse(json));
    if (!parsed.success) return { valid: false, reason: 'the verification block is malformed' };
    block = parsed.data;
  } catch {
    return { valid: false, reason: 'the verification block is not JSON' };
  }
  const expected = Buffer.from(mac(json, key), 'hex');
  const given = Buffer.from(sigLine.slice(SIG_PREFIX.length), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { valid: false, block, reason: 'signature mismatch: the block was changed or signed with another key' };
  return { valid: true, block };
}
