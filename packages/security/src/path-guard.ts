import { lstat, realpath, type stat } from 'node:fs/promises';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';
import { isDotGitName } from './dot-git-name.ts';
import { GitignoreMatcher } from './gitignore-matcher.ts';
import { pathSpellings } from './path-spellings.ts';
import { DOTENV_FILE_NAME } from './secret-file-name.ts';

export type PathRule =
  | 'absolute'
  | 'traversal'
  | 'nul_byte'
  | 'control_char'
  | 'too_long'
  | 'git_internal'
  | 'symlink_escape'
  | 'hard_link'
  | 'special_file'
  | 'protected'
  | 'undeletable'
  | 'gitignored'
  | 'secret_file'
  | 'empty';

/** A refusal the model sees: it names the rule, never file content. */
export class PathRefusedError extends PullwrightError<{ requested: string; rule: PathRule }> {
  constructor(requested: string, rule: PathRule) {
    // JSON quoting keeps control characters and newlines in a hostile name out of log lines.
    super('path_refused', `path refused (${rule}): ${JSON.stringify(requested.slice(0, 300))}`, { requested, rule });
  }

  get rule(): PathRule {
    return this.context.rule;
  }
}

/**
 * Files the agent must not change: they define how changes are checked, built and shipped
 * (seeds 000/003: `.gitignore`, lock files, `build.sh`; CI config; our own policy file).
 * Globs, matched case-insensitively against the root-relative path.
 */
export const DEFAULT_PROTECTED: readonly string[] = [
  '**/.gitignore',
  '**/.gitattributes',
  '.gitmodules',
  '**/package-lock.json',
  '**/npm-shrinkwrap.json',
  '**/yarn.lock',
  '**/pnpm-lock.yaml',
  '**/bun.lock',
  '**/bun.lockb',
  '**/Cargo.lock',
  '**/poetry.lock',
  '**/Pipfile.lock',
  '**/uv.lock',
  '**/Gemfile.lock',
  '**/composer.lock',
  '**/go.sum',
  'build.sh',
  '.pullwright.yml',
  '.github/workflows/**',
  '.github/actions/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  'Jenkinsfile',
  '.husky/**',
  // Seed 003's critical files: the supervisor's own scripts, instructions and configuration
  // (`agent-config/` holds the API key there), and build output.
  '**/codeRollup.sh',
  '**/LLMInstructions.md',
  '**/UserSpecification.md',
  'agent-config/**',
  'target/**',
];

/**
 * Files the agent may edit but never delete (seed 000: a web app without its entry points,
 * manifest or bundler config does not build, and no request asks for that). Root-relative.
 */
const DEFAULT_UNDELETABLE: readonly string[] = ['package.json', 'index.html', 'vite.config.js', 'src/main.jsx'];

/** Files that usually hold credentials: neither read nor written. Tested per path segment. */
export const SECRET_FILE_PATTERNS: readonly RegExp[] = [
  DOTENV_FILE_NAME,
  /\.(pem|key|p12|pfx|jks|keystore|ppk|kdbx|tfstate|tfstate\.backup)$/i,
  /(^|\/)id_(rsa|dsa|ecdsa|ed25519)[^/]*$/i,
  /(^|\/)(credentials|service[-_]account[^/]*|client_secret[^/]*)(\.json)?$/i,
  /(^|\/)\.(npmrc|yarnrc\.yml|pypirc|netrc|git-credentials|pgpass|dockercfg|htpasswd)$/i,
  /(^|\/)\.(aws|ssh|gnupg|kube|docker)(\/|$)/i,
  /(^|\/)\.config\/gcloud(\/|$)/i,
  /(^|\/)secrets?(\/|$)/i,
];

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split('**/')
    .map((part) =>
      part
        .split('**')
        .map((p) =>
          p
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*'),
    )
    .join('(?:.*/)?');
  return new RegExp(`^${escaped}$`, 'i');
}

interface PathGuardOptions {
  /** Globs refused for writing. Default DEFAULT_PROTECTED; pass a list to replace it. */
  protected?: readonly string[];
  /** Globs that may be written but not deleted. Default DEFAULT_UNDELETABLE. */
  undeletable?: readonly string[];
  /** Patterns refused for reading and writing. Default SECRET_FILE_PATTERNS. */
  secretFiles?: readonly RegExp[];
  /** Refuse writes to paths the worktree's .gitignore files ignore. Default true. */
  refuseGitignored?: boolean;
}

/** Paths longer than this are refused: no source file needs one, and PATH_MAX is 4096. */
const MAX_PATH = 1024;

/**
 * Resolves a model-supplied path inside one worktree, or refuses it with the rule broken.
 *
 * Two layers. Lexical: every plausible reading of the string (percent-decoded, NFKC,
 * backslashes as separators — see pathSpellings) must be relative, free of `..`, control
 * characters and `.git` in any spelling. Physical: the deepest existing ancestor is
 * resolved with realpath (so a symlink in ANY component counts), must stay inside the
 * root's real path, and the resolved relative path is checked again against `.git`,
 * secret and protected names — a symlink `notes.txt -> .env` is refused like `.env`.
 *
 * The returned path is the fully resolved real path: callers open that, not the requested
 * spelling, so a symlink swapped in at the requested name after the check is not followed.
 * (A directory swapped between check and open remains a narrow race; the sandbox runs no
 * repo command while a file tool runs.)
 */
export class PathGuard {
  readonly #protected: RegExp[];
  readonly #undeletable: RegExp[];
  readonly #secretFiles: readonly RegExp[];
  readonly #refuseGitignored: boolean;

  constructor(
    readonly root: string,
    options: PathGuardOptions = {},
  ) {
    this.#protected = (options.protected ?? DEFAULT_PROTECTED).map(globToRegExp);
    this.#undeletable = (options.undeletable ?? DEFAULT_UNDELETABLE).map(globToRegExp);
    this.#secretFiles = options.secretFiles ?? SECRET_FILE_PATTERNS;
    this.#refuseGitignored = options.refuseGitignored ?? true;
  }

  /** Lexical checks: returns the normalized relative path (posix separators), '.' for the root. */
  normalize(requested: string): string {
    if (requested.includes('\0')) throw new PathRefusedError(requested, 'nul_byte');
    if (requested.trim() === '') throw new PathRefusedError(requested, 'empty');
    if (requested.length > MAX_PATH) throw new PathRefusedError(requested, 'too_long');
    let literal: string | undefined;
    for (const spelling of pathSpellings(requested)) {
      if (spelling.includes('\0')) throw new PathRefusedError(requested, 'nul_byte');
      // C0/C1 controls and DEL: newlines in names forge log lines and diff headers.
      if (/[\u0001-\u001f\u007f-\u009f]/.test(spelling)) throw new PathRefusedError(requested, 'control_char');
      if (
        spelling.startsWith('/') ||
        /^[A-Za-z]:/.test(spelling) ||
        spelling.startsWith('~') ||
        /^[a-z][a-z0-9+.-]*:\/\//i.test(spelling)
      ) {
        throw new PathRefusedError(requested, 'absolute');
      }
      const segments = spelling.split('/');
      // Any `..` is refused, even one that would stay inside (`a/../b`): no legitimate edit
      // needs it, and it is the shape every traversal takes.
      if (segments.some((seg) => seg.replace(/[. ]+$/, '') === '' && seg.includes('..'))) {
        throw new PathRefusedError(requested, 'traversal');
      }
      if (segments.some(isDotGitName)) throw new PathRefusedError(requested, 'git_internal');
      // A name that decodes to a secret file is refused as one, whatever the disk calls it.
      if (this.isSecretFile(path.posix.normalize(spelling))) throw new PathRefusedError(requested, 'secret_file');
      literal ??= spelling;
    }
    const rel = path.posix.normalize(literal!);
    if (rel === '.' || rel === './') return '.';
    return rel.replace(/\/$/, '');
  }

  isProtected(rel: string): boolean {
    return this.#protected.some((re) => re.test(rel));
  }

  isSecretFile(rel: string): boolean {
    return this.#secretFiles.some((re) => re.test(rel));
  }

  /** Resolves a path to read or list: a file or directory inside the root, not a secret file. */
  async resolveForRead(requested: string): Promise<string> {
    const rel = this.normalize(requested);
    if (this.isSecretFile(rel)) throw new PathRefusedError(requested, 'secret_file');
    const { resolved, relReal } = await this.#resolveReal(requested, rel);
    if (relReal !== '.' && this.isSecretFile(relReal)) throw new PathRefusedError(requested, 'secret_file');
    await this.#checkTarget(requested, resolved, false);
    return resolved;
  }

  /** Resolves a path to create, overwrite or delete: a regular file inside the root. */
  async resolveForWrite(requested: string): Promise<string> {
    const rel = this.normalize(requested);
    if (rel === '.') throw new PathRefusedError(requested, 'empty');
    if (this.isSecretFile(rel)) throw new PathRefusedError(requested, 'secret_file');
    if (this.isProtected(rel)) throw new PathRefusedError(requested, 'protected');
    const { resolved, relReal, rootReal } = await this.#resolveReal(requested, rel);
    if (relReal === '.') throw new PathRefusedError(requested, 'empty');
    if (this.isSecretFile(relReal)) throw new PathRefusedError(requested, 'secret_file');
    if (this.isProtected(relReal)) throw new PathRefusedError(requested, 'protected');
    // An ignored file's changes never reach the diff, so they would escape review and the
    // final secret scan (seed 003: "anything specified in the .gitignore file").
    if (this.#refuseGitignored) {
      const matcher = new GitignoreMatcher(rootReal);
      if (matcher.ignores(rel) || matcher.ignores(relReal)) throw new PathRefusedError(requested, 'gitignored');
    }
    await this.#checkTarget(requested, resolved, true);
    return resolved;
  }

  /** Resolves a path to delete: writable, and not one of the files that must stay (see DEFAULT_UNDELETABLE). */
  async resolveForDelete(requested: string): Promise<string> {
    const resolved = await this.resolveForWrite(requested);
    const relReal = path
      .relative(await realpath(this.root), resolved)
      .split(path.sep)
      .join('/');
    if (this.#undeletable.some((re) => re.test(this.normalize(requested)) || re.test(relReal)))
      throw new PathRefusedError(requested, 'undeletable');
    return resolved;
  }

  /** Existing targets must be plain: no FIFO (a read blocks forever), device, socket or hard link. */
  async #checkTarget(requested: string, resolved: string, forWrite: boolean): Promise<void> {
    let st: Awaited<ReturnType<typeof stat>>;
    try {
      st = await lstat(resolved);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      if (forWrite) throw new PathRefusedError(requested, 'special_file');
      return;
    }
    if (!st.isFile()) throw new PathRefusedError(requested, 'special_file');
    // A hard link shares its inode with another name, possibly outside the worktree (a repo
    // test can `ln` a host file in); realpath cannot tell. Git never checks out hard links.
    if (st.nlink > 1) throw new PathRefusedError(requested, 'hard_link');
  }

  /** Walks up to the deepest existing ancestor and checks its real path stays inside the root. */
  async #resolveReal(requested: string, rel: string): Promise<{ resolved: string; relReal: string; rootReal: string }> {
    const rootReal = await realpath(this.root);
    const target = rel === '.' ? rootReal : path.join(rootReal, rel);
    let existing = target;
    const missing: string[] = [];
    for (;;) {
      try {
        await lstat(existing);
        break;
      } catch {
        missing.unshift(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
    let real: string;
    try {
      real = await realpath(existing);
    } catch {
      // A dangling symlink (or a loop): where a write would land is unknown.
      throw new PathRefusedError(requested, 'symlink_escape');
    }
    if (real !== rootReal && !real.startsWith(rootReal + path.sep))
      throw new PathRefusedError(requested, 'symlink_escape');
    const resolved = path.join(real, ...missing);
    const relReal = path.relative(rootReal, resolved).split(path.sep).join('/') || '.';
    if (relReal.split('/').some(isDotGitName)) throw new PathRefusedError(requested, 'git_internal');
    return { resolved, relReal, rootReal };
  }
}
