import { readFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * Answers "does git ignore this path?" from the worktree's `.gitignore` files.
 *
 * Why the `ignore` package and not `git check-ignore`: PathGuard runs on every file tool
 * call, and a git subprocess per call costs milliseconds and a fork each time; `ignore`
 * implements the gitignore spec (negation, anchoring, `**`, directory-only patterns) and is
 * what eslint and prettier rely on for the same question. It also keeps the answer a
 * property of the repository alone: `git check-ignore` would also consult the worker
 * host's `core.excludesFile` and `.git/info/exclude`, which differ between machines and
 * are not part of what the pull request changes.
 *
 * Semantics kept from git: `.gitignore` files are read from the root down to the file's
 * directory, a deeper file's verdict overrides a shallower one, and once a directory is
 * ignored nothing below it can be re-included (git never reads further down).
 *
 * An instance reads each `.gitignore` once; make a new one when files may have changed.
 */
export class GitignoreMatcher {
  readonly #cache = new Map<string, Ignore | null>();

  constructor(readonly root: string) {}

  #load(dirRel: string): Ignore | null {
    const cached = this.#cache.get(dirRel);
    if (cached !== undefined) return cached;
    let ig: Ignore | null = null;
    try {
      const text = readFileSync(path.join(this.root, dirRel, '.gitignore'), 'utf8');
      ig = ignore().add(text);
    } catch {
      ig = null;
    }
    this.#cache.set(dirRel, ig);
    return ig;
  }

  /** `rel` is a normalised, root-relative posix path of a file. */
  ignores(rel: string): boolean {
    const parts = rel.split('/');
    const levels: Array<{ base: string; ig: Ignore }> = [];
    const verdict = (target: string): boolean | undefined => {
      let result: boolean | undefined;
      for (const { base, ig } of levels) {
        const sub = base === '' ? target : target.slice(base.length + 1);
        const r = ig.test(sub);
        if (r.ignored) result = true;
        else if (r.unignored) result = false;
      }
      return result;
    };
    let dir = '';
    for (let i = 0; i < parts.length; i++) {
      const ig = this.#load(dir);
      if (ig) levels.push({ base: dir, ig });
      if (i === parts.length - 1) break;
      dir = dir === '' ? parts[i]! : `${dir}/${parts[i]}`;
      if (verdict(`${dir}/`) === true) return true;
    }
    return verdict(rel) === true;
  }
}
