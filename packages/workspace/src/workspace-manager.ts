import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';
import { type GitAuth, protocolOf, runGit } from '@pullwright/security';
import { catFileBatch } from './cat-file-batch.ts';
import { forgeTransportError } from './forge-transport-error.ts';
import { type GitRemoteAccess, gitClient, isAncestor } from './git-client.ts';
import { findNestedGitData, refuseNestedGitData } from './nested-git-data.ts';

interface PrepareRequest {
  opId: string;
  /** owner/name */
  repo: string;
  cloneUrl: string;
  baseBranch: string;
  branch: string;
  auth?: GitAuth;
  /** False when the caller has just synced the mirror (`syncMirror`): one fetch per job, not two. */
  fetch?: boolean;
  /** The base commit, when the caller has already resolved it from the synced mirror. */
  baseSha?: string;
  /**
   * A repository of its own holding the base commit alone, instead of a worktree of the
   * mirror: shallow at the base (its parents are not there), no remote, no other branch, tag,
   * reflog or object. Nothing from after the base is reachable from it, whatever runs inside
   * (an evaluation attempt must not find the change that followed; see @pullwright/eval).
   */
  baseOnly?: boolean;
}

/** One entry of a commit's tree: `mode` is git's (`100644`, `100755`, `120000` a symlink, `160000` a submodule). */
export interface TreeEntry {
  path: string;
  mode: string;
  /** Bytes of a blob; 0 for a submodule. */
  size: number;
}

export interface PreparedWorkspace {
  dir: string;
  branch: string;
  baseSha: string;
  /** True when the worktree or branch already existed (a retried job). */
  resumed: boolean;
}

/** Serializes work on one mirror within this process; git's own lock files guard across processes. */
class KeyedMutex {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    this.#tails.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }
}

/**
 * Git working copies for operations: one bare mirror per repository (cloned once, fetched
 * before each operation), and a cheap worktree per operation on its own branch.
 *
 * The mirror is `git init --bare` with an explicit fetch refspec, not `clone --mirror`:
 * a mirror clone sets `remote.origin.mirror`, which turns every push from a worktree into
 * a mirror push that would delete the forge's other branches.
 */
/**
 * Ready worktrees kept per repository and workspace directory: enough for the next operations
 * to start without a checkout, bounded so a host with many repositories keeps little disk.
 */
const POOL_SIZE = 2;

export class WorkspaceManager {
  readonly #mutex = new KeyedMutex();
  /** The remote URL each mirror was last given by this process: read from git once, not per job. */
  readonly #remoteUrls = new Map<string, string>();
  /** When this process's last completed fetch of each mirror started (ms since the epoch). */
  readonly #fetchStarted = new Map<string, number>();

  constructor(
    readonly root: string,
    private readonly logger: Logger = silentLogger(),
  ) {}

  mirrorDir(repo: string): string {
    return path.join(this.root, 'mirrors', `${repo}.git`);
  }

  worktreeDir(opId: string): string {
    return path.join(this.root, 'worktrees', opId);
  }

  /** Creates the mirror when missing and fetches every branch. */
  async syncMirror(repo: string, cloneUrl: string, auth?: GitAuth): Promise<string> {
    const dir = this.mirrorDir(repo);
    return this.#mutex.run(dir, () => this.#sync(dir, cloneUrl, auth));
  }

  /**
   * The mirror as of `since` at least: when a fetch that started at or after `since` has
   * completed here (fetched ahead while the job waited in the queue), nothing more is fetched
   * ('ahead'); otherwise it is fetched now ('now').
   */
  async syncMirrorSince(
    repo: string,
    cloneUrl: string,
    auth: GitAuth | undefined,
    since: number,
  ): Promise<'ahead' | 'now'> {
    const dir = this.mirrorDir(repo);
    return this.#mutex.run(dir, async () => {
      if ((this.#fetchStarted.get(dir) ?? Number.NEGATIVE_INFINITY) >= since) return 'ahead';
      await this.#sync(dir, cloneUrl, auth);
      return 'now';
    });
  }

  async #sync(dir: string, cloneUrl: string, auth?: GitAuth): Promise<string> {
    if (!existsSync(path.join(dir, 'HEAD'))) {
      // Built aside and renamed into place: another worker process sharing this directory
      // (or a kill half-way) never sees, or leaves, a mirror without its remote.
      await mkdir(path.dirname(dir), { recursive: true });
      const staging = `${dir}.${process.pid}.${Date.now().toString(36)}.tmp`;
      const git = gitClient(path.dirname(dir));
      await git.raw(['init', '--bare', staging]);
      // `remote add` writes the fetch refspec this needs, `+refs/heads/*:refs/remotes/origin/*`
      // (a cold operation's first call waits for each git process here: one fewer).
      await gitClient(staging).raw(['remote', 'add', 'origin', cloneUrl]);
      await rename(staging, dir).catch(async (err: NodeJS.ErrnoException) => {
        await rm(staging, { recursive: true, force: true });
        // Another process won the race: its mirror is as good as ours.
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      });
    } else {
      // Written only when it changed: a worker killed mid-write leaves config.lock behind,
      // and every later write of the config would fail on it (the crash loop on a Cluster
      // found this). Reading needs no lock.
      const current =
        this.#remoteUrls.get(dir) ??
        (
          await gitClient(dir)
            .raw(['config', '--get', 'remote.origin.url'])
            .catch(() => '')
        ).trim();
      if (current !== cloneUrl) await gitClient(dir).raw(['remote', 'set-url', 'origin', cloneUrl]);
    }
    this.#remoteUrls.set(dir, cloneUrl);
    const started = Date.now();
    await gitClient(dir, { auth, protocol: protocolOf(cloneUrl) }).raw([
      'fetch',
      '--quiet',
      '--prune',
      '--no-tags',
      'origin',
    ]);
    this.#fetchStarted.set(dir, started);
    return dir;
  }

  /**
   * A worktree for the operation on `branch`, created from the base branch, or the
   * existing one when a retried job comes back (its work is kept, not redone).
   */
  async prepare(req: PrepareRequest): Promise<PreparedWorkspace> {
    const mirror =
      req.fetch === false ? this.mirrorDir(req.repo) : await this.syncMirror(req.repo, req.cloneUrl, req.auth);
    const git = gitClient(mirror);
    const baseSha = req.baseSha ?? (await this.branchSha(req.repo, req.baseBranch));
    if (!baseSha) {
      throw new PullwrightError('git_failed', `base branch ${req.baseBranch} does not exist in ${req.repo}`, {
        repo: req.repo,
        baseBranch: req.baseBranch,
      });
    }
    const dir = this.worktreeDir(req.opId);
    return this.#mutex.run(mirror, async () => {
      if (existsSync(path.join(dir, '.git'))) {
        this.logger.info({ opId: req.opId, dir }, 'reusing existing worktree');
        return { dir, branch: req.branch, baseSha, resumed: true };
      }
      await mkdir(path.dirname(dir), { recursive: true });
      if (req.baseOnly) {
        await this.#baseOnlyRepository(mirror, dir, req.branch, baseSha);
        return { dir, branch: req.branch, baseSha, resumed: false };
      }
      // Which of the branch's refs exist: the job's own (a retry on this host) or the forge's (pushed by an earlier attempt).
      const refs = await git.raw([
        'for-each-ref',
        '--format=%(refname)',
        `refs/heads/${req.branch}`,
        `refs/remotes/origin/${req.branch}`,
      ]);
      const local = refs.includes(`refs/heads/${req.branch}\n`);
      const remote = refs.includes(`refs/remotes/origin/${req.branch}\n`);
      // The operation's previous job (the run a revision follows) may still hold the branch in
      // the worktree it is about to pool: the branch is this operation's alone, so sharing it
      // for that moment is safe, where git would refuse a branch checked out elsewhere.
      if (await this.#takePooled(req.repo, dir)) {
        // A ready worktree of an earlier operation (cleaned when it was pooled): switching it
        // costs the files that differ, not a checkout.
        const checkout = ['checkout', '-q', '--force', '--ignore-other-worktrees'];
        const wt = gitClient(dir);
        if (local) await wt.raw([...checkout, req.branch]);
        else if (remote) await wt.raw([...checkout, '-B', req.branch, `origin/${req.branch}`]);
        else await wt.raw([...checkout, '--no-track', '-B', req.branch, baseSha]);
      } else {
        const add = local
          ? ['worktree', 'add', '--force', dir, req.branch]
          : remote
            ? // Pushed by an earlier attempt: continue from what the forge has.
              ['worktree', 'add', '-b', req.branch, dir, `origin/${req.branch}`]
            : ['worktree', 'add', '--no-track', '-b', req.branch, dir, baseSha];
        // A worktree deleted behind git's back still holds its branch: prune the stale entry and try once more.
        await git.raw(add).catch(async () => {
          await git.raw(['worktree', 'prune']);
          await git.raw(add);
        });
      }
      return { dir, branch: req.branch, baseSha, resumed: Boolean(local || remote) };
    });
  }

  /**
   * `dir` as a new repository with exactly the base commit's objects (the commit, its tree and
   * blobs: `rev-list --objects --no-walk`), packed straight from the mirror; the commit is
   * marked shallow so git never looks for its parents; `branch` points at it and is checked out.
   */
  async #baseOnlyRepository(mirror: string, dir: string, branch: string, baseSha: string): Promise<void> {
    const known = await runGit(mirror, ['cat-file', '-e', `${baseSha}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (!known)
      throw new PullwrightError('git_failed', `base commit ${baseSha} is not in the repository's history`, { baseSha });
    await gitClient(path.dirname(dir)).raw(['init', '--quiet', `--initial-branch=${branch}`, dir]);
    const objects = await runGit(mirror, ['rev-list', '--objects', '--no-walk', baseSha]);
    await runGit(mirror, ['pack-objects', '--quiet', path.join(dir, '.git', 'objects', 'pack', 'pack')], {
      input: objects.toString('utf8'),
    });
    await writeFile(path.join(dir, '.git', 'shallow'), `${baseSha}\n`);
    const git = gitClient(dir);
    await git.raw(['update-ref', `refs/heads/${branch}`, baseSha]);
    await git.raw(['reset', '--quiet', '--hard', baseSha]);
  }

  /** The commit a fetched branch of the mirror points at, or undefined when the forge has no such branch. */
  async branchSha(repo: string, branch: string): Promise<string | undefined> {
    const out = await gitClient(this.mirrorDir(repo))
      .raw(['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}^{commit}`])
      .catch(() => '');
    return out.trim() || undefined;
  }

  /** A file's text at `sha` in the mirror (what the base commit says), or undefined when it has none. */
  async readAt(repo: string, sha: string, file: string): Promise<string | undefined> {
    return (await this.readManyAt(repo, sha, [file]))[0];
  }

  /** Several files' texts at `sha`, in one git call; undefined for each one the commit lacks. */
  async readManyAt(repo: string, sha: string, files: readonly string[]): Promise<Array<string | undefined>> {
    const objects = await catFileBatch(
      this.mirrorDir(repo),
      files.map((f) => `${sha}:${f}`),
    );
    return objects.map((o) => ('missing' in o || o.type !== 'blob' ? undefined : o.content.toString('utf8')));
  }

  /** Every file path of the commit `sha` in the mirror (its git objects, never a worktree). */
  async listFilesAt(repo: string, sha: string): Promise<string[]> {
    const out = await gitClient(this.mirrorDir(repo)).raw(['ls-tree', '-r', '-z', '--name-only', '--full-tree', sha]);
    return out.split('\0').filter(Boolean);
  }

  /**
   * Every entry of the commit `sha`'s tree in the mirror, with its mode and (for a blob) its
   * size: what a reader of that commit needs to tell a regular file from a symlink or a
   * submodule, and a large file from a small one, without a worktree.
   */
  async treeAt(repo: string, sha: string): Promise<TreeEntry[]> {
    const out = await gitClient(this.mirrorDir(repo)).raw(['ls-tree', '-r', '-l', '-z', '--full-tree', sha]);
    return out
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        // `<mode> <type> <oid> <size>\t<path>`: the size is `-` for a submodule.
        const tab = line.indexOf('\t');
        const [mode = '', , , size = '-'] = line.slice(0, tab).split(/\s+/);
        return { path: line.slice(tab + 1), mode, size: size === '-' ? 0 : Number(size) };
      });
  }

  /**
   * Files that differ from `baseSha`, including new untracked ones. `-z` gives names as they are:
   * without it git C-quotes unusual ones (`"sp\303\251cial"`), and the lock and the PathGuard
   * would see a name no file has.
   */
  async changedFiles(dir: string, baseSha: string): Promise<string[]> {
    await refuseNestedGitData(dir);
    const git = gitClient(dir);
    await git.raw(['add', '--all', '--intent-to-add']);
    const out = await git.raw(['diff', '--name-only', '-z', '--no-renames', baseSha]);
    return out.split('\0').filter(Boolean).sort();
  }

  /** The worktree against `baseSha`; `binary` gives binary files as applicable patches, not "Binary files differ". */
  async diff(dir: string, baseSha: string, options: { binary?: boolean } = {}): Promise<string> {
    await refuseNestedGitData(dir);
    const git = gitClient(dir);
    await git.raw(['add', '--all', '--intent-to-add']);
    return git.raw(['diff', '--no-color', '--no-ext-diff', ...(options.binary ? ['--binary'] : []), baseSha]);
  }

  /** Commits everything in the worktree; returns the new head sha, or undefined when nothing changed. */
  async commitAll(dir: string, message: string, trailers: Record<string, string>): Promise<string | undefined> {
    await refuseNestedGitData(dir);
    const git = gitClient(dir);
    await git.raw(['add', '--all']);
    const staged = (await git.raw(['diff', '--cached', '--name-only'])).trim();
    if (!staged) return undefined;
    const trailerText = Object.entries(trailers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
    await git.raw(['commit', '--no-verify', '-m', message, '-m', trailerText]);
    return (await git.raw(['rev-parse', 'HEAD'])).trim();
  }

  /** The branch's sha on the forge right now, or undefined when it does not exist there. */
  async remoteBranchSha(dir: string, branch: string, auth?: GitAuth): Promise<string | undefined> {
    const out = await gitClient(dir, await this.#forgeAccess(dir, auth))
      .raw(['ls-remote', '--heads', 'origin', `refs/heads/${branch}`])
      .catch((err: unknown) => {
        throw forgeTransportError(`reading ${branch} on the forge`, err) ?? err;
      });
    return out.split(/\s/)[0] || undefined;
  }

  /** Whether `ancestor` is in `descendant`'s history, as the worktree at `dir` knows it. */
  async isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
    return isAncestor(gitClient(dir), ancestor, descendant);
  }

  async headSha(dir: string): Promise<string> {
    return (await gitClient(dir).raw(['rev-parse', 'HEAD'])).trim();
  }

  /**
   * Pushes the branch, never forced (the git client refuses every force flag): the forge
   * accepts only a fast-forward, so a push cannot overwrite commits it does not contain.
   * When `expectedRemoteSha` is given ('' for "no branch yet") the forge must still have that
   * sha, so a stale worker stops instead of stacking on a newer push.
   */
  async push(dir: string, branch: string, options: { auth?: GitAuth; expectedRemoteSha?: string } = {}): Promise<void> {
    if (options.expectedRemoteSha !== undefined) {
      const now = (await this.remoteBranchSha(dir, branch, options.auth)) ?? '';
      if (now !== options.expectedRemoteSha) {
        throw new PullwrightError(
          'git_failed',
          `push of ${branch} was refused: the forge has ${now.slice(0, 12) || 'no branch'}, expected ${options.expectedRemoteSha.slice(0, 12) || 'no branch'}`,
          { branch },
        );
      }
    }
    try {
      await gitClient(dir, await this.#forgeAccess(dir, options.auth)).raw([
        'push',
        '--no-verify',
        '--porcelain',
        'origin',
        `HEAD:refs/heads/${branch}`,
      ]);
    } catch (err) {
      throw (
        forgeTransportError(`push of ${branch}`, err) ??
        new PullwrightError('git_failed', `push of ${branch} was refused: ${firstLine(err)}`, { branch })
      );
    }
  }

  /**
   * Makes `sha` — the head of `branch` on the forge, where the forge's API recreated the
   * worktree's new commits (signed) — the worktree's HEAD, when it is what the worktree holds:
   * the same tree as HEAD and a descendant of `since` (the branch's sha before; '' for none).
   * Only the commits change, never a file. False when the forge's head is something else.
   */
  async adoptForgeHead(
    dir: string,
    branch: string,
    sha: string,
    options: { auth?: GitAuth; since: string },
  ): Promise<boolean> {
    const git = gitClient(dir, await this.#forgeAccess(dir, options.auth));
    try {
      await git.raw(['fetch', '--no-tags', 'origin', `refs/heads/${branch}`]);
    } catch (err) {
      throw (
        forgeTransportError(`fetching ${branch}`, err) ??
        new PullwrightError('git_failed', `fetching ${branch} failed: ${firstLine(err)}`, { branch })
      );
    }
    const local = gitClient(dir);
    const tree = async (ref: string) =>
      (await local.raw(['rev-parse', '--verify', '--quiet', `${ref}^{tree}`]).catch(() => '')).trim();
    if (!(await tree(sha)) || (await tree(sha)) !== (await tree('HEAD'))) return false;
    if (options.since && !(await isAncestor(local, options.since, sha))) return false;
    await local.raw(['reset', '--soft', sha]);
    return true;
  }

  /**
   * A throwaway detached checkout of `sha` from the repo's mirror (base-commit checks,
   * red/green proofs). Removed by `fn`'s end whatever happens.
   */
  async withTemporaryWorktree<T>(repo: string, sha: string, fn: (dir: string) => Promise<T>): Promise<T> {
    const mirror = this.mirrorDir(repo);
    const dir = path.join(
      this.root,
      'tmp',
      `${path.basename(repo)}-${sha.slice(0, 12)}-${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    );
    await mkdir(path.dirname(dir), { recursive: true });
    await this.#mutex.run(mirror, () => gitClient(mirror).raw(['worktree', 'add', '--detach', dir, sha]));
    try {
      return await fn(dir);
    } finally {
      await this.#mutex.run(mirror, async () => {
        await gitClient(mirror)
          .raw(['worktree', 'remove', '--force', dir])
          .catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      });
    }
  }

  /**
   * Ends an operation's worktree. It goes back to the repository's pool of ready worktrees
   * (at most POOL_SIZE; reset, cleaned of every untracked and ignored file, detached), so the
   * next operation switches it instead of checking out the whole tree; otherwise it is removed.
   */
  async remove(opId: string, repo: string): Promise<void> {
    const dir = this.worktreeDir(opId);
    const mirror = this.mirrorDir(repo);
    await this.#mutex.run(mirror, async () => {
      // A repository of its own (`baseOnly`) is no worktree of the mirror: it is not pooled.
      const ownRepository = statSync(path.join(dir, '.git'), { throwIfNoEntry: false })?.isDirectory() ?? false;
      if (ownRepository) {
        await rm(dir, { recursive: true, force: true });
        return;
      }
      // A worktree holding nested git data is not reused: `clean` keeps a `.git` inside a tracked directory.
      if (
        existsSync(mirror) &&
        existsSync(path.join(dir, '.git')) &&
        (await this.#pooled(repo)).length < POOL_SIZE &&
        (await findNestedGitData(dir).catch(() => ['?'])).length === 0
      ) {
        try {
          const wt = gitClient(dir);
          await wt.raw(['checkout', '-q', '--force', '--detach']);
          await wt.raw(['clean', '-ffdxq']);
          const target = path.join(
            this.#poolDir(repo),
            `${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
          );
          await mkdir(path.dirname(target), { recursive: true });
          await gitClient(mirror).raw(['worktree', 'move', dir, target]);
          return;
        } catch (err) {
          this.logger.warn({ opId, err: firstLine(err) }, 'worktree not pooled; removing it');
        }
      }
      if (existsSync(mirror))
        await gitClient(mirror)
          .raw(['worktree', 'remove', '--force', dir])
          .catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      if (existsSync(mirror)) await gitClient(mirror).raw(['worktree', 'prune']);
    });
  }

  /** The job's token and the transport of the worktree's `origin` (the forge URL we set on the mirror). */
  async #forgeAccess(dir: string, auth: GitAuth | undefined): Promise<GitRemoteAccess> {
    const url = (await gitClient(dir).raw(['remote', 'get-url', 'origin'])).trim();
    return { auth, protocol: protocolOf(url) };
  }

  #poolDir(repo: string): string {
    return path.join(this.root, 'pool', repo);
  }

  async #pooled(repo: string): Promise<string[]> {
    return (await readdir(this.#poolDir(repo)).catch(() => [])).map((e) => path.join(this.#poolDir(repo), e));
  }

  /** Moves a pooled worktree to `dir`; false when none is free (another process may take one first). */
  async #takePooled(repo: string, dir: string): Promise<boolean> {
    for (const entry of await this.#pooled(repo)) {
      const moved = await gitClient(this.mirrorDir(repo))
        .raw(['worktree', 'move', entry, dir])
        .then(
          () => true,
          () => false,
        );
      if (moved) return true;
    }
    return false;
  }
}

function firstLine(err: unknown): string {
  return (
    String((err as Error)?.message ?? err)
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? 'unknown error'
  );
}
