import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseGitleaksConfig } from './gitleaks-config.ts';
import { maskSecret, Redactor } from './redactor.ts';
import { SecretScanner } from './secret-scanner.ts';

// Shapes assembled at run time so no literal credential sits in the repository.
const ghp = `ghp_${'Zq8xW2Lk9v'.repeat(3)}Ab3dEf`;
const slack = `xoxb-${'1234567890'}-${'9876543210123'}-${'Ab3dEf6hIj9kLm2nOp5qRs8t'}`;
const anthropic = `sk-ant-api03-${'Ab3dEf6hIj9kLm2nOp5q'.repeat(5)}AA`;
const jwt = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"u1234567890","n":1}').toString('base64url')}.${'Sg7kQ2vX9pLm4Rt8Wz1yBn6cHd3fJa0e'}`;
const urlPassword = ['Xk9pQ2m', 'Z7vR4tY'].join('');
const apiKey = ['q8Zr2Lk9Xv', '7Tn4Wm1Ps6'].join('');
const signingSecret = ['my-signing', '-secret-value'].join('');
const pem = `-----BEGIN PRIVATE KEY-----\n${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7'.repeat(2)}\n-----END PRIVATE KEY-----`;
const pemLines = randomBytes(192)
  .toString('base64')
  .match(/.{1,64}/g)!;
const wrappedPem = ['-----BEGIN RSA PRIVATE KEY-----', ...pemLines, '-----END RSA PRIVATE KEY-----'].join('\n');

describe('Redactor', () => {
  const redactor = new Redactor({ secrets: [signingSecret, 'short'] });

  it.each<[string, string, string[]]>([
    ['a configured secret', `sig=${signingSecret};`, [signingSecret]],
    ['a GitHub token in a URL', `https://x-access-token:${ghp}@github.com/o/r.git`, [ghp]],
    ['a Slack bot token', `Authorization: Bearer ${slack}`, [slack]],
    ['an Anthropic key in JSON', JSON.stringify({ headers: { 'x-api-key': anthropic } }), [anthropic]],
    ['a JWT', `cookie=${jwt}; Path=/`, [jwt.slice(0, 30)]],
    ['a private key body', pem, ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7']],
    ['every line of a private key wrapped at 64 columns', wrappedPem, pemLines],
    ['a URL password', `redis://default:${urlPassword}@cache:6379`, [urlPassword]],
    ['a generic assignment', `api_key = "${apiKey}"`, [apiKey]],
  ])('masks %s', (_name, input, secrets) => {
    const out = redactor.redact(input);
    for (const s of secrets) expect(out).not.toContain(s);
    expect(out).toContain('[redacted…');
  });

  it.each([
    'operation op_123 moved to running',
    'lock acquired on src/auth.ts (token 42)',
    'const apiKey = process.env.OPENAI_API_KEY;',
    'short value stays: short',
  ])('leaves %j alone', (text) => {
    expect(redactor.redact(text)).toBe(text);
  });

  it('shows only the last two characters of a masked value', () => {
    expect(maskSecret('abcdefgh')).toBe('[redacted…gh]');
    expect(redactor.redact('my-signing-secret-value')).toBe('[redacted…ue]');
  });

  it('masks the longer of two overlapping configured secrets whole', () => {
    const r = new Redactor({ secrets: ['abcdef', 'abcdefghij'] });
    expect(r.redact('x abcdefghij y')).toBe('x [redacted…ij] y');
  });

  it('redacts every string in nested values without mutating them', () => {
    const event = { type: 'log', data: { lines: [`token ${ghp}`, 3], ok: true, nothing: null } };
    const copy = redactor.redactValue(event);
    expect(JSON.stringify(copy)).not.toContain(ghp);
    expect(copy.data.lines[1]).toBe(3);
    expect(copy.data.ok).toBe(true);
    expect(event.data.lines[0]).toContain(ghp);
  });

  it.each([
    ['a space', ' '],
    ['two spaces', '  '],
    ['a line break', '\n'],
  ])('masks every piece of a key split by %s', (_what, gap) => {
    const split = `${anthropic.slice(0, 40)}${gap}${anthropic.slice(40, 80)}${gap}${anthropic.slice(80)}`;
    const out = redactor.redact(`used ${split} today`);
    for (const piece of [anthropic.slice(4, 40), anthropic.slice(40, 80), anthropic.slice(80)]) {
      expect(out).not.toContain(piece);
    }
    expect(out).toMatch(/^used \[redacted…AA\] today$/);
  });

  it('leaves ordinary prose alone', () => {
    const prose = 'Fixed in 4f3a2b1: slugify now trims and joins words with single dashes.';
    expect(redactor.redact(prose)).toBe(prose);
  });

  it('uses the scanner it is given, so team rules redact too', () => {
    const rules = parseGitleaksConfig(`[[rules]]\nid = "acme"\nregex = '''ACME-[0-9]{8}'''\nkeywords = ["acme-"]\n`);
    const r = new Redactor({ scanner: new SecretScanner({ rules }) });
    expect(r.redact('key ACME-12345678 used')).toBe('key [redacted…78] used');
  });
});
