import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What a handler answers: GitHub's status and JSON body. */
interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** GitHub's identity on the commits it creates (and signs) for an API caller that names no committer. */
const WEB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' };

class GitDataError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * GitHub's git-data endpoints (`POST /git/blobs`, `/git/trees`, `/git/commits`, `GET
 * /git/commits/:sha`) on the bare repository at `dir`, in GitHub's documented request and
 * response shapes. A commit created without a `committer` is GitHub's own, signed: it joins
 * `verified` (what `verification.verified` reports). Refs are the server's business (webhooks).
 */
export async function gitDataRequest(
  dir: string,
  route: string,
  method: string,
  body: Record<string, unknown>,
  verified: Set<string>,
): Promise<Answer | undefined> {
  try {
    if (route === '/git/blobs' && method === 'POST') return await createBlob(dir, body);
    if (route === '/git/trees' && method === 'POST') return await createTree(dir, body);
    if (route === '/git/commits' && method === 'POST') return await createCommit(dir, body, verified);
    const m = /^\/git\/commits\/([0-9a-f]{40})$/.exec(route);
    if (m && method === 'GET') return { status: 200, json: await gitCommitJson(dir, m[1]!, verified) };
    return undefined;
  } catch (err) {
    if (err instanceof GitDataError) return { status: err.status, json: { message: err.message } };
    throw err;
  }
}

/** `GET /repos/:o/:r/commits/:sha`: the REST commit, its `commit.verification` included. */
export async function restCommitJson(
  dir: string,
  sha: string,
  verified: Set<string>,
): Promise<Record<string, unknown>> {
  const commit = await gitCommitJson(dir, sha, verified);
  const { parents } = commit as { parents: { sha: string }[] };
  return { sha, commit: { ...commit, sha: undefined, parents: undefined }, parents };
}

/** Whether `sha` extends `from` (a fast-forward of a branch at `from`). */
export async function isFastForward(dir: string, from: string, sha: string): Promise<boolean> {
  return git(dir, ['merge-base', '--is-ancestor', from, sha]).then(
    () => true,
    () => false,
  );
}

async function createBlob(dir: string, body: Record<string, unknown>): Promise<Answer> {
  if (typeof body.content !== 'string') throw new GitDataError(422, 'Invalid request: content is missing');
  const encoding = body.encoding ?? 'utf-8';
  if (encoding !== 'utf-8' && encoding !== 'base64')
    throw new GitDataError(422, `encoding must be utf-8 or base64, not ${String(encoding)}`);
  const bytes = Buffer.from(body.content, encoding === 'base64' ? 'base64' : 'utf8');
  const sha = (await git(dir, ['hash-object', '-w', '--stdin'], bytes)).trim();
  return { status: 201, json: { sha, url: `/git/blobs/${sha}` } };
}

/**
 * Builds the tree in a private index: `base_tree` read in, each entry set (a blob sha, inline
 * `content`, or `sha: null` to delete the path), written out.
 */
async function createTree(dir: string, body: Record<string, unknown>): Promise<Answer> {
  const entries = body.tree;
  if (!Array.isArray(entries)) throw new GitDataError(422, 'Invalid request: tree is missing');
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'pw-fake-tree-'));
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
  try {
    if (typeof body.base_tree === 'string') {
      await git(dir, ['read-tree', body.base_tree], undefined, env).catch(() => {
        throw new GitDataError(422, `base_tree ${body.base_tree} is not a tree`);
      });
    } else await git(dir, ['read-tree', '--empty'], undefined, env);
    const lines: string[] = [];
    for (const raw of entries as Record<string, unknown>[]) {
      const { path: file, mode, type } = raw;
      if (typeof file !== 'string' || typeof mode !== 'string' || file.includes('\n'))
        throw new GitDataError(422, 'Invalid tree entry: path and mode are required');
      if (
        !['100644', '100755', '120000', '160000'].includes(mode) ||
        (type !== undefined && type !== 'blob' && type !== 'commit')
      )
        throw new GitDataError(422, `Invalid tree entry mode ${mode} at ${file}`);
      if (raw.sha === null) {
        lines.push(`0 ${'0'.repeat(40)}\t${file}`);
        continue;
      }
      let sha = raw.sha;
      if (typeof raw.content === 'string')
        sha = (await git(dir, ['hash-object', '-w', '--stdin'], Buffer.from(raw.content))).trim();
      if (typeof sha !== 'string') throw new GitDataError(422, `Invalid tree entry at ${file}: sha or content`);
      if (
        mode !== '160000' &&
        !(await git(dir, ['cat-file', '-e', `${sha}^{blob}`]).then(
          () => true,
          () => false,
        ))
      )
        throw new GitDataError(422, `GitRPC::BadObjectState: ${sha} is not a blob`);
      lines.push(`${mode} ${sha}\t${file}`);
    }
    if (lines.length) await git(dir, ['update-index', '--index-info'], Buffer.from(`${lines.join('\n')}\n`), env);
    const sha = (await git(dir, ['write-tree'], undefined, env)).trim();
    return { status: 201, json: { sha, url: `/git/trees/${sha}`, truncated: false } };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function createCommit(dir: string, body: Record<string, unknown>, verified: Set<string>): Promise<Answer> {
  const { message, tree, parents } = body;
  if (typeof message !== 'string' || typeof tree !== 'string')
    throw new GitDataError(422, 'Invalid request: message and tree are required');
  const parentList = Array.isArray(parents) ? parents.map(String) : [];
  for (const p of parentList)
    if (
      !(await git(dir, ['cat-file', '-e', `${p}^{commit}`]).then(
        () => true,
        () => false,
      ))
    )
      throw new GitDataError(422, `Parent SHA ${p} does not exist`);
  const author: { name: string; email: string; date?: string } = person(body.author) ?? WEB_COMMITTER;
  const committer = person(body.committer);
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: (committer ?? WEB_COMMITTER).name,
    GIT_COMMITTER_EMAIL: (committer ?? WEB_COMMITTER).email,
    ...(author.date ? { GIT_AUTHOR_DATE: author.date } : {}),
    ...(committer?.date ? { GIT_COMMITTER_DATE: committer.date } : {}),
  };
  const args = ['commit-tree', tree, ...parentList.flatMap((p) => ['-p', p]), '-F', '-'];
  const sha = (
    await git(dir, args, Buffer.from(message), env).catch(() => {
      throw new GitDataError(422, `Tree SHA ${tree} does not exist`);
    })
  ).trim();
  // GitHub signs what it commits itself; a commit naming its own committer it does not.
  if (!committer) verified.add(sha);
  return { status: 201, json: await gitCommitJson(dir, sha, verified) };
}

function person(value: unknown): { name: string; email: string; date?: string } | undefined {
  const v = value as { name?: unknown; email?: unknown; date?: unknown } | undefined;
  if (typeof v?.name !== 'string' || typeof v.email !== 'string') return undefined;
  return { name: v.name, email: v.email, ...(typeof v.date === 'string' ? { date: v.date } : {}) };
}

/** A git commit as `GET /git/commits/:sha` shows it, with GitHub's `verification` object. */
async function gitCommitJson(dir: string, sha: string, verified: Set<string>): Promise<Record<string, unknown>> {
  const raw = await git(dir, ['cat-file', 'commit', sha]).catch(() => {
    throw new GitDataError(404, 'Not Found');
  });
  const split = raw.indexOf('\n\n');
  const headers = raw.slice(0, split).split('\n');
  const value = (name: string) => headers.filter((h) => h.startsWith(`${name} `)).map((h) => h.slice(name.length + 1));
  const who = (line: string | undefined) => {
    const m = /^(.*) <(.*)> (\d+) [+-]\d{4}$/.exec(line ?? '');
    return { name: m?.[1] ?? '', email: m?.[2] ?? '', date: new Date(Number(m?.[3] ?? 0) * 1000).toISOString() };
  };
  const isVerified = verified.has(sha);
  return {
    sha,
    url: `/git/commits/${sha}`,
    author: who(value('author')[0]),
    committer: who(value('committer')[0]),
    message: raw.slice(split + 2),
    tree: { sha: value('tree')[0] ?? '', url: `/git/trees/${value('tree')[0] ?? ''}` },
    parents: value('parent').map((p) => ({ sha: p, url: `/git/commits/${p}` })),
    verification: {
      verified: isVerified,
      reason: isVerified ? 'valid' : 'unsigned',
      signature: isVerified ? '-----BEGIN PGP SIGNATURE-----\n(fake)\n-----END PGP SIGNATURE-----' : null,
      payload: isVerified ? raw : null,
      verified_at: isVerified ? new Date().toISOString() : null,
    },
  };
}

/** git with bytes on stdin and extra environment (the private index, the commit's people). */
function git(dir: string, args: string[], input?: Buffer, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        GIT_CONFIG_NOSYSTEM: '1',
        ...env,
      },
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      err += String(c);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('utf8')) : reject(new Error(`git ${args[0]}: ${err.trim()}`)),
    );
    // A command that reads no input may exit before taking it: its answer is what counts.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}
