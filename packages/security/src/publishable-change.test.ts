import { describe, expect, it } from 'vitest';
import { ALNUM, seededPick } from './credential-samples.ts';
import { scanPublishableChange } from './publishable-change.ts';
import { isSecretFileName, SECRET_FILE_RULE } from './secret-file-name.ts';
import { SecretScanFailedError, SecretScanner } from './secret-scanner.ts';

const pick = seededPick(777);
const scanner = new SecretScanner();
const slackToken = (): string => `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 12)}-${pick(ALNUM, 24)}`;

describe('scanPublishableChange', () => {
  it('scans every channel and names where each finding is', () => {
    const findings = scanPublishableChange(scanner, {
      branch: `agent/${slackToken()}`,
      commits: [{ sha: 'c1', message: `fix login\n\nused ${slackToken()} to test` }],
      files: [
        { path: `notes/${slackToken()}.txt`, content: 'nothing here\n' },
        { path: 'src/config.ts', content: Buffer.from(`export const t = "${slackToken()}";\n`) },
      ],
      texts: [
        { channel: 'pr-title', text: `Rotate ${slackToken()}` },
        { channel: 'pr-body', text: `Steps:\n1. set ${slackToken()}` },
        { channel: 'review-reply', text: `Done, token ${slackToken()}` },
        { channel: 'slack', text: `ok ${slackToken()}` },
      ],
    });
    expect(findings.map((f) => [f.channel, f.line])).toEqual([
      ['branch', 1],
      ['commit-message', 3],
      ['path', 1],
      ['file', 1],
      ['pr-title', 1],
      ['pr-body', 2],
      ['review-reply', 1],
      ['slack', 1],
    ]);
    expect(new Set(findings.map((f) => f.ruleId))).toEqual(new Set(['slack-bot-token']));
    expect(findings.find((f) => f.channel === 'file')?.where).toBe('src/config.ts');
    expect(findings.find((f) => f.channel === 'commit-message')?.where).toBe('c1');
    expect(JSON.stringify(findings)).not.toMatch(/xoxb-\d{5}/);
  });

  it.each([
    ['.env', true],
    ['services/api/.env.production', true],
    ['deploy/prod.env', true],
    ['.env.example', false],
    ['config/.env.sample', false],
    // direnv's file, written by a check, is refused like every other env file; its documented template is not.
    ['.envrc', true],
    ['services/api/.envrc', true],
    ['src/.envrc.example.md', false],
    ['certs/server.p12', true],
    ['certs/server.pfx', true],
    ['java/truststore.jks', true],
    ['keys/deploy.ppk', true],
    ['home/.ssh/id_rsa', true],
    ['home/.ssh/id_rsa.pub', false],
    ['android/release.keystore', true],
    ['ssh/id_ed25519', true],
    ['ssh/id_ed25519.pub', false],
    ['tls/server.key', true],
    ['home/.netrc', true],
    ['infra/terraform.tfstate', true],
    ['certs/ca.pem', false],
    ['src/environment.ts', false],
  ])('refuses %s by name: %s', (file, refused) => {
    expect(isSecretFileName(file)).toBe(refused);
    const findings = scanPublishableChange(scanner, { files: [{ path: file, content: 'A=1\n' }] });
    expect(findings.some((f) => f.ruleId === SECRET_FILE_RULE && f.channel === 'path' && f.where === file)).toBe(
      refused,
    );
  });

  it('fails closed when it runs out of time', () => {
    const files = Array.from({ length: 3 }, (_, i) => ({ path: `f${i}.txt`, content: 'x\n' }));
    expect(() => scanPublishableChange(scanner, { files }, { budgetMs: -1 })).toThrow(SecretScanFailedError);
  });
});
