import { GitCommandError, runGit as git } from '@pullwright/security';
import { catFileBatch } from './cat-file-batch.ts';

/** One file a push would add: a blob in some new commit's tree that the remote does not have at that path. */
interface PushedFile {
  path: string;
  /** The blob's object id. */
  blob: string;
  /** The bytes as stored: no textconv, no filters, no `.gitattributes` diff settings applied. */
  content: Buffer;
  /**
   * The blob at the same path in the first excluded commit (the one the change starts from),
   * when there is one: what a secret scan compares with to tell a secret the change adds from
   * one the file already held.
   */
  before?: Buffer;
}

/** What a push of `head` sends beyond what the remote already has. */
interface PushContent {
  /** New commits, oldest first, with their full messages. */
  commits: Array<{ sha: string; message: string }>;
  /** Every (path, blob) of every new commit's tree that none of the excluded trees has. */
  files: PushedFile[];
  /**
   * Paths where a new commit's tree holds a gitlink (a submodule commit) that none of the
   * excluded trees has: a nested repository the change would publish.
   */
  gitlinks: string[];
}

/** `ls-tree -r -z` of a commit: [path, object id, type] for every blob and gitlink (`commit`). */
async function treeEntries(dir: string, commit: string): Promise<Array<[string, string, string]>> {
  const out = (await git(dir, ['ls-tree', '-r', '-z', '--full-tree', commit])).toString('utf8');
  const entries: Array<[string, string, string]> = [];
  for (const record of out.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [, type, oid] = record.slice(0, tab).split(' ');
    if (type === 'blob' || type === 'commit') entries.push([record.slice(tab + 1), oid!, type]);
  }
  return entries;
}

/**
 * What pushing `head` to a remote that already has `exclude` (the base commit, the remote
 * branch's current head) would publish: each new commit's message, and every blob any new
 * commit's tree holds at a path where no excluded tree holds the same blob, read with
 * `git cat-file` rather than from `git diff` text, so binary files, `-diff` attributes,
 * textconv and filters cannot hide content, and a secret added in one commit and removed
 * in the next is still seen: both commits are pushed. Contents are held in memory.
 */
export async function listPushContent(dir: string, head: string, exclude: readonly string[]): Promise<PushContent> {
  const revs = (await git(dir, ['rev-list', '--reverse', head, '--not', ...exclude, '--']))
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  if (revs.length === 0) return { commits: [], files: [], gitlinks: [] };

  const known = new Set<string>();
  const start = new Map<string, string>();
  for (const [i, commit] of exclude.entries()) {
    for (const [path, oid, type] of await treeEntries(dir, commit)) {
      known.add(`${oid} ${path}`);
      if (i === 0 && type === 'blob') start.set(path, oid);
    }
  }
  const wanted = new Map<string, { path: string; blob: string }>();
  const gitlinks = new Set<string>();
  for (const commit of revs) {
    for (const [path, oid, type] of await treeEntries(dir, commit)) {
      const key = `${oid} ${path}`;
      if (known.has(key)) continue;
      if (type === 'commit') gitlinks.add(path);
      else if (!wanted.has(key)) wanted.set(key, { path, blob: oid });
    }
  }

  const blobs = [...wanted.values()].flatMap((w) => [w.blob, ...(start.has(w.path) ? [start.get(w.path)!] : [])]);
  const oids = [...revs, ...new Set(blobs)];
  const objects = new Map<string, Buffer>();
  for (const o of await catFileBatch(dir, oids)) {
    if ('missing' in o) throw new GitCommandError(`object ${o.name} is missing`);
    objects.set(o.name, o.content);
  }
  const commits = revs.map((sha) => {
    const raw = objects.get(sha)!;
    // A commit object is headers, a blank line, then the message.
    const split = raw.indexOf('\n\n');
    return { sha, message: split < 0 ? '' : raw.subarray(split + 2).toString('utf8') };
  });
  const files = [...wanted.values()].map((w) => {
    const before = start.get(w.path);
    return { ...w, content: objects.get(w.blob)!, ...(before ? { before: objects.get(before)! } : {}) };
  });
  return { commits, files, gitlinks: [...gitlinks].sort() };
}
