import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from './default-rules.ts';
import { KeywordPrefilter } from './keyword-prefilter.ts';
import { leadingLiterals, MatchPlan } from './match-plan.ts';

// Credential-shaped values are joined at run time: no literal one sits in the repository.
const KEY_VALUE = ['q8Zr2Lk9Xv', '7Tn4Wm1Ps6'].join('');
const TOKEN_VALUE = ['Ab3dEf6hIj', '9kLm2nOp5q'].join('');

function hits(keywords: string[], text: string): Array<[string, number]> {
  const pf = new KeywordPrefilter(keywords);
  const out: Array<[string, number]> = [];
  pf.scan(text, (k, at) => out.push([pf.keywords[k]!, at]));
  return out.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
}

/** Every occurrence, found the slow obvious way (a case-insensitive search per keyword). */
function naiveHits(keywords: string[], text: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const kw of new Set(keywords.map((k) => k.toLowerCase()))) {
    const re = new RegExp(kw.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      out.push([kw, m.index]);
      re.lastIndex = m.index + 1;
    }
  }
  return out.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
}

describe('KeywordPrefilter', () => {
  it.each<[string[], string]>([
    [['key', 'api', 'api_key'], 'const API_KEY = 1; // monkey'],
    [['sk-', 'sk-ant-', 'ant'], 'sk-ant-api03 and task-sk-'],
    [['secret_access_key', 'secret', 'access', 'key'], 'AWS_SECRET_ACCESS_KEY'],
    [['aaa', 'aa'], 'aaaaa'],
    [['he', 'she', 'his', 'hers'], 'ushers and HIS'],
    [['-----begin'], '-----BEGIN RSA PRIVATE KEY-----'],
    [['clé', 'key'], 'la CLÉ et la clé, key'],
    [['token'], 'tok\u00e9n token\u0130token'],
  ])('finds every occurrence of %j case-insensitively', (keywords, text) => {
    expect(hits(keywords, text)).toEqual(naiveHits(keywords, text));
  });

  it('agrees with indexOf on the default keywords over generated text', () => {
    const keywords = DEFAULT_RULES.rules.flatMap((r) => r.keywords);
    let state = 7;
    const pieces = [...keywords, ' ', '\n', 'x', 'Ω', '=', '"', 'KEY', 'Token'];
    let text = '';
    for (let i = 0; i < 4000; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      text += pieces[state % pieces.length];
    }
    expect(hits(keywords, text)).toEqual(naiveHits(keywords, text));
  });
});

describe('MatchPlan', () => {
  /** The plain global exec loop the plan must reproduce exactly. */
  function reference(regex: RegExp, input: string): Array<[number, string, string | undefined]> {
    const re = new RegExp(regex.source, regex.flags);
    const out: Array<[number, string, string | undefined]> = [];
    for (let m = re.exec(input); m !== null; m = re.exec(input)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      out.push([m.index, m[0], m[1]]);
    }
    return out;
  }
  function planned(regex: RegExp, input: string): Array<[number, string, string | undefined]> {
    const out: Array<[number, string, string | undefined]> = [];
    new MatchPlan(new RegExp(regex.source, regex.flags)).forEach(input, ({ m, start, text }) => {
      out.push([start, text, m[1]]);
    });
    return out;
  }

  const generic = DEFAULT_RULES.rules.find((r) => r.id === 'generic-api-key')!.regex!;
  it.each([
    `api_key = "${KEY_VALUE}"`,
    `my.service-api_key = "${KEY_VALUE}"; other_token: "${TOKEN_VALUE}"`,
    `${'x'.repeat(70)}token = "${TOKEN_VALUE}"`,
    'const a = 1; apikey=abcdefghij0123456789 tokentoken=zzzzzzzzzzzz1',
    'no credentials here at all',
    'keykeykey=secretsecret1',
  ])('reproduces a global exec loop of the generic rule on %j', (input) => {
    expect(planned(generic, input)).toEqual(reference(generic, input));
  });

  it('reproduces exec loops on random text for prefixed patterns', () => {
    const patterns = [/[\w.-]{0,5}?(?:ab|b)c+/dg, /[a-c]*?c(b)?/dg, /\w{0,3}?x|y/dg];
    let state = 99;
    for (let round = 0; round < 300; round++) {
      let input = '';
      for (let i = 0; i < 40; i++) {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
        input += 'abcxy. -'[state % 8];
      }
      for (const p of patterns) expect(planned(p, input)).toEqual(reference(p, input));
    }
  });
});

describe('leadingLiterals', () => {
  it.each<[string, string[] | undefined]>([
    ['(?:key|token)=', ['key', 'token']],
    ['(?:[kK][eE][yY]|(?:[Aa]pi|API))x', ['key', 'api', 'api']],
    ['(?:passw(?:or)?d)', ['password', 'passwd']],
    ['(?:a\\-b)', ['a-b']],
    ['(?:key)?x', undefined],
    ['(?:ke+y)', undefined],
    ['(?:[a-z]ey)', undefined],
    ['\\bghp_', undefined],
    ['key', undefined],
  ])('%s → %j', (source, expected) => {
    const got = leadingLiterals(source);
    expect(got === undefined ? undefined : [...got].sort()).toEqual(
      expected === undefined ? undefined : [...expected].sort(),
    );
  });

  it('marks a plan keyword-anchored only when every leading literal starts with a keyword', () => {
    expect(new MatchPlan(/(?:key|token)=(\w+)/dg, ['key', 'token']).keywordAnchored).toBe(true);
    expect(new MatchPlan(/(?:key|token)=(\w+)/dg, ['key']).keywordAnchored).toBe(false);
    expect(new MatchPlan(/[\w.-]{0,50}?(?:key|token)=(\w+)/dg, ['key', 'token']).keywordAnchored).toBe(true);
    expect(new MatchPlan(/x(?:key)/dg, ['key']).keywordAnchored).toBe(false);
  });
});
