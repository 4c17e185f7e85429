import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SecretRule } from './secret-rule.ts';
import { SecretScanFailedError, SecretScanner } from './secret-scanner.ts';

/**
 * Credential-shaped strings are generated at run time from a seeded generator, so this file
 * holds no literal secret for other scanners to trip on, and runs are reproducible. The
 * high bits are used: an LCG's low bits cycle quickly and would make low-entropy "tokens".
 */
function generator(seed: number) {
  let state = seed >>> 0;
  return (alphabet: string, length: number): string => {
    let out = '';
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out += alphabet[(state >>> 16) % alphabet.length];
    }
    return out;
  };
}
const rand = generator(20240601);
const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;
const HEX = '0123456789abcdef';
const b64url = (s: string) => Buffer.from(s).toString('base64url');

const pemBody = Array.from({ length: 12 }, () => rand(B64, 64)).join('\n');
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`;
const jwt = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${rand(ALNUM, 12)}","iat":1716000000}`)}.${rand(URLSAFE, 43)}`;

/** [family, rule id, text, secret that must not appear in any finding] */
const truePositives: Array<[string, string, string, string]> = (() => {
  const rows: Array<[string, string, string, string]> = [];
  const add = (family: string, ruleId: string, make: (s: string) => string, secret: string) =>
    rows.push([family, ruleId, make(secret), secret]);
  add('aws', 'aws-access-token', (s) => `const id = "${s}";`, `AKIA${rand(UPPER_NUM, 16)}`);
  add('aws', 'aws-access-token', (s) => `aws_access_key_id=${s}`, `ASIA${rand(UPPER_NUM, 16)}`);
  add('aws', 'aws-secret-access-key', (s) => `aws_secret_access_key = "${s}"`, rand(B64, 40));
  add('github', 'github-pat', (s) => `token: ${s}`, `ghp_${rand(ALNUM, 36)}`);
  add('github', 'github-fine-grained-pat', (s) => `GH_TOKEN=${s}`, `github_pat_${rand(`${ALNUM}_`, 82)}`);
  add('github', 'github-oauth', (s) => `"${s}"`, `gho_${rand(ALNUM, 36)}`);
  add('github', 'github-app-token', (s) => `x-access-token:${s}@github.com`, `ghs_${rand(ALNUM, 36)}`);
  add('github', 'github-refresh-token', (s) => `refresh=${s}`, `ghr_${rand(ALNUM, 36)}`);
  add('gitlab', 'gitlab-pat', (s) => `GITLAB_TOKEN=${s}`, `glpat-${rand(URLSAFE, 20)}`);
  add('gitlab', 'gitlab-pipeline-trigger-token', (s) => `trigger ${s}`, `glptt-${rand(HEX, 40)}`);
  add('gitlab', 'gitlab-runner-token', (s) => `runner: ${s}`, `glrt-${rand(URLSAFE, 20)}`);
  add('gitlab', 'gitlab-deploy-token', (s) => `deploy ${s}`, `gldt-${rand(URLSAFE, 20)}`);
  add(
    'slack',
    'slack-bot-token',
    (s) => `SLACK_BOT_TOKEN=${s}`,
    `xoxb-${rand('0123456789', 11)}-${rand('0123456789', 12)}-${rand(ALNUM, 24)}`,
  );
  add(
    'slack',
    'slack-user-token',
    (s) => `token = '${s}'`,
    `xoxp-${rand('0123456789', 11)}-${rand('0123456789', 11)}-${rand('0123456789', 12)}-${rand(HEX, 32)}`,
  );
  add(
    'slack',
    'slack-app-token',
    (s) => `app ${s}`,
    `xapp-1-A${rand(UPPER_NUM, 10)}-${rand('0123456789', 13)}-${rand(HEX, 64)}`,
  );
  add(
    'slack',
    'slack-webhook-url',
    // The secret is the URL's last segment; the team and channel ids before it are not.
    (s) => `url: "https://hooks.slack.com/services/T${rand(UPPER_NUM, 8)}/B${rand(UPPER_NUM, 10)}/${s}"`,
    rand(ALNUM, 24),
  );
  add('stripe', 'stripe-access-token', (s) => `Stripe(${JSON.stringify(s)})`, `sk_live_${rand(ALNUM, 24)}`);
  add('stripe', 'stripe-access-token', (s) => `STRIPE_KEY=${s}`, `rk_test_${rand(ALNUM, 30)}`);
  add('stripe', 'stripe-webhook-secret', (s) => `endpointSecret = "${s}"`, `whsec_${rand(ALNUM, 32)}`);
  add(
    'openai',
    'openai-api-key',
    (s) => `OPENAI_API_KEY=${s}`,
    `sk-proj-${rand(URLSAFE, 60)}${['T3Blbk', 'FJ'].join('')}${rand(URLSAFE, 60)}`,
  );
  add(
    'openai',
    'openai-api-key',
    (s) => `openai.api_key = "${s}"`,
    `sk-${rand(ALNUM, 20)}${['T3Blbk', 'FJ'].join('')}${rand(ALNUM, 20)}`,
  );
  add('braintrust', 'sk-prefixed-api-key', (s) => `BRAINTRUST_API_KEY=${s}`, `sk-${rand(ALNUM, 48)}`);
  add('anthropic', 'anthropic-api-key', (s) => `ANTHROPIC_API_KEY=${s}`, `sk-ant-api03-${rand(URLSAFE, 93)}AA`);
  add('anthropic', 'anthropic-admin-api-key', (s) => `{"x-api-key": "${s}"}`, `sk-ant-admin01-${rand(URLSAFE, 93)}AA`);
  add('private-key', 'private-key', () => `${pem}\n`, pemBody);
  add('private-key', 'private-key', () => `GITHUB_APP_PRIVATE_KEY="${pem.replaceAll('\n', '\\n')}"`, pemBody);
  add('private-key', 'private-key', () => `log line: ${pem.slice(0, 400)}`, pemBody);
  add('jwt', 'jwt', (s) => `Authorization: Bearer ${s}`, jwt);
  add('generic', 'generic-api-key', (s) => `api_key = "${s}"`, rand(ALNUM, 24));
  add('generic', 'generic-api-key', (s) => `{"password": "${s}"}`, rand(ALNUM, 18));
  add('generic', 'generic-hex-secret', (s) => `client_secret: ${s}`, rand(HEX, 32));
  add('generic', 'generic-api-key', (s) => `export MY_SERVICE_TOKEN=${s}`, rand(ALNUM, 40));
  add('generic', 'url-credentials', (s) => `DATABASE_URL=postgres://app:${s}@db:5432/app`, rand(ALNUM, 16));
  return rows;
})();

/** [family, text]: near misses that must not be reported by any rule. */
const falsePositives: Array<[string, string]> = [
  ['aws', 'const id = "AKIAIOSFODNN7EXAMPLE"; // AWS docs example'],
  ['aws', `const id = "AKIA${'X'.repeat(16)}";`],
  ['aws', `aws_secret_access_key = "\${AWS_SECRET_ACCESS_KEY}"`],
  ['github', `ghp_${'x'.repeat(36)}`],
  ['github', 'const prefix = "ghp_"; // classic tokens start with this'],
  ['gitlab', `glpat-${'x'.repeat(20)}`],
  ['slack', 'SLACK_BOT_TOKEN=xoxb-your-token-here'],
  ['stripe', 'Stripe("pk_live_51HqLyjWDarjtT1zdp7dc")'],
  ['stripe', 'const key = "sk_live_"; // prefix check'],
  ['openai', 'const s = "risk-assessment-matrix-abcdefghijklmnopqrstuvwxyzABCDEFGH";'],
  ['openai', 'sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
  ['anthropic', 'const base = "sk-ant-";'],
  ['private-key', "if (pem.startsWith('-----BEGIN RSA PRIVATE KEY-----')) return 'rsa';"],
  ['private-key', `-----BEGIN PUBLIC KEY-----\n${rand(B64, 64)}\n-----END PUBLIC KEY-----`],
  ['jwt', `const header = "${b64url('{"alg":"none"}')}";`],
  ['generic', 'const apiKey = process.env.OPENAI_API_KEY;'],
  ['generic', 'const accessToken = response.data.accessToken;'],
  ['generic', 'password = "changeme"'],
  ['generic', 'type Keys = keyof typeof config;'],
  ['generic', 'const api_key = "example-api-key-value-1234";'],
  ['generic', 'token_type = "bearer_access_token_kind"'],
  ['generic', 'const primaryKey = "user_id_and_tenant_id_v2";'],
  ['generic', 'apiVersion: "2023-10-16.acacia.preview"'],
  ['generic', 'import { AuthService, TokenStore } from "./services";'],
  ['generic', `password: \${{ secrets.DB_PASSWORD }}`],
  ['url', 'DATABASE_URL=postgres://postgres:postgres@localhost:5432/dev'],
  ['url', `REDIS_URL=redis://:\${REDIS_PASSWORD}@redis:6379`],
  ['url', 'see https://example.com/docs:8080/path@v2'],
];

describe('SecretScanner rules', () => {
  const scanner = new SecretScanner();

  it.each(truePositives)('%s: %s is found', (_family, ruleId, text, secret) => {
    const findings = scanner.scanText(text, 'src/config.ts');
    expect(findings.map((f) => f.ruleId)).toContain(ruleId);
    for (const f of findings) {
      expect(f.file).toBe('src/config.ts');
      expect(f.line).toBe(1);
      expect(f.preview.replace(/…$/, '').length).toBeLessThanOrEqual(4);
      expect(secret.startsWith(f.preview.replace(/…$/, ''))).toBe(true);
      expect(JSON.stringify(f)).not.toContain(secret.slice(4, 12));
    }
  });

  it.each(falsePositives)('%s: %j is not reported', (_family, text) => {
    expect(scanner.scanText(text, 'src/app.ts')).toEqual([]);
  });

  it('covers every rule family the issue names', () => {
    const families = new Set(truePositives.map(([family]) => family));
    for (const f of [
      'aws',
      'github',
      'gitlab',
      'slack',
      'stripe',
      'openai',
      'anthropic',
      'private-key',
      'jwt',
      'generic',
    ]) {
      expect(families.has(f)).toBe(true);
    }
  });

  it('reports a specific rule rather than the generic one for the same secret', () => {
    const token = `ghp_${rand(ALNUM, 36)}`;
    const findings = scanner.scanText(`api_token = "${token}"`, 'a.ts');
    expect(findings.map((f) => f.ruleId)).toEqual(['github-pat']);
  });

  it('reports the line of each secret in a multi-line file', () => {
    const text = [
      '// config',
      `const a = "ghp_${rand(ALNUM, 36)}";`,
      '',
      pem,
      `const b = "sk_live_${rand(ALNUM, 24)}";`,
    ].join('\n');
    const findings = scanner.scanText(text, 'cfg.ts');
    expect(findings.map((f) => [f.ruleId, f.line])).toEqual([
      ['github-pat', 2],
      ['private-key', 4],
      ['stripe-access-token', 18],
    ]);
  });

  it('finds a secret on a megabyte-long minified line', () => {
    const token = `ghp_${rand(ALNUM, 36)}`;
    const line = `${'var a=1;'.repeat(70_000)}var t="${token}";${'var b=2;'.repeat(70_000)}`;
    expect(scanner.scanText(line, 'bundle.min.js').map((f) => f.ruleId)).toEqual(['github-pat']);
  });

  it('stays fast on a file made of thousands of findings', () => {
    const lines = Array.from({ length: 4000 }, (_, i) =>
      // A digit in every value: letters-only values read as identifiers and are allowlisted.
      i % 2 ? `api_key = "${rand(ALNUM, 23)}7"` : `token = "ghp_${rand(ALNUM, 36)}"`,
    );
    const started = performance.now();
    const findings = scanner.scanText(lines.join('\n'), 'dump.txt');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(findings.filter((f) => f.ruleId === 'github-pat')).toHaveLength(2000);
    expect(findings.filter((f) => f.ruleId === 'generic-api-key')).toHaveLength(2000);
  });

  it('does not honour gitleaks:allow comments the model could add itself', () => {
    const findings = scanner.scanText(`const t = "ghp_${rand(ALNUM, 36)}"; // gitleaks:allow`, 'a.ts');
    expect(findings).toHaveLength(1);
  });

  it('finds a value assigned on the line after its name', () => {
    const findings = scanner.scanText(`const settings = {\n  api_key:\n  "${rand(ALNUM, 28)}",\n};`, 'a.ts');
    expect(findings.map((f) => [f.ruleId, f.line])).toEqual([['generic-api-key', 2]]);
  });
});

function gitDiffOf(edit: (dir: string) => Promise<void>, setup: (dir: string) => Promise<void>): Promise<string> {
  return (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pw-scan-'));
    try {
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
          cwd: dir,
          encoding: 'utf8',
        });
      git('init', '-q');
      await setup(dir);
      git('add', '-A');
      git('commit', '-qm', 'base');
      await edit(dir);
      git('add', '-A');
      return git('diff', '--cached');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
}

describe('SecretScanner.scanDiff', () => {
  const scanner = new SecretScanner();

  it('reports only added lines, with new-file line numbers', () => {
    const removed = `ghp_${rand(ALNUM, 36)}`;
    const context = `ghs_${rand(ALNUM, 36)}`;
    const added = `sk_live_${rand(ALNUM, 24)}`;
    const diff = [
      'diff --git a/src/pay.ts b/src/pay.ts',
      'index 1111111..2222222 100644',
      '--- a/src/pay.ts',
      '+++ b/src/pay.ts',
      '@@ -10,4 +10,5 @@ export function pay() {',
      `   const old = "${context}";`,
      `-  const key = "${removed}";`,
      '+  // moved to the vault',
      `+  const key = "${added}";`,
      '   return key;',
      ' }',
      '',
    ].join('\n');
    expect(scanner.scanDiff(diff)).toEqual([
      { ruleId: 'stripe-access-token', file: 'src/pay.ts', line: 12, preview: 'sk_l…' },
    ]);
  });

  it('handles several files, new files, deletions, quoted paths and added lines that look like headers', () => {
    const a = `ghp_${rand(ALNUM, 36)}`;
    const b = `glpat-${rand(URLSAFE, 20)}`;
    const diff = [
      'diff --git a/old.ts b/old.ts',
      'deleted file mode 100644',
      '--- a/old.ts',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      `-const t = "ghr_${rand(ALNUM, 36)}";`,
      'diff --git a/new file.ts b/new file.ts',
      'new file mode 100644',
      '--- /dev/null',
      '+++ "b/new file.ts"',
      '@@ -0,0 +1,3 @@',
      '++++ not a header',
      `+const a = "${a}";`,
      '+diff --git not a header either',
      'diff --git a/ci.yml b/ci.yml',
      '--- a/ci.yml',
      '+++ b/ci.yml',
      '@@ -1,2 +1,3 @@',
      ' env:',
      `+  GITLAB_TOKEN: ${b}`,
      '   other: 1',
      '\\ No newline at end of file',
    ].join('\n');
    expect(scanner.scanDiff(diff).map((f) => [f.file, f.line, f.ruleId])).toEqual([
      ['new file.ts', 2, 'github-pat'],
      ['ci.yml', 2, 'gitlab-pat'],
    ]);
  });

  it('names a file git quotes (octal UTF-8 bytes) as it is called', () => {
    const token = `ghp_${rand(ALNUM, 36)}`;
    const diff = ['--- "a/sp\\303\\251cial"', '+++ "b/sp\\303\\251cial"', '@@ -0,0 +1 @@', `+t = "${token}"`, ''].join(
      '\n',
    );
    expect(scanner.scanDiff(diff).map((f) => f.file)).toEqual(['spécial']);
  });

  it('catches a private key added as a block', () => {
    const lines = pem.split('\n');
    const diff = ['--- a/k', '+++ b/k', `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ''].join('\n');
    expect(scanner.scanDiff(diff).map((f) => [f.ruleId, f.line])).toEqual([['private-key', 1]]);
  });

  it('catches a secret split across two edits in the final diff', async () => {
    const token = `ghp_${rand(ALNUM, 36)}`;
    const firstHalf = token.slice(0, 20);
    const secondHalf = token.slice(20);
    // Each edit on its own is too short to be a token, so a per-edit scan passes both…
    const edit1 = `const value = "${firstHalf}`;
    const edit2 = `${secondHalf}";`;
    expect(scanner.scanText(edit1, 'src/client.ts')).toEqual([]);
    expect(scanner.scanText(edit2, 'src/client.ts')).toEqual([]);
    // …but the file both edits produce is what the commit gate scans.
    const diff = await gitDiffOf(
      async (dir) => {
        await writeFile(path.join(dir, 'client.ts'), `export const a = 1;\n${edit1}`);
        await writeFile(path.join(dir, 'client.ts'), `export const a = 1;\n${edit1}${edit2}\nexport const b = 2;\n`);
      },
      async (dir) => writeFile(path.join(dir, 'client.ts'), 'export const a = 1;\n'),
    );
    expect(scanner.scanDiff(diff)).toEqual([{ ruleId: 'github-pat', file: 'client.ts', line: 2, preview: 'ghp_…' }]);
  });

  it('fails closed with a typed error when the time budget runs out', () => {
    const line = `+const x = "${'a'.repeat(60)}"; // key token secret api access auth`;
    const diff = [
      '--- a/big.ts',
      '+++ b/big.ts',
      '@@ -0,0 +1,20000 @@',
      ...Array.from({ length: 20_000 }, () => line),
      '',
    ].join('\n');
    const err = (() => {
      try {
        new SecretScanner({ diffBudgetMs: 1 }).scanDiff(diff);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(SecretScanFailedError);
    expect((err as SecretScanFailedError).context.reason).toBe('timeout');
    expect((err as SecretScanFailedError).code).toBe('check_failed');
  });

  it.each([
    ['a combined merge diff', '--- a/x\n+++ b/x\n@@@ -1,1 -1,1 +1,2 @@@\n++secret\n'],
    ['a hunk cut short', '--- a/x\n+++ b/x\n@@ -1,2 +1,5 @@\n+one\n'],
    ['a malformed hunk header', '--- a/x\n+++ b/x\n@@ -1 +x @@\n+one\n'],
  ])('fails closed on %s', (_name, diff) => {
    expect(() => scanner.scanDiff(diff)).toThrow(SecretScanFailedError);
  });

  it('fails closed when a rule throws while scanning, without echoing the diff', () => {
    class BrokenRegExp extends RegExp {
      override exec(): RegExpExecArray | null {
        throw new Error('engine failure at offset 3');
      }
    }
    const broken: SecretRule = {
      id: 'broken',
      description: '',
      regex: new BrokenRegExp('x', 'gd'),
      secretGroup: 0,
      entropy: 0,
      keywords: [],
      allowlists: [],
      multiline: false,
    };
    const token = `ghp_${rand(ALNUM, 36)}`;
    const diff = `--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+${token}\n`;
    const s = new SecretScanner({ rules: { rules: [broken], allowlists: [] } });
    expect(() => s.scanDiff(diff)).toThrow(SecretScanFailedError);
    try {
      s.scanDiff(diff);
    } catch (err) {
      expect((err as Error).message).not.toContain(token);
      expect((err as SecretScanFailedError).context.reason).toBe('internal');
    }
  });

  it('returns no findings for an empty diff', () => {
    expect(scanner.scanDiff('')).toEqual([]);
  });
});
