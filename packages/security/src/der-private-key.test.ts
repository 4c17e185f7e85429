import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DER_PRIVATE_KEY_RULE, deepScan } from './deep-scan.ts';
import { type DerKeyKind, derPrivateKeyKind } from './der-private-key.ts';
import { SecretScanner } from './secret-scanner.ts';

/** Keys are generated for the test (node:crypto, openssl, ssh-keygen): none is stored in the repository. */
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');

function withTemp<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'pw-der-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function pkcs12(): Buffer {
  return withTemp((dir) => {
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'k.pem',
      '-out',
      'c.pem',
      '-days',
      '1',
      '-subj',
      '/CN=t',
    );
    run('pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-out', 'b.p12', '-passout', 'pass:test');
    return readFileSync(path.join(dir, 'b.p12'));
  });
}

function openssh(): Buffer {
  return withTemp((dir) => {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'id')], { stdio: 'pipe' });
    const pem = readFileSync(path.join(dir, 'id'), 'utf8');
    return Buffer.from(
      pem
        .split('\n')
        .filter((l) => !l.startsWith('-----'))
        .join(''),
      'base64',
    );
  });
}

const keys: Array<[string, Buffer, DerKeyKind]> = [
  ['RSA PKCS#1', rsa.privateKey.export({ type: 'pkcs1', format: 'der' }), 'pkcs1'],
  ['RSA PKCS#8', rsa.privateKey.export({ type: 'pkcs8', format: 'der' }), 'pkcs8'],
  [
    'RSA PKCS#8, encrypted',
    rsa.privateKey.export({ type: 'pkcs8', format: 'der', cipher: 'aes-256-cbc', passphrase: 'pw' }),
    'pkcs8-encrypted',
  ],
  ['EC SEC1', ec.privateKey.export({ type: 'sec1', format: 'der' }), 'sec1'],
  ['EC PKCS#8', ec.privateKey.export({ type: 'pkcs8', format: 'der' }), 'pkcs8'],
  ['Ed25519 PKCS#8', ed.privateKey.export({ type: 'pkcs8', format: 'der' }), 'pkcs8'],
  ['PKCS#12 bundle', pkcs12(), 'pkcs12'],
  ['OpenSSH key', openssh(), 'openssh'],
];

describe('derPrivateKeyKind', () => {
  it.each(keys)('recognises %s', (_name, der, kind) => {
    expect(derPrivateKeyKind(der)).toBe(kind);
  });

  it.each<[string, Buffer]>([
    ['an RSA public key', rsa.publicKey.export({ type: 'spki', format: 'der' })],
    ['an EC public key', ec.publicKey.export({ type: 'spki', format: 'der' })],
    ['random bytes', randomBytes(600)],
    ['random bytes behind a SEQUENCE tag', Buffer.concat([Buffer.from([0x30, 0x82, 0x02, 0x54]), randomBytes(596)])],
    [
      'the first 48 bytes of a PKCS#8 key (one PEM line)',
      rsa.privateKey.export({ type: 'pkcs8', format: 'der' }).subarray(0, 48),
    ],
  ])('leaves %s alone', (_name, bytes) => {
    expect(derPrivateKeyKind(bytes)).toBeUndefined();
  });
});

describe('deepScan on unarmoured keys', () => {
  const scanner = new SecretScanner();

  it('finds a binary key file by its bytes', () => {
    const p12 = keys.find(([, , kind]) => kind === 'pkcs12')![1];
    expect(deepScan(scanner, p12, 'dist/signing.bin')).toContainEqual({
      ruleId: DER_PRIVATE_KEY_RULE,
      line: 1,
      preview: '',
      via: 'der',
    });
  });

  it.each(keys)('finds %s base64-encoded in a config value', (_name, der) => {
    const text = `# deploy\nSIGNING_MATERIAL=${der.toString('base64')}\n`;
    const findings = deepScan(scanner, text, 'deploy/.env.ci').filter((f) => f.ruleId === DER_PRIVATE_KEY_RULE);
    expect(findings).toEqual([
      { ruleId: DER_PRIVATE_KEY_RULE, line: 2, preview: expect.stringMatching(/^.{0,4}…$/), via: 'base64' },
    ]);
  });

  it('does not report a PEM key twice', () => {
    const pem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(deepScan(scanner, pem, 'key.txt').map((f) => f.ruleId)).toEqual(['private-key']);
  });
});
