import type { CommandRunner } from '@pullwright/sandbox';

const LINT_TIMEOUT_MS = 60_000;

/** "src/a.ts:12:5 error no-unused-vars" and "12:5 error …" compare equal after an edit moves lines. */
function problemKey(line: string): string {
  return line
    .replace(/:\d+(:\d+)?/g, '')
    .replace(/^\s*\d+:\d+\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function problems(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => /\b(error|warning)\b/i.test(l));
}

/**
 * Lints a file after each edit and reports only the problems the edits added: the file's
 * problems before its first edit are the baseline, so the model is not asked to fix
 * what it did not break.
 */
export class LintGate {
  readonly #before = new Map<string, Set<string>>();

  constructor(
    private readonly root: string,
    private readonly template: string,
    private readonly runner: CommandRunner,
  ) {}

  #command(rel: string): string {
    // Single-quoted for sh; PathGuard already refused anything outside the worktree.
    return this.template.replaceAll('{file}', `'${rel.replaceAll("'", "'\\''")}'`);
  }

  async #lint(rel: string): Promise<string[]> {
    const r = await this.runner.run({
      command: this.#command(rel),
      cwd: this.root,
      root: this.root,
      timeoutMs: LINT_TIMEOUT_MS,
      maxOutputBytes: 16 * 1024,
    });
    return r.exitCode === 0 ? [] : problems(r.output);
  }

  /** Call before the first write to `rel` (the tools' onWrite hook runs before writing). */
  async beforeWrite(rel: string, exists: boolean): Promise<void> {
    if (this.#before.has(rel)) return;
    this.#before.set(rel, new Set(exists ? (await this.#lint(rel)).map(problemKey) : []));
  }

  async afterWrite(rel: string): Promise<string | undefined> {
    const before = this.#before.get(rel) ?? new Set<string>();
    const added = (await this.#lint(rel)).filter((p) => !before.has(problemKey(p)));
    return added.length ? added.slice(0, 30).join('\n') : undefined;
  }
}
