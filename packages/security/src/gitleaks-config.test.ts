import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from './default-rules.ts';
import { GitleaksConfigError, loadGitleaksConfigFile, parseGitleaksConfig } from './gitleaks-config.ts';
import { translateGoRegex } from './go-regex.ts';
import { SecretScanner } from './secret-scanner.ts';

// Credential-shaped values are joined at run time: no literal one sits in the repository.
const TOKEN_VALUE = ['q8zr2lk9xv7t', 'n4wm1ps6ab3d'].join('');

const compile = (re2: string) => {
  const { source, flags } = translateGoRegex(re2);
  return new RegExp(source, flags);
};

describe('translateGoRegex', () => {
  it.each<[string, string, boolean]>([
    ['(?i)secret', 'SeCrEt', true],
    ['(?i)[a-f]{2}', 'Ab', true],
    ['(?-i:API)x', 'APIx', true],
    ['(?-i:API)x', 'apix', false],
    ['(?i)key(?-i:ABC)', 'KEYABC', true],
    ['(?i)key(?-i:ABC)', 'keyabc', false],
    ['(?i)(?:access|(?-i:[Aa]pi|API))=', 'ACCESS=', true],
    ['(?i)(?:access|(?-i:[Aa]pi|API))=', 'aPI=', false],
    ['\\b(p8e-(?i)[a-z0-9]{4})', 'p8e-AB12', true],
    ['\\b(p8e-(?i)[a-z0-9]{4})', 'P8E-ab12', false],
    ['x(?i:ab)y', 'xABy', true],
    ['x(?i:ab)y', 'xABY', false],
    ['[[:alpha:]]+[[:digit:]]', 'abc1', true],
    ['[[:xdigit:]]{4}', 'beef', true],
    ['(?P<id>ab)c', 'abc', true],
    ['a\\z', 'a', true],
    ['a\\z', 'a\n', false],
    ['\\Aab', 'ab', true],
    ['a.b', 'a\nb', false],
    ['(?s)a.b', 'a\nb', true],
    ['(?m)^b$', 'a\nb\nc', true],
    ['^b$', 'a\nb\nc', false],
    ['\\x60x', '`x', true],
    ['\\x{41}', 'A', true],
    ['[\\w.=-]{3}', 'a=-', true],
  ])('%s on %j → %s', (re2, input, expected) => {
    expect(compile(re2).test(input)).toBe(expected);
  });

  it.each(['\\pL', '(?U)a+', 'a(?=b)', '[[:foo:]]', '(ab', 'ab)'])('rejects %s', (re2) => {
    expect(() => translateGoRegex(re2)).toThrow();
  });
});

describe('parseGitleaksConfig', () => {
  it('compiles gitleaks rules with allowlists, keywords and secret groups', () => {
    const set = parseGitleaksConfig(`
title = "team"
[[rules]]
id = "internal-token"
description = "Internal token"
regex = '''(?i)INTERNAL_TOKEN\\s*=\\s*"?([a-z0-9]{24})"?'''
secretGroup = 1
entropy = 2.5
keywords = ["INTERNAL_TOKEN"]
[[rules.allowlists]]
stopwords = ["sample"]
[rules.allowlist]
paths = ['''fixtures/''']
`);
    expect(set.rules).toHaveLength(1);
    const rule = set.rules[0]!;
    expect(rule.keywords).toEqual(['internal_token']);
    expect(rule.allowlists).toHaveLength(2);
    const scanner = new SecretScanner({ rules: set });
    expect(scanner.scanText(`internal_token = "${TOKEN_VALUE}"`, 'a.ts').map((f) => f.ruleId)).toEqual([
      'internal-token',
    ]);
    expect(scanner.scanText(`INTERNAL_TOKEN="${TOKEN_VALUE}"`, 'fixtures/a.ts')).toEqual([]);
    expect(scanner.scanText('INTERNAL_TOKEN="sample2lk9xv7tn4wm1ps6ab"', 'a.ts')).toEqual([]);
    expect(scanner.scanText('INTERNAL_TOKEN="aaaaaaaaaaaaaaaaaaaaaaaa"', 'a.ts')).toEqual([]);
  });

  it('extends the defaults, disables and overrides rules, and targets allowlists', () => {
    const set = parseGitleaksConfig(
      `
[extend]
useDefault = true
disabledRules = ["jwt"]
[[rules]]
id = "generic-api-key"
entropy = 4.2
[[allowlists]]
targetRules = ["github-pat"]
regexes = ['''^ghp_0{8}''']
[[allowlists]]
paths = ['''^vendor/''']
`,
      { defaults: DEFAULT_RULES },
    );
    const ids = set.rules.map((r) => r.id);
    expect(ids).not.toContain('jwt');
    expect(ids).toContain('aws-access-token');
    expect(set.rules.find((r) => r.id === 'generic-api-key')!.entropy).toBe(4.2);
    const scanner = new SecretScanner({ rules: set });
    const body = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    expect(scanner.scanText(`t = "ghp_00000000${body.slice(8)}"`, 'a.ts')).toEqual([]);
    expect(scanner.scanText(`t = "ghp_${body}"`, 'vendor/x.js')).toEqual([]);
    expect(scanner.scanText(`t = "ghp_${body}"`, 'src/x.js').map((f) => f.ruleId)).toEqual(['github-pat']);
  });

  it('reports path-only rules as findings for matching files', () => {
    const set = parseGitleaksConfig(`[[rules]]\nid = "pkcs12-file"\npath = '''(?i)\\.p(?:12|fx)$'''\n`);
    const scanner = new SecretScanner({ rules: set });
    expect(scanner.scanText('binary-ish', 'certs/client.P12').map((f) => f.ruleId)).toEqual(['pkcs12-file']);
    expect(scanner.scanText('binary-ish', 'certs/client.pem')).toEqual([]);
  });

  it.each([
    ['not TOML', 'rules = [', /not valid TOML/],
    ['a rule without id', '[[rules]]\nregex = "x"', /has no id/],
    ['a rule without regex or path', '[[rules]]\nid = "a"', /needs a regex or a path/],
    ['a bad regex', "[[rules]]\nid = \"a\"\nregex = '''(unclosed'''", /invalid regex/],
    ['a Unicode class', "[[rules]]\nid = \"a\"\nregex = '''\\pL+'''", /not supported/],
    ['a duplicate id', '[[rules]]\nid = "a"\nregex = "x"\n[[rules]]\nid = "a"\nregex = "y"', /duplicate/],
    ['a secretGroup beyond the groups', '[[rules]]\nid = "a"\nregex = "(x)"\nsecretGroup = 2', /secretGroup 2/],
    [
      'an unknown condition',
      '[[rules]]\nid = "a"\nregex = "x"\n[[rules.allowlists]]\ncondition = "XOR"\nregexes = ["y"]',
      /condition/,
    ],
    ['a remote extend', '[extend]\nurl = "https://example.com/x.toml"', /not supported/],
    ['an allowlist for an unknown rule', '[[allowlists]]\ntargetRules = ["nope"]\nregexes = ["x"]', /unknown rule/],
  ])('rejects %s with a config error', (_name, toml, reason) => {
    let caught: unknown;
    try {
      parseGitleaksConfig(toml, { source: 'team.toml' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GitleaksConfigError);
    expect((caught as GitleaksConfigError).code).toBe('config_invalid');
    expect((caught as Error).message).toMatch(reason);
  });

  it('loads a file that extends another by relative path', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pw-gitleaks-'));
    try {
      await writeFile(
        path.join(dir, 'base.toml'),
        "[[rules]]\nid = \"base-rule\"\nregex = '''BASE_[0-9]{6}'''\nkeywords = [\"base_\"]\n",
      );
      await writeFile(
        path.join(dir, 'team.toml'),
        '[extend]\npath = "base.toml"\n[[rules]]\nid = "team-rule"\nregex = "TEAM_[0-9]{6}"\n',
      );
      const set = loadGitleaksConfigFile(path.join(dir, 'team.toml'));
      expect(set.rules.map((r) => r.id).sort()).toEqual(['base-rule', 'team-rule']);
      expect(() => loadGitleaksConfigFile(path.join(dir, 'missing.toml'))).toThrow(GitleaksConfigError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
