import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Forge } from '@pullwright/forge';
import { scannedForge } from '@pullwright/forge';
import { checkWrite } from '@pullwright/pipeline';
import {
  DEFAULT_RULES,
  deepScan,
  OutboundSecretError,
  Redactor,
  SecretScanner,
  scanPublishableChange,
} from '@pullwright/security';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { SlackClient } from '@pullwright/slack';
import { describe, expect, it } from 'vitest';

/**
 * The "Secret scanning" document (docs/secret-scanning.md, once README's section), claim by claim: each sentence below is quoted from it,
 * and the check beside it fails when the sentence stops being true. The whole-system proof of
 * the Channels paragraph is the evasion battery (test/secret-evasion.test.ts); these are the
 * fast, direct checks.
 */
const DOC = ['../docs/secret-scanning.md', '../README.md']
  // README's Security section states the rule count too.
  .map((file) => readFileSync(path.resolve(import.meta.dirname, file), 'utf8'))
  .join('\n');
const scanner = new SecretScanner();
const key = sampleSecret('github-pat', 7100);
const other = sampleSecret('github-pat', 7101);
const spaced = `${key.slice(0, 15)} ${key.slice(15)}`;
const found = (text: string | Uint8Array, file = 'src/a.ts', words?: 'prose' | 'path') =>
  deepScan(scanner, text, file, words ? { words } : {}).some((f) => f.ruleId === 'github-pat');

function claim(sentence: string): void {
  expect(DOC.replace(/\s+/g, ' ')).toContain(sentence);
}

describe('docs/secret-scanning.md: Secret scanning', () => {
  it('states the number of default rules there are', () => {
    const count = DEFAULT_RULES.rules.length;
    claim(`\`SecretScanner\` (${count} rules + entropy`);
    claim(`keep the ${count} default rules`);
  });

  it('"a finding refuses the text, it is not only masked" (forge)', async () => {
    claim('a finding refuses the text, it is not only masked');
    claim('a text holding a secret is not sent, and the call fails naming the rule and the place');
    const sent: unknown[] = [];
    const record = async (...args: unknown[]) => void sent.push(args);
    const forge = scannedForge(
      {
        openPullRequest: record,
        updatePullRequestBody: record,
        upsertTrackingComment: record,
        replyToReviewComment: record,
        commentOnIssue: record,
        mergePullRequest: record,
      } as unknown as Forge,
      scanner,
    );
    // "PR title, body and head branch, the tracking comment, review replies, issue comments, merge messages"
    claim('PR title, body and head branch, the tracking comment, review replies, issue comments, merge messages');
    const calls = [
      () => forge.openPullRequest({ repo: 'a/b', head: 'x', base: 'main', title: spaced, body: '' }),
      () => forge.openPullRequest({ repo: 'a/b', head: 'x', base: 'main', title: '', body: spaced }),
      () => forge.openPullRequest({ repo: 'a/b', head: `agent/${key}`, base: 'main', title: '', body: '' }),
      () => forge.upsertTrackingComment('a/b', 1, spaced),
      () => forge.replyToReviewComment('a/b', 1, 2, spaced),
      () => forge.commentOnIssue('a/b', 1, spaced),
      () => forge.mergePullRequest('a/b', 1, { expectedHeadSha: 'x', message: spaced }),
    ];
    for (const call of calls)
      await expect(call()).rejects.toThrow(/refused: it would publish a secret \(github-pat in/);
    await expect(calls[0]!()).rejects.toBeInstanceOf(OutboundSecretError);
    expect(sent).toEqual([]);
  });

  it('"Every write the model makes is scanned as it is written, read the way the publish reads it"', () => {
    claim('Every write the model makes is scanned as it is written, read the way the publish reads it');
    const encoded = `const blob = "${Buffer.from(`token=${key}`).toString('base64')}";\n`;
    expect(() => checkWrite(scanner, 'src/a.ts', undefined, encoded)).toThrow(
      /write refused: .*github-pat.*\[base64\]/,
    );
  });

  it('"A secret a changed file already held … is recorded … as pre-existing and does not block; one the change adds, moves or copies does"', () => {
    claim('is recorded on the operation as pre-existing and does not block; one the change adds, moves or copies does');
    const before = `export const t = "${key}";\n`;
    const byFile = (files: Array<{ path: string; content: string; before?: string }>) =>
      scanPublishableChange(scanner, { files })
        .filter((f) => f.channel === 'file')
        .map((f) => [f.where, f.line, f.preExisting === true]);
    expect(byFile([{ path: 'a.ts', content: `// edited\n${before}`, before }])).toEqual([['a.ts', 2, true]]);
    expect(byFile([{ path: 'b.ts', content: before }])).toEqual([['b.ts', 1, false]]);
    expect(byFile([{ path: 'a.ts', content: `${before}${before}`, before }])).toEqual([
      ['a.ts', 1, true],
      ['a.ts', 2, false],
    ]);
    expect(byFile([{ path: 'a.ts', content: `${before}const u = "${other}";\n`, before }])).toEqual([
      ['a.ts', 1, true],
      ['a.ts', 2, false],
    ]);
  });

  it('"Slack messages pass it in `SlackClient`: a refused message is replaced by a notice saying why"', () => {
    // Posting to a (fake) Slack server is in test/secret-evasion.test.ts; here, the payload as it leaves.
    claim('Slack messages pass it in `SlackClient`: a refused message is replaced by a notice saying why');
    const client = new SlackClient({ botToken: undefined, apiUrl: undefined, redactor: new Redactor(), scanner });
    const out = client.scrub({ text: `Rotate ${spaced}`, blocks: [] });
    expect(out.text).toMatch(
      /^:no_entry: Pullwright withheld this message: it would have shown a secret \(github-pat\)/,
    );
    expect(JSON.stringify(out)).not.toContain(key.slice(4, 15));
    expect(client.scrub({ text: 'Fixed slugify.' })).toEqual({ text: 'Fixed slugify.' });
  });

  it.each<[string, (k: string) => string | Uint8Array, ('prose' | 'path')?]>([
    ['base64', (k) => `x = "${Buffer.from(`t=${k}`).toString('base64')}"`],
    ['base64url', (k) => `x = "${Buffer.from(`{"t":"${k}"}`).toString('base64url')}"`],
    ['hex', (k) => `x = "${Buffer.from(`t ${k}`).toString('hex')}"`],
    [
      'percent-encoded',
      (k) => `u = "https://h.test/?t=${[...k].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}"`,
    ],
    ['nested twice', (k) => `x = "${Buffer.from(Buffer.from(`t=${k}`).toString('hex')).toString('base64')}"`],
    ['concatenated on one line', (k) => `x = "${k.slice(0, 12)}" + "${k.slice(12)}"`],
    ['concatenated over lines', (k) => `x =\n  "${k.slice(0, 12)}" +\n  "${k.slice(12)}"`],
    ['split over two variables', (k) => `a = "${k.slice(0, 12)}";\nb = "${k.slice(12)}";`],
    ['wrapped over // comment lines', (k) => `// ${k.slice(0, 14)}\n// ${k.slice(14, 28)}\n// ${k.slice(28)}\nrun();`],
    ['split by a space, in prose', (k) => `Use ${k.slice(0, 15)} ${k.slice(15)} now.`, 'prose'],
  ])('"%s" runs are decoded or joined', (_what, hide, words) => {
    claim('base64, base64url, hex and percent-encoded runs decoded (nested twice');
    claim('neighbouring string literals (a key split over two variables) joined');
    claim('tokens wrapped over lines or `//` / `#` comment lines joined');
    claim('neighbouring words joined (a key split by a space)');
    expect(found(hide(key), 'src/a.ts', words)).toBe(true);
  });

  it('"UTF-16 and gzip files are decoded"', async () => {
    claim('UTF-16 and gzip files are decoded and binary files read by their printable strings');
    const { gzipSync } = await import('node:zlib');
    expect(found(Buffer.from(`token=${key}\n`, 'utf16le'), 'out.txt')).toBe(true);
    expect(found(gzipSync(`token=${key}\n`), 'out.gz')).toBe(true);
    expect(found(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`k=${key}`), Buffer.from([0])]), 'a.bin')).toBe(
      true,
    );
  });

  it('"The `Redactor` masks every piece of a key split between words"', () => {
    claim('The `Redactor` masks every piece of a key split between words');
    const out = new Redactor({ scanner }).redact(`used ${spaced} today`);
    expect(out).not.toContain(key.slice(4, 15));
    expect(out).not.toContain(key.slice(15));
  });
});
