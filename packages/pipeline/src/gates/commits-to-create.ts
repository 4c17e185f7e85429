import type { CommitToCreate, TreeChange } from '@pullwright/forge';
import { runGit } from '@pullwright/security';

/** File modes the git-data API takes for a blob; a gitlink (160000) it cannot be given as one. */
const BLOB_MODES = new Set(['100644', '100755', '120000']);

/**
 * The commits of `head` that none of `since` has, oldest first, as the forge's API recreates
 * them: tree, first parent's tree, parents, message (trailers included) and author as stored,
 * and the paths each changes against its first parent. Or why the API cannot express them.
 */
export async function commitsToCreate(
  dir: string,
  head: string,
  since: readonly string[],
): Promise<CommitToCreate[] | { unsupported: string }> {
  const shas = text(await runGit(dir, ['rev-list', '--reverse', '--topo-order', head, ...since.map((s) => `^${s}`)]))
    .split('\n')
    .filter(Boolean);
  const commits: CommitToCreate[] = [];
  for (const sha of shas) {
    const raw = text(await runGit(dir, ['cat-file', 'commit', sha]));
    const split = raw.indexOf('\n\n');
    const headers = raw.slice(0, split < 0 ? raw.length : split).split('\n');
    const message = split < 0 ? '' : raw.slice(split + 2);
    const value = (name: string) =>
      headers.filter((h) => h.startsWith(`${name} `)).map((h) => h.slice(name.length + 1));
    const unknown = headers
      .map((h) => h.split(' ')[0])
      .find((n) => !['tree', 'parent', 'author', 'committer'].includes(n ?? ''));
    if (unknown) return { unsupported: `commit ${sha.slice(0, 12)} has a "${unknown}" header the API cannot write` };
    const parents = value('parent');
    const author = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(value('author')[0] ?? '');
    if (!parents[0] || !author) return { unsupported: `commit ${sha.slice(0, 12)} is a root commit or has no author` };
    const changes = await changesOf(dir, parents[0], sha);
    if ('unsupported' in changes) return changes;
    commits.push({
      sha,
      parents,
      tree: value('tree')[0] ?? '',
      baseTree: text(await runGit(dir, ['rev-parse', `${parents[0]}^{tree}`])).trim(),
      message,
      author: { name: author[1]!, email: author[2]!, date: isoDate(Number(author[3]), author[4]!) },
      changes: changes.list,
    });
  }
  return commits;
}

/** `diff-tree --raw -z`: `:<old mode> <new mode> <old sha> <new sha> <status>\0<path>\0` per path. */
async function changesOf(
  dir: string,
  parent: string,
  sha: string,
): Promise<{ list: TreeChange[] } | { unsupported: string }> {
  const fields = text(await runGit(dir, ['diff-tree', '-r', '-z', '--raw', '--no-renames', parent, sha])).split('\0');
  const list: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [, mode, , blob, status] = (fields[i] ?? '').split(' ');
    const path = fields[i + 1] ?? '';
    if (status === 'D') list.push({ path, deleted: true });
    else if (mode && BLOB_MODES.has(mode) && blob)
      list.push({ path, mode: mode as '100644' | '100755' | '120000', blob });
    else return { unsupported: `${path} has mode ${mode}, which the API cannot write` };
  }
  return { list };
}

/** Git's seconds and offset as ISO 8601 with the same offset (the API keeps it). */
function isoDate(seconds: number, offset: string): string {
  const sign = offset.startsWith('-') ? -1 : 1;
  const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  const local = new Date((seconds + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${offset.slice(0, 3)}:${offset.slice(3, 5)}`;
}

function text(out: Buffer): string {
  return out.toString('utf8');
}
