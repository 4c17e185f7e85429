import { describe, expect, it } from 'vitest';
import { ALNUM, seededPick } from './credential-samples.ts';
import { deepScan, printableStrings } from './deep-scan.ts';
import { SecretScanner } from './secret-scanner.ts';
import { crc32Base62Suffix } from './token-checksum.ts';

const pick = seededPick(424242);
const scanner = new SecretScanner();
const githubToken = (): string => {
  const random = pick(ALNUM, 30);
  return `ghp_${random}${crc32Base62Suffix(random)}`;
};

describe('deepScan', () => {
  it('finds a token as it is, with its line', () => {
    const token = githubToken();
    expect(deepScan(scanner, `a\nb\nconst t = "${token}";\n`, 'src/a.ts')).toEqual([
      { ruleId: 'github-pat', line: 3, preview: 'ghp_…' },
    ]);
  });

  it.each([
    ['base64', (s: string) => Buffer.from(`token=${s}`).toString('base64')],
    ['base64url', (s: string) => Buffer.from(`{"t":"${s}"}??`).toString('base64url')],
    ['hex', (s: string) => Buffer.from(`auth ${s}`).toString('hex')],
    ['base64 of hex', (s: string) => Buffer.from(Buffer.from(`auth ${s}`).toString('hex')).toString('base64')],
  ])('decodes a %s run', (_kind, encode) => {
    const token = githubToken();
    const findings = deepScan(scanner, `// fixture\nconst blob = "${encode(token)}";\n`, 'src/a.ts');
    expect(findings).toContainEqual(expect.objectContaining({ ruleId: 'github-pat', line: 2 }));
    expect(findings.every((f) => f.via === 'base64' || f.via === 'hex' || f.ruleId.startsWith('generic'))).toBe(true);
    expect(JSON.stringify(findings)).not.toContain(token.slice(4, 12));
  });

  it.each([
    ['JS concatenation', (a: string, b: string) => `const t =\n  "${a}" +\n  "${b}";`],
    ['Python implicit concatenation', (a: string, b: string) => `T = (\n    "${a}"\n    "${b}"\n)`],
    ['PHP concatenation', (a: string, b: string) => `$t = '${a}' .\n  '${b}';`],
    ['backslash continuation', (a: string, b: string) => `TOKEN="${a}\\\n${b}"`],
    ['YAML block scalar', (a: string, b: string) => `token: |\n  ${a}\n  ${b}\n`],
  ])('joins a token split by %s', (_kind, split) => {
    const token = githubToken();
    const text = `# config\n${split(token.slice(0, 17), token.slice(17))}\n`;
    const line = text.split('\n').findIndex((l) => l.includes(token.slice(0, 17))) + 1;
    expect(scanner.scanText(text, 'src/a.ts').map((f) => f.ruleId)).not.toContain('github-pat');
    expect(deepScan(scanner, text, 'src/a.ts').filter((f) => f.ruleId === 'github-pat')).toEqual([
      { ruleId: 'github-pat', line, preview: 'ghp_…', via: 'joined' },
    ]);
  });

  it('does not read two unrelated lines as one assignment', () => {
    const text = `password = 'a'\n${pick(ALNUM, 40)}\nconst x = 1;\n`;
    expect(deepScan(scanner, text, 'src/a.ts')).toEqual([]);
  });

  it('scans the printable strings of a binary file', () => {
    const token = githubToken();
    const bytes = Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0]), Buffer.from(`key=${token}`), Buffer.from([0, 7, 0])]);
    expect(printableStrings(bytes)).toBe(`key=${token}`);
    expect(deepScan(scanner, bytes, 'dist/app.bin')).toEqual([
      { ruleId: 'github-pat', line: 1, preview: 'ghp_…', via: 'strings' },
    ]);
  });

  it('leaves ordinary encoded data alone', () => {
    const png = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)).toString('base64');
    const sha = '5e2f7c1a9b3d8e6f0a4c2b7d9e1f3a5c7b9d0e2f';
    const text = `<img src="data:image/png;base64,${png}">\ncommit ${sha}\nconst id = "${Buffer.from('hello, world and friends').toString('base64')}";\n`;
    expect(deepScan(scanner, text, 'web/index.html')).toEqual([]);
  });
});
