import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Operation } from '@pullwright/core';
import { OutboundSecretError } from '@pullwright/security';
import { sampleSecret } from '@pullwright/security/credential-samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, REQUESTER, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';

/**
 * The evasion battery: six key types, each hidden every way the issue lists, through the real
 * publish gate against the local forge and a fake Slack. A repository's check writes every
 * file variant (so nothing but the publish gate stands between them and the forge), and the
 * request's description carries the key split by a space (the Redactor masks every piece as
 * it is stored, so the commit message, PR title and body never hold it). Every variant must
 * be refused, and nothing of any key may reach the forge's refs, a PR, a reply, the tracking
 * comment or Slack; each text channel (forge and Slack) refuses every hidden form itself. Keys are drawn at run time
 * (credential-samples): no key, whole or in pieces, is a literal in this repository.
 */

const KEYS = [
  'github-pat',
  'aws-access-token',
  'slack-bot-token',
  'stripe-access-token',
  'anthropic-api-key',
  'gitlab-pat',
] as const;
type KeyType = (typeof KEYS)[number];
const keyOf = (type: KeyType): string => sampleSecret(type, 3400 + KEYS.indexOf(type));

const halves = (k: string): [string, string] => [k.slice(0, Math.ceil(k.length / 2)), k.slice(Math.ceil(k.length / 2))];
const thirds = (k: string): [string, string, string] => {
  const n = Math.ceil(k.length / 3);
  return [k.slice(0, n), k.slice(n, 2 * n), k.slice(2 * n)];
};
const wrapAt = (s: string, width: number, prefix = ''): string =>
  s
    .match(new RegExp(`.{1,${width}}`, 'g'))!
    .map((l) => `${prefix}${l}`)
    .join('\n');
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const hex = (s: string): string => Buffer.from(s).toString('hex');
const percent = (s: string): string => [...s].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
const utf16le = (s: string): Buffer => Buffer.from(s, 'utf16le');

/** A file a check writes: where, and the bytes. */
type FileVariant = [id: string, file: (k: string) => { path: string; bytes: Buffer }];
const inFile =
  (name: string, content: (k: string) => string | Buffer) =>
  (k: string): { path: string; bytes: Buffer } => {
    const c = content(k);
    return { path: `evasion/${name}`, bytes: typeof c === 'string' ? Buffer.from(c) : c };
  };
/** The key (or an encoding of it) as the name of a file, alone in its directory. */
const asName =
  (id: string, name: (k: string) => string) =>
  (k: string): { path: string; bytes: Buffer } => ({ path: `names/${id}/${name(k)}`, bytes: Buffer.from('notes\n') });

const FILE_VARIANTS: FileVariant[] = [
  ['plain', inFile('plain.txt', (k) => `token = ${k}\n`)],
  ['same-line concatenation', inFile('concat.js', (k) => `const t = "${halves(k)[0]}" + "${halves(k)[1]}";\n`)],
  ['implicit concatenation', inFile('implicit.py', (k) => `T = "${halves(k)[0]}" "${halves(k)[1]}"\n`)],
  ['three pieces', inFile('three.js', (k) => `const t = '${thirds(k).join("' + '")}';\n`)],
  ['concatenation over lines', inFile('lines.js', (k) => `const t =\n  "${halves(k)[0]}" +\n  "${halves(k)[1]}";\n`)],
  ['PHP concatenation', inFile('concat.php', (k) => `<?php\n$t = '${halves(k)[0]}' .\n  '${halves(k)[1]}';\n`)],
  ['template of literals', inFile('template.js', (k) => `const t = \`\${"${halves(k)[0]}"}\${"${halves(k)[1]}"}\`;\n`)],
  [
    'two neutral variables',
    inFile('vars.js', (k) => `const a = "${halves(k)[0]}";\nconst b = "${halves(k)[1]}";\nexport const t = a + b;\n`),
  ],
  ['two neutral Python names', inFile('vars.py', (k) => `left = '${halves(k)[0]}'\nright = '${halves(k)[1]}'\n`)],
  ['array joined', inFile('array.js', (k) => `const t = ["${thirds(k).join('", "')}"].join("");\n`)],
  ['key in a // comment', inFile('comment.js', (k) => `// deploy with ${k}\nrun();\n`)],
  ['// comment lines', inFile('comments.js', (k) => `// deploy key:\n${wrapAt(k, 14, '// ')}\nrun();\n`)],
  ['# comment lines', inFile('comments.sh', (k) => `# deploy key:\n${wrapAt(k, 14, '# ')}\nrun\n`)],
  ['block comment', inFile('block.js', (k) => `/**\n * key:\n${wrapAt(k, 14, ' * ')}\n */\n`)],
  ['backslash continuation', inFile('cont.sh', (k) => `TOKEN="${halves(k)[0]}\\\n${halves(k)[1]}"\n`)],
  ['YAML block scalar', inFile('block.yml', (k) => `token: |\n  ${halves(k)[0]}\n  ${halves(k)[1]}\n`)],
  ['base64', inFile('b64.txt', (k) => `blob: ${b64(`token=${k}`)}\n`)],
  [
    'wrapped base64',
    inFile('wrapped-b64.txt', (k) => `blob: |\n${wrapAt(b64(`config:\n  token: ${k}\n`), 20, '  ')}\n`),
  ],
  [
    'base64 split over concatenated lines',
    inFile('split-b64.js', (k) => {
      const [a, b] = halves(b64(`token=${k}`));
      return `const b = "${a}" +\n  "${b}";\n`;
    }),
  ],
  [
    'base64 in two variables',
    inFile('vars-b64.js', (k) => {
      const [a, b] = halves(b64(`token=${k}`));
      return `const x = "${a}";\nconst y = "${b}";\n`;
    }),
  ],
  ['base64url', inFile('b64url.txt', (k) => `blob=${Buffer.from(`{"t":"${k}"}`).toString('base64url')}\n`)],
  ['base64 of base64', inFile('b64b64.txt', (k) => `blob: ${b64(b64(`token=${k}`))}\n`)],
  ['base64 of gzip', inFile('b64gz.txt', (k) => `blob: ${b64(gzipSync(`token=${k}\n`))}\n`)],
  ['hex', inFile('hex.txt', (k) => `data = '${hex(`auth ${k}`)}'\n`)],
  ['wrapped hex', inFile('wrapped-hex.txt', (k) => `data = (\n${wrapAt(hex(`auth ${k}`), 32, '  ')}\n)\n`)],
  [
    'hex split over concatenated lines',
    inFile('split-hex.py', (k) => {
      const [a, b] = halves(hex(`auth ${k}`));
      return `H = ('${a}'\n     '${b}')\n`;
    }),
  ],
  ['percent-encoding', inFile('url.txt', (k) => `callback = https://hooks.test/in?t=${percent(k)}\n`)],
  [
    'percent-encoding wrapped over lines',
    inFile('url-wrapped.txt', (k) => `callback = (\n${wrapAt(percent(`token=${k}`), 30, '  ')}\n)\n`),
  ],
  [
    'partial percent-encoding',
    inFile(
      'url-partial.txt',
      (k) => `callback = https://hooks.test/in?t=${[...k].map((c, i) => (i % 3 === 0 ? percent(c) : c)).join('')}\n`,
    ),
  ],
  [
    'UTF-16LE with a byte-order mark',
    inFile('utf16.txt', (k) => Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(`token=${k}\n`)])),
  ],
  ['UTF-16LE without one', inFile('utf16-nobom.txt', (k) => utf16le(`report\ntoken=${k}\n`))],
  [
    'UTF-16BE',
    inFile('utf16be.txt', (k) => Buffer.concat([Buffer.from([0xfe, 0xff]), utf16le(`token=${k}\n`).swap16()])),
  ],
  ['gzip', inFile('report.txt.gz', (k) => gzipSync(`report\ntoken=${k}\n`))],
  ['gzip of UTF-16', inFile('report16.gz', (k) => gzipSync(utf16le(`token=${k}\n`)))],
  [
    'binary with the key inside',
    inFile('blob.bin', (k) =>
      Buffer.concat([Buffer.from([0, 1, 2, 0xff]), Buffer.from(`key=${k}`), Buffer.from([0, 7])]),
    ),
  ],
  ['key as a file name', asName('plain', (k) => `${k}.txt`)],
  ['base64 key as a file name', asName('b64', (k) => `${Buffer.from(k).toString('base64url')}.txt`)],
  ['hex key as a file name', asName('hex', (k) => `${hex(k)}.txt`)],
  ['key split over directories', asName('dirs', (k) => `${halves(k)[0]}/${halves(k)[1]}.txt`)],
];

/** Texts a key reaches the forge or Slack in: each a way to hide it from a redactor that masks whole shapes. */
const TEXT_VARIANTS: Array<[string, (k: string) => string]> = [
  ['as it is', (k) => `Rotate ${k} today.`],
  ['split by one space', (k) => `Rotate ${halves(k).join(' ')} today.`],
  ['split in three', (k) => `Rotate ${thirds(k).join(' ')} today.`],
  ['split over lines', (k) => `Rotate\n${halves(k).join('\n')}\ntoday.`],
  ['base64', (k) => `Rotate ${b64(`token=${k}`)} today.`],
  ['hex', (k) => `Rotate ${hex(`auth ${k}`)} today.`],
  ['percent-encoded', (k) => `Rotate ${percent(k)} today.`],
];

/** A Slack call as sent (form-encoded or JSON) and as Slack reads it. */
const slackText = (c: { raw: string; args: unknown }): string => `${c.raw}\n${JSON.stringify(c.args)}`;

/** Everything a key must not show up as anywhere it could leak to. */
function needles(k: string): string[] {
  return [k, ...halves(k), b64(`token=${k}`), hex(`auth ${k}`), percent(k)];
}

/** The check writes every variant from a manifest it carries XOR-masked: the base commit holds no key a scanner could read. */
function checkScript(files: Array<{ path: string; bytes: Buffer }>): string {
  const manifest = Buffer.from(JSON.stringify(files.map((f) => [f.path, f.bytes.toString('base64')]))).map(
    (b) => b ^ 0x5a,
  );
  return [
    "import { mkdirSync, writeFileSync } from 'node:fs';",
    "import { dirname } from 'node:path';",
    `const manifest = JSON.parse(Buffer.from('${Buffer.from(manifest).toString('hex')}', 'hex').map((b) => b ^ 0x5a).toString());`,
    'for (const [file, bytes] of manifest) {',
    '  mkdirSync(dirname(file), { recursive: true });',
    "  writeFileSync(file, Buffer.from(bytes, 'base64'));",
    '}',
    "console.log('ok 1 - wrote the report');",
  ].join('\n');
}

const PLAN = text(
  JSON.stringify({
    summary: 'Change the answer',
    steps: [{ title: 'Edit the answer', files: ['src/app.js'], acceptance: 'tests pass' }],
  }),
);
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });

let slack: SlackSystem;
const scripts = new Map<string, Turn[][]>();

beforeAll(async () => {
  slack = await startSlackSystem();
  slack.sys.runtime.createProvider = (op) => new ScriptedModel(scripts.get(op.repo)?.shift() ?? []);
}, 60_000);

afterAll(async () => {
  await slack?.stop();
});

async function createRepo(repo: string, files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-evasion-'));
  for (const [file, content] of Object.entries({
    'package.json': JSON.stringify({ name: 'evasion', type: 'module', scripts: { test: 'node test.js' } }),
    'src/app.js': 'export const answer = 41;\n',
    'test.js': "console.log('ok 1');\n",
    ...files,
  })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  await slack.sys.runtime.localForge!.createRepository(repo, {}, { fromDir: dir });
  rmSync(dir, { recursive: true, force: true });
  return repo;
}

/** Every byte of every ref of a local repository: `git grep` would skip binary blobs. */
function allRefContent(repo: string): string {
  const dir = slack.sys.runtime.localForge!.repoDir(repo);
  const objects = execFileSync('git', ['rev-list', '--objects', '--all'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[0]!);
  return objects.map((o) => execFileSync('git', ['cat-file', '-p', o], { cwd: dir }).toString('latin1')).join('\n');
}

async function requestViaSlack(repo: string, description: string): Promise<string> {
  const before = new Set((await slack.sys.runtime.store.list()).map((o) => o.id));
  // `/fix` runs without a plan confirmation (an `/implement` from Slack waits for one).
  const res = await slack.command({
    command: '/fix',
    text: `${repo} ${description}`,
    user_id: REQUESTER,
    channel_id: CHANNEL,
  });
  expect(res.status).toBe(200);
  for (let i = 0; i < 200; i++) {
    const op = (await slack.sys.runtime.store.list()).find((o) => !before.has(o.id) && o.repo === repo);
    if (op) return op.id;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no operation for ${repo}`);
}

it('the battery is what docs/secret-scanning.md says it is: its key types and its ways in files and in text', () => {
  const doc = readFileSync(path.join(import.meta.dirname, '../docs/secret-scanning.md'), 'utf8');
  const said = /(\d+) key\s+types hidden (\d+) ways in files and (\d+) ways in every text channel/.exec(doc);
  expect(said?.slice(1).map(Number)).toEqual([KEYS.length, FILE_VARIANTS.length, TEXT_VARIANTS.length]);
});

describe.each(KEYS)('a %s hidden every way', (type) => {
  const key = keyOf(type);
  const files = FILE_VARIANTS.map(([id, make]) => ({ id, ...make(key) }));
  let op: Operation;
  let repo: string;
  let baseSha: string | undefined;

  beforeAll(async () => {
    repo = await createRepo(`acme/evasion-${type}`, { 'test.js': checkScript(files) });
    baseSha = await slack.sys.runtime.localForge!.branchSha(repo, 'main');
    scripts.set(repo, [[PLAN, EDIT, text('Edited.'), ACCEPT]]);
    const id = await requestViaSlack(repo, `Change the answer. ${halves(key).join(' ')} is the key to rotate.`);
    op = await slack.waitForStatus(id, ['awaiting_approval', 'failed', 'cancelled'], 120_000);
  }, 180_000);

  it.each(FILE_VARIANTS.map(([id]) => id))('refuses the file variant: %s', (id) => {
    const variant = files.find((f) => f.id === id)!;
    const where = variant.path.startsWith('names/') ? `names/${variant.path.split('/')[1]}/` : variant.path;
    const found = op.findings as Array<{ file: string; channel: string; preExisting?: boolean }>;
    expect(found.filter((f) => !f.preExisting && f.file.startsWith(where)).length, `${id} at ${where}`).toBeGreaterThan(
      0,
    );
  });

  it('masks the key split by a space in the description as it is stored, so no title, message or body can carry it', () => {
    expect(op.description).toMatch(/^Change the answer\. \[redacted…..\] is the key to rotate\.$/);
    const published = [op.description, op.branch ?? ''].join('\n');
    for (const n of needles(key)) expect(published).not.toContain(n);
  });

  it('fails the operation with the reason, and nothing of the key reaches the forge or Slack', async () => {
    expect(op.status).toBe('failed');
    expect(op.error).toMatch(/^commit blocked: the change adds \d+ secret\(s\): /);
    const forge = slack.sys.runtime.localForge!;
    expect(Object.keys(await forge.listBranches(repo))).toEqual(['main']);
    expect(await forge.branchSha(repo, 'main')).toBe(baseSha);
    expect(op.pullRequest).toBeUndefined();
    const seen = [allRefContent(repo), op.error ?? '', ...slack.fake.calls.map(slackText), ...slack.answers].join('\n');
    for (const n of needles(key)) expect(seen).not.toContain(n);
  });
});

describe('every text channel refuses every hidden key', () => {
  const repo = 'acme/evasion-channels';
  let number: number;

  beforeAll(async () => {
    await createRepo(repo, {});
    const forge = slack.sys.runtime.localForge!;
    const dir = forge.repoDir(repo);
    execFileSync('git', ['branch', 'agent/channels', 'main'], { cwd: dir });
    number = (
      await forge.openPullRequest({ repo, head: 'agent/channels', base: 'main', title: 'Channels', body: 'Clean.' })
    ).number;
    await forge.upsertTrackingComment(repo, number, 'Clean tracking comment.');
  });

  const rows = KEYS.flatMap((type) => TEXT_VARIANTS.map(([how, make]) => [type, how, make] as const));
  it.each(rows)('%s %s', async (type, _how, make) => {
    const key = keyOf(type);
    const said = make(key);
    const forge = slack.sys.runtime.forge;
    const calls: Array<() => Promise<unknown>> = [
      () => forge.openPullRequest({ repo, head: 'agent/other', base: 'main', title: said, body: '' }),
      () => forge.updatePullRequestBody(repo, number, said),
      () => forge.upsertTrackingComment(repo, number, said),
      () => forge.replyToReviewComment(repo, number, 9, said),
      () => forge.commentOnIssue(repo, number, said),
      () => forge.mergePullRequest(repo, number, { expectedHeadSha: 'unused', message: said }),
    ];
    for (const call of calls) await expect(call()).rejects.toThrow(OutboundSecretError);

    const client = slack.services.deps.client;
    const sent = slack.fake.calls.length;
    const hook = `evasion-${type}-${TEXT_VARIANTS.findIndex(([, m]) => m === make)}`;
    await client.postMessage('C0EVASION', { text: said });
    await client.respond(slack.fake.responseUrl(hook), { text: said });
    const answer = client.scrub({ text: said });
    const ours = () =>
      slack.fake.calls
        .slice(sent)
        .filter((c) => c.hook === hook || (c.method === 'chat.postMessage' && c.args.channel === 'C0EVASION'));
    await slack.fake.waitFor(() => ours().length === 2);

    const local = slack.sys.runtime.localForge!;
    const pr = await local.getPullRequest(repo, number);
    const seen = [
      allRefContent(repo),
      pr.title,
      pr.body,
      (await local.trackingComment(repo, number)) ?? '',
      JSON.stringify(await local.comments(repo, number)),
      ...ours().map(slackText),
      JSON.stringify(answer),
    ].join('\n');
    for (const n of needles(key)) expect(seen).not.toContain(n);
    expect(pr.body).toBe('Clean.');
    expect(await local.trackingComment(repo, number)).toBe('Clean tracking comment.');
    const shown = [...ours().map((c) => JSON.stringify(c.args)), JSON.stringify(answer)];
    expect(shown.every((t) => t.includes('withheld this message'))).toBe(true);
  });
});

describe('what the change adds, not what the file held', () => {
  const key = sampleSecret('github-pat', 3500);
  const repo = 'acme/evasion-preexisting';
  let op: Operation;

  beforeAll(async () => {
    await createRepo(repo, { 'src/legacy.js': `export const answer = 41;\nexport const legacyToken = '${key}';\n` });
    scripts.set(repo, [
      [
        text(
          JSON.stringify({
            summary: 'Change the answer',
            steps: [{ title: 'Edit', files: ['src/legacy.js'], acceptance: 'tests pass' }],
          }),
        ),
        tool('edit_file', { path: 'src/legacy.js', oldText: 'answer = 41', newText: 'answer = 42' }),
        text('Edited.'),
        ACCEPT,
      ],
    ]);
    const res = await slack.sys.request('POST', '/v1/operations', {
      type: 'implement',
      repo,
      description: 'Change the answer in legacy.js',
    });
    const { id } = (await res.json()) as { id: string };
    op = await slack.waitForStatus(id, ['awaiting_approval', 'failed', 'cancelled'], 120_000);
  }, 180_000);

  it('publishes an edit of a file that already held a key, and records the key as pre-existing', async () => {
    expect(op.error).toBeUndefined();
    expect(op.status).toBe('awaiting_approval');
    expect(op.findings).toEqual([
      expect.objectContaining({ ruleId: 'github-pat', file: 'src/legacy.js', line: 2, preExisting: true }),
    ]);
    const events = await slack.sys.runtime.events.list(op.id);
    expect(events.find((e) => e.type === 'step' && e.data.step === 'secret_scan')?.data).toMatchObject({
      findings: 0,
      preExisting: 1,
    });
  });

  it('review replies that carry a key split by a space publish nothing of it, and the revision still answers', async () => {
    const keys = KEYS.map(keyOf);
    const replies = keys.map((k, i) => ({
      comment: `C${i + 1}`,
      outcome: 'fixed',
      note: `used ${halves(k).join(' ')}`,
    }));
    scripts.set(repo, [
      [
        tool('edit_file', { path: 'src/legacy.js', oldText: 'answer = 42', newText: 'answer = 43' }),
        text(`Done.\n${JSON.stringify({ replies })}`),
      ],
    ]);
    await slack.sys.runtime.actions.revise(
      op.id,
      { user: 'maria', source: 'github' },
      {
        requestId: `evasion-${op.id}`,
        feedback: keys.map((_, i) => ({
          id: 100 + i,
          kind: 'review_comment' as const,
          user: 'maria',
          body: `Bump the answer (${i})`,
          path: 'src/legacy.js',
          line: 1,
        })),
      },
    );
    const revised = await slack.waitForEvent(
      op.id,
      (e) => e.type === 'status' && e.data.to === 'awaiting_approval' && e.data.revision !== undefined,
      120_000,
    );
    expect(revised.data.replies).toBe(keys.length);
    const local = slack.sys.runtime.localForge!;
    // The model's answer is redacted as it is read (every piece of a split key masked); what
    // is left reaches the thread only through the outbound scan.
    const posted = await local.comments(repo, op.pullRequest!.number);
    for (const k of keys) for (const n of needles(k)) expect(JSON.stringify(posted)).not.toContain(n);
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((c) => c.body.includes('[redacted…'))).toBe(true);
  });
});
