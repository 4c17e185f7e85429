import { randomBytes } from 'node:crypto';
import { Redactor } from '@pullwright/security';
import { describe, expect, it } from 'vitest';
import { dashboardDiff } from './dashboard-diff.ts';

const redactor = new Redactor({ secrets: ['hunter2-secret-value'] });

describe('dashboardDiff', () => {
  it('shows the names git quotes decoded, as the secret scan and the risk read them', () => {
    const [file] = dashboardDiff(
      [
        'diff --git "a/sp\\303\\251cial" "b/sp\\303\\251cial"',
        '--- "a/sp\\303\\251cial"',
        '+++ "b/sp\\303\\251cial"',
        '@@ -1 +1,2 @@',
        ' x',
        '+y',
      ].join('\n'),
      redactor,
    );
    expect([file!.path, file!.status, file!.additions]).toEqual(['spécial', 'modified', 1]);
  });

  it('caps the lines kept per file but still counts them all', () => {
    const body = Array.from({ length: 50 }, (_, i) => `+line ${i}`);
    const [file] = dashboardDiff(['diff --git a/big b/big', '@@ -0,0 +1,50 @@', ...body].join('\n'), redactor, 10);
    expect(file!.lines).toHaveLength(10);
    expect(file!.truncated).toBe(true);
    expect(file!.additions).toBe(50);
  });

  it('masks secrets in lines and names, keeping the lines aligned', () => {
    const [file] = dashboardDiff(
      ['--- a/x', '+++ b/x', '@@ -1 +1,2 @@', ' keep', '+token = hunter2-secret-value'].join('\n'),
      redactor,
    );
    expect(file!.lines.map((l) => [l.kind, l.new, l.text])).toEqual([
      ['hunk', null, '@@ -1 +1,2 @@'],
      ['context', 1, 'keep'],
      ['add', 2, 'token = [redacted…ue]'],
    ]);
  });

  it('withholds a file whose secret spans lines rather than showing it half-masked', () => {
    const body = randomBytes(192)
      .toString('base64')
      .match(/.{1,64}/g)!;
    const pem = ['-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----'];
    const hunk = `@@ -0,0 +1,${pem.length} @@`;
    const [file] = dashboardDiff(['--- a/k', '+++ b/k', hunk, ...pem.map((l) => `+${l}`)].join('\n'), redactor);
    for (const line of body) expect(JSON.stringify(file)).not.toContain(line);
    expect(file!.lines.map((l) => l.kind)).toEqual(['note']);
    expect(file!.additions).toBe(pem.length);
  });

  it('returns no files for an empty diff', () => {
    expect(dashboardDiff('', redactor)).toEqual([]);
  });
});
