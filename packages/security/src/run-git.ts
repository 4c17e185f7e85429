import { spawn } from 'node:child_process';

/** git exited non-zero (or could not start). `stdout` is what it printed before (merge-tree lists conflicts there). */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null = null,
    readonly stdout = '',
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/** Credentials for one operation's git traffic (an installation token), never written to disk. */
export interface GitAuth {
  username: string;
  token: string;
}

/** A transport git may use (GIT_ALLOW_PROTOCOL). `ext` and `fd` run commands: they are not in the type. */
export type GitProtocol = 'file' | 'http' | 'https' | 'ssh' | 'git';

interface RunGitOptions {
  /** Written to git's stdin (e.g. `cat-file --batch`). */
  input?: string;
  /**
   * Added to the minimal environment: GIT_INDEX_FILE, a credential helper's variables, a hook's
   * GIT_DIR. The hardened variables are applied after these, so none of them can be undone here.
   */
  env?: Record<string, string>;
  /** `-c` settings (a credential helper). The hardened ones come after and win on a clash. */
  config?: readonly string[];
  /**
   * Transports this call may use. Default none: only a fetch, push or ls-remote names the forge's
   * own (`protocolOf(cloneUrl)`), so no other command can reach anything.
   */
  protocols?: readonly GitProtocol[];
}

/**
 * `-c` settings on every call. Command-line settings outrank every config file, and git hands
 * them to every git it starts itself (GIT_CONFIG_PARAMETERS), so a nested repository's own
 * config cannot undo them either. Each one closes a way for a repository to run code or reach
 * out: hooks, an fsmonitor command, a pager or editor, attributes and excludes from the
 * worker's home, submodule recursion (which would run `git status` inside a nested
 * repository, with that repository's filters), background maintenance, signing programs.
 */
const HARDENED_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=:',
  'core.askPass=',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'diff.ignoreSubmodules=all',
  'status.submoduleSummary=false',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'push.recurseSubmodules=no',
  'gc.auto=0',
  'maintenance.auto=false',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'user.name=Pullwright',
  'user.email=pullwright@users.noreply.local',
  'advice.detachedHead=false',
];

/**
 * Options added right after the subcommand. `--ignore-submodules=all` on the command line is the
 * only form a `.gitmodules` in the worktree (`ignore = none`) cannot override; textconv and
 * external diff drivers are off even though no config we read defines one.
 */
const SUBCOMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  diff: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  status: ['--ignore-submodules=all'],
  log: ['--no-ext-diff', '--no-textconv'],
  show: ['--no-ext-diff', '--no-textconv'],
  commit: ['--no-verify'],
  merge: ['--no-verify'],
  push: ['--no-verify', '--no-recurse-submodules'],
  fetch: ['--no-recurse-submodules'],
};

/**
 * Variables on every call, after the caller's. No system or global config (a filter driver or
 * `git lfs install` in the worker's ~/.gitconfig would otherwise run for any `.gitattributes` a
 * repository ships); no system attributes; no pager, editor or prompt; replace refs ignored, so
 * what the secret scan reads from an object id is what the push sends.
 */
const HARDENED_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  GIT_EDITOR: ':',
  GIT_SEQUENCE_EDITOR: ':',
  GIT_NO_REPLACE_OBJECTS: '1',
};

/** The first argument that is not an option: what `SUBCOMMAND_FLAGS` and error messages key on. */
function subcommandIndex(args: readonly string[]): number {
  return args.findIndex((a) => !a.startsWith('-'));
}

/** The transport a remote URL uses, for `protocols` (`/srv/x.git` and `file://…` are both `file`). */
export function protocolOf(url: string): GitProtocol {
  // `<transport>::<address>` picks a remote helper (`ext::` runs a command).
  const helper = /^([a-z][a-z0-9+.-]*)::/i.exec(url)?.[1];
  if (helper !== undefined) throw new GitCommandError(`git transport ${helper} is not allowed`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return /^[^/]+@[^/:]+:/.test(url) ? 'ssh' : 'file';
  if (scheme === 'file' || scheme === 'http' || scheme === 'https' || scheme === 'ssh' || scheme === 'git')
    return scheme;
  throw new GitCommandError(`git transport ${scheme} is not allowed`);
}

/**
 * The one way the worker runs git (a test fails on any other `spawn('git', …)` in the
 * sources). Every repository is untrusted, and so is everything a check or the model leaves in
 * a worktree: the hardening is built here, after the caller's options, so no call site can
 * forget or undo it — only config we wrote (the mirror's, read-only to the sandbox) is read,
 * nothing in it names a program, and nothing a worktree holds can add one (see
 * docs/decisions.md, "Host git never runs repository code"). Raw bytes out; resolves when git
 * exits 0 and rejects with its stderr otherwise, as soon as it closes.
 */
export function runGit(dir: string, args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  const at = subcommandIndex(args);
  const subcommand = args[at] ?? '';
  const flags = SUBCOMMAND_FLAGS[subcommand] ?? [];
  const argv = [
    '--no-pager',
    ...[...(options.config ?? []), ...HARDENED_CONFIG].flatMap((c) => ['-c', c]),
    '-C',
    dir,
    ...args.slice(0, at + 1),
    ...flags,
    ...args.slice(at + 1),
  ];
  const { input } = options;
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...options.env,
        ...HARDENED_ENV,
        GIT_ALLOW_PROTOCOL: (options.protocols ?? []).join(':'),
      },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new GitCommandError(`git ${subcommand} could not start: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new GitCommandError(
            `git ${subcommand} failed (${code}): ${Buffer.concat(err).toString('utf8').trim()}`,
            code,
            Buffer.concat(out).toString('utf8'),
          ),
        );
    });
    if (input !== undefined) {
      // A git that exits early (bad object name) closes its input: that error is reported by 'close'.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
    }
  });
}
