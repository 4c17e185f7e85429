import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';

export type PathRule =
  | 'absolute'
  | 'traversal'
  | 'nul_byte'
  | 'git_internal'
  | 'symlink_escape'
  | 'protected'
  | 'secret_file'
  | 'empty';

/** A refusal the model sees: it names the rule, never file content. */
export class PathRefusedError extends PullwrightError<{ requested: string; rule: PathRule }> {
  constructor(requested: string, rule: PathRule) {
    super('path_refused', `path refused (${rule}): ${requested}`, { requested, rule });
  }

  get rule(): PathRule {
    return this.context.rule;
  }
}

/** Files the agent must not change: they define how changes are checked and shipped. */
export const DEFAULT_PROTECTED = [
  '.gitignore',
  'package-lock.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'Cargo.lock',
  'build.sh',
  '.pullwright.yml',
  '.github/workflows/**',
];

/** Files that usually hold credentials: neither read nor written. */
export const SECRET_FILE_PATTERNS: readonly RegExp[] = [
  /(^|\/)\.env(\..*)?$/i,
  /\.(pem|key|p12|pfx)$/i,
  /(^|\/)id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i,
  /(^|\/)(credentials|service-account)(\.json)?$/i,
  /(^|\/)\.(npmrc|pypirc|netrc)$/i,
  /(^|\/)\.(aws|ssh|gnupg)\//i,
];

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .split('**')
    .map((part) =>
      part
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]'),
    )
    .join('.*');
  return new RegExp(`^${escaped}$`);
}

export interface PathGuardOptions {
  protected?: readonly string[];
}

/**
 * Resolves a model-supplied path inside one worktree. Checks the real path after
 * symlinks (any component), so a link pointing out of the tree is caught even when the
 * final file does not exist yet.
 */
export class PathGuard {
  readonly #protected: RegExp[];

  constructor(
    readonly root: string,
    options: PathGuardOptions = {},
  ) {
    this.#protected = (options.protected ?? DEFAULT_PROTECTED).map(globToRegExp);
  }

  /** Lexical checks: returns the normalized relative path (posix separators). */
  normalize(requested: string): string {
    if (requested.includes('\0')) throw new PathRefusedError(requested, 'nul_byte');
    if (requested.trim() === '') throw new PathRefusedError(requested, 'empty');
    if (path.isAbsolute(requested) || /^[A-Za-z]:[\\/]/.test(requested))
      throw new PathRefusedError(requested, 'absolute');
    const rel = path.posix.normalize(requested.replaceAll('\\', '/'));
    if (rel === '..' || rel.startsWith('../')) throw new PathRefusedError(requested, 'traversal');
    if (rel === '.' || rel === './') return '.';
    if (rel.split('/').some((seg) => seg.toLowerCase() === '.git' || seg.toLowerCase().startsWith('.git~'))) {
      throw new PathRefusedError(requested, 'git_internal');
    }
    return rel.replace(/\/$/, '');
  }

  isProtected(rel: string): boolean {
    return this.#protected.some((re) => re.test(rel));
  }

  async resolveForRead(requested: string): Promise<string> {
    const rel = this.normalize(requested);
    if (SECRET_FILE_PATTERNS.some((re) => re.test(rel))) throw new PathRefusedError(requested, 'secret_file');
    return this.#resolveReal(requested, rel);
  }

  async resolveForWrite(requested: string): Promise<string> {
    const rel = this.normalize(requested);
    if (rel === '.') throw new PathRefusedError(requested, 'empty');
    if (SECRET_FILE_PATTERNS.some((re) => re.test(rel))) throw new PathRefusedError(requested, 'secret_file');
    if (this.isProtected(rel)) throw new PathRefusedError(requested, 'protected');
    return this.#resolveReal(requested, rel);
  }

  /** Walks up to the deepest existing ancestor and checks its real path stays inside the root. */
  async #resolveReal(requested: string, rel: string): Promise<string> {
    const rootReal = await realpath(this.root);
    const target = path.join(rootReal, rel);
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
      // A dangling symlink: its target is unknown territory.
      throw new PathRefusedError(requested, 'symlink_escape');
    }
    if (real !== rootReal && !real.startsWith(rootReal + path.sep))
      throw new PathRefusedError(requested, 'symlink_escape');
    const resolved = path.join(real, ...missing);
    const relReal = path.relative(rootReal, resolved).split(path.sep);
    if (relReal.some((seg) => seg.toLowerCase() === '.git')) throw new PathRefusedError(requested, 'git_internal');
    return resolved;
  }
}
