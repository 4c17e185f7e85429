import { describe, expect, it } from 'vitest';
import { ApproveBody } from './request-schemas.ts';

describe('ApproveBody', () => {
  const sha1 = 'a'.repeat(40);
  const sha256 = 'b'.repeat(64);
  it.each([
    ['a SHA-1 head', { headSha: sha1 }, true],
    ['a SHA-256 head', { headSha: sha256 }, true],
    ['no head (the current one)', {}, true],
    ['an abbreviated head', { headSha: sha1.slice(0, 7) }, false],
    ['41 characters', { headSha: `${sha1}a` }, false],
    ['upper case', { headSha: sha1.toUpperCase() }, false],
  ])('%s → %s', (_what, body, ok) => {
    const parsed = ApproveBody.safeParse(body);
    expect(parsed.success).toBe(ok);
    if (!parsed.success) expect(parsed.error.issues[0]?.message).toMatch(/full head commit sha/);
  });
});
