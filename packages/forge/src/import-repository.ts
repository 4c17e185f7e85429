import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PullwrightError, RepoSlug, ValidationError } from '@pullwright/core';
import { type GitProtocol, runGit } from '@pullwright/security';

/**
 * Transports a clone may use. `ext::` runs an arbitrary command and `fd::` reads a file
 * descriptor: a source string must never be able to do either.
 */
const ALLOWED_PROTOCOLS: readonly GitProtocol[] = ['file', 'git', 'http', 'https', 'ssh'];
const URL_SOURCE = /^(?:https?|ssh|git|file):\/\//i;
/** `git@host:owner/name.git`, the form GitHub's "Clone" button shows for SSH. */
const SCP_SOURCE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/\\]/;

async function git(args: string[], cwd = process.cwd()): Promise<string> {
  const env: Record<string, string> = {};
  // An SSH source uses the person's own agent and keys (ssh reads them from HOME), as `git clone` would.
  for (const key of ['SSH_AUTH_SOCK', 'HOME'] as const) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  return (await runGit(cwd, args, { env, protocols: ALLOWED_PROTOCOLS })).toString('utf8');
}

function bad(field: string, reason: string): ValidationError {
  return new ValidationError(`${field}: ${reason}`, [{ field, reason }]);
}

/** `owner/name` from the last two segments of a URL (`…/acme/api.git` → `acme/api`). */
function nameFromUrl(source: string): string | undefined {
  const tail = source.replace(/^[^:]+:\/*[^/]*\/?|^[^@]+@[^:]+:/, '').replace(/\.git\/?$|\/+$/g, '');
  const parts = tail.split('/').filter(Boolean);
  return parts.length >= 2 ? parts.slice(-2).join('/') : undefined;
}

/** A slug-safe version of a directory name: `My Project!` → `my-project`. */
function slugPart(name: string): string {
  return (
    name
      .replace(/\.git$/, '')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '') || 'repo'
  );
}

interface ImportSource {
  /** What git clones: an absolute path or a URL. */
  location: string;
  /** The name it gets when none is given. */
  suggestedName: string | undefined;
}

/**
 * Reads what `repo add` was given: an existing directory (a working copy or a bare
 * repository) or a git URL. Anything else is refused with the reason.
 */
export function parseImportSource(source: string, cwd = process.cwd()): ImportSource {
  if (source.startsWith('-')) throw bad('source', 'must be a path or a git URL, not an option');
  if (URL_SOURCE.test(source) || SCP_SOURCE.test(source)) {
    return { location: source, suggestedName: nameFromUrl(source) };
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(source) || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source)) {
    throw bad('source', `transport not allowed (use a path, file://, https://, ssh:// or git://)`);
  }
  const dir = path.resolve(cwd, source);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw bad('source', `${dir} is not a directory`);
  return { location: dir, suggestedName: `local/${slugPart(path.basename(dir))}` };
}

interface ImportedRepository {
  repo: string;
  dir: string;
  defaultBranch: string;
  branches: number;
}

/**
 * Imports a repository into the local forge at `<root>/<owner>/<name>.git`: a bare clone
 * of every branch and tag (commits only: uncommitted changes stay where they are), with
 * the source's default branch as HEAD. A name already taken is refused, never overwritten.
 */
export async function importRepository(
  root: string,
  source: ImportSource,
  name = source.suggestedName,
): Promise<ImportedRepository> {
  if (!name) throw bad('--name', 'cannot tell owner/name from the source; pass --name owner/name');
  const parsed = RepoSlug.safeParse(name);
  if (!parsed.success) throw bad('--name', `${JSON.stringify(name)} is not owner/name`);
  const repo = parsed.data;
  const dir = path.join(root, `${repo}.git`);
  if (existsSync(dir)) throw new PullwrightError('conflict', `${repo} already exists in the local forge`);
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    // --no-hardlinks: the forge's objects must not change when the source's are repacked.
    await git(['clone', '--bare', '--no-hardlinks', '--quiet', '--', source.location, dir]);
    const heads = await git(['for-each-ref', '--format=%(refname)', 'refs/heads'], dir);
    const branches = heads.split('\n').filter(Boolean).length;
    if (branches === 0) throw bad('source', 'has no commits on any branch');
    const defaultBranch = (await git(['symbolic-ref', '--short', 'HEAD'], dir)).trim();
    return { repo, dir, defaultBranch, branches };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    if (err instanceof PullwrightError) throw err;
    throw bad('source', `git clone failed: ${(err as Error).message.trim().split('\n').slice(-1)[0]}`);
  }
}

/** Every repository in the local forge, with its default branch. */
export async function listRepositories(root: string): Promise<{ repo: string; defaultBranch: string }[]> {
  const found: { repo: string; defaultBranch: string }[] = [];
  const owners = existsSync(root) ? await readdir(root, { withFileTypes: true }) : [];
  for (const owner of owners.filter((d) => d.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const names = await readdir(path.join(root, owner.name), { withFileTypes: true });
    for (const entry of names.filter((d) => d.isDirectory() && d.name.endsWith('.git'))) {
      const dir = path.join(root, owner.name, entry.name);
      if (!existsSync(path.join(dir, 'HEAD'))) continue;
      const head = await git(['symbolic-ref', '--short', 'HEAD'], dir).catch(() => '');
      found.push({ repo: `${owner.name}/${entry.name.slice(0, -4)}`, defaultBranch: head.trim() });
    }
  }
  return found.sort((a, b) => a.repo.localeCompare(b.repo));
}
