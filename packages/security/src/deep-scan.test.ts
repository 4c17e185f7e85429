import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { printableStrings } from './content-texts.ts';
import { ALNUM, seededPick } from './credential-samples.ts';
import { deepScan } from './deep-scan.ts';
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

  const halves = (t: string): [string, string] => [t.slice(0, 17), t.slice(17)];
  const thirds = (t: string): [string, string, string] => [t.slice(0, 10), t.slice(10, 24), t.slice(24)];
  const wrapAt = (s: string, width: number, prefix = ''): string =>
    s
      .match(new RegExp(`.{1,${width}}`, 'g'))!
      .map((l) => `${prefix}${l}`)
      .join('\n');
  const percent = (t: string): string => [...t].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

  it.each([
    ['same-line concatenation', (t: string) => `const t = "${halves(t)[0]}" + "${halves(t)[1]}";`],
    ['same-line implicit concatenation', (t: string) => `T = "${halves(t)[0]}" "${halves(t)[1]}"`],
    ['three pieces', (t: string) => `const t = '${thirds(t).join("' + '")}';`],
    ['two neutral variables', (t: string) => `const a = "${halves(t)[0]}";\nconst b = "${halves(t)[1]}";\nuse(a + b);`],
    ['an array joined', (t: string) => `const t = ["${thirds(t).join('", "')}"].join("");`],
    ['a template of literals', (t: string) => `const t = \`\${"${halves(t)[0]}"}\${"${halves(t)[1]}"}\`;`],
    ['// comment lines', (t: string) => `// deploy key:\n${wrapAt(t, 12, '// ')}\nrun();`],
    ['# comment lines', (t: string) => `# deploy key:\n${wrapAt(t, 12, '# ')}\nrun()`],
    ['a block comment', (t: string) => `/**\n * key:\n${wrapAt(t, 12, ' * ')}\n */`],
    ['wrapped base64', (t: string) => `blob: |\n${wrapAt(Buffer.from(`token=${t}`).toString('base64'), 16, '  ')}`],
    [
      'base64 split over concatenated lines',
      (t: string) => {
        const b = Buffer.from(`token=${t}`).toString('base64');
        return `const b = "${b.slice(0, 20)}" +\n  "${b.slice(20)}";`;
      },
    ],
    ['wrapped hex', (t: string) => `data = (\n${wrapAt(Buffer.from(`auth ${t}`).toString('hex'), 32)}\n)`],
    [
      'hex in two variables',
      (t: string) => {
        const h = Buffer.from(`auth ${t}`).toString('hex');
        return `x1 = '${h.slice(0, 30)}'\nx2 = '${h.slice(30)}'`;
      },
    ],
    ['percent-encoding', (t: string) => `url = "https://x.test/?q=${percent(t)}"`],
    ['base64 of gzip', (t: string) => `payload = "${gzipSync(`token=${t}`).toString('base64')}"`],
  ])('finds a token hidden by %s', (_kind, hide) => {
    const token = githubToken();
    const findings = deepScan(scanner, hide(token), 'src/a.ts');
    expect(findings.map((f) => f.ruleId)).toContain('github-pat');
    expect(JSON.stringify(findings)).not.toContain(token.slice(4, 12));
  });

  const utf16le = (s: string): Buffer => Buffer.from(s, 'utf16le');
  it.each([
    ['UTF-16LE with a byte-order mark', (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(s)]), 'utf16'],
    ['UTF-16LE without one', utf16le, 'utf16'],
    ['UTF-16BE', (s: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), utf16le(s).swap16()]), 'utf16'],
    ['gzip', (s: string) => gzipSync(s), 'gzip'],
    ['gzip of UTF-16', (s: string) => gzipSync(utf16le(s)), 'gzip'],
    [
      'binary with UTF-16 strings',
      (s: string) => {
        const noise = Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 37) % 256));
        return Buffer.concat([noise, Buffer.from([7]), utf16le(s), noise]);
      },
      'strings',
    ],
  ])('reads a %s file', (_kind, encode, via) => {
    const token = githubToken();
    const findings = deepScan(scanner, encode(`report\ntoken=${token}\n`), 'out/report.bin');
    expect(findings).toContainEqual(expect.objectContaining({ ruleId: 'github-pat', via }));
  });

  it('joins words split by spaces when asked (prose), never in code', () => {
    const token = githubToken();
    const prose = `Use ${token.slice(0, 9)} ${token.slice(9, 20)} ${token.slice(20)} to log in.`;
    expect(deepScan(scanner, prose, '')).toEqual([]);
    expect(deepScan(scanner, prose, '', { words: 'prose' })).toEqual([
      { ruleId: 'github-pat', line: 1, preview: 'ghp_…', via: 'joined' },
    ]);
  });

  it('does not join a prefix with the names beside it in a table', () => {
    const text = [
      "bare('gitlab-pat', 'gitlab', 'glpat-', r(URLSAFE, 20));",
      "bare('gitlab-runner-token', 'gitlab', 'glrt-', r(URLSAFE, 20));",
      'keywords = ["glpat-"]',
      'id = "gitlab-pipeline-trigger-token"',
    ].join('\n');
    expect(deepScan(scanner, text, 'src/samples.ts')).toEqual([]);
  });

  it('does not decode an ordinary URL with an escape or two', () => {
    expect(deepScan(scanner, 'see https://example.test/a%20b/c%2Fd?x=1', 'README.md')).toEqual([]);
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
