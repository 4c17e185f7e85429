import type { RepoFiles } from '@pullwright/agent';
import type { TreeEntry, WorkspaceManager } from '@pullwright/workspace';

/** Git's modes of a regular file; a symlink (`120000`) or a submodule (`160000`) is listed, never read. */
const REGULAR_FILE = new Set(['100644', '100755']);

/**
 * A commit of the repository read from the mirror's git objects, never a worktree: its tree
 * listed once (`ls-tree`) for everyone who asks — the instruction files, the commands'
 * manifests, the repository map of the first model turn — and files read in one `cat-file`
 * call per ask. What lets the model start before the worktree is checked out (issue 29).
 */
export class BaseCommitTree implements RepoFiles {
  #entries: Promise<Map<string, TreeEntry>> | undefined;

  constructor(
    private readonly workspace: Pick<WorkspaceManager, 'treeAt' | 'readManyAt'>,
    readonly repo: string,
    readonly sha: string,
  ) {}

  async files(): Promise<string[]> {
    return [...(await this.#tree()).keys()];
  }

  async texts(files: readonly string[], maxBytes: number): Promise<Map<string, string>> {
    const tree = await this.#tree();
    const wanted = files.filter((file) => {
      const entry = tree.get(file);
      return entry !== undefined && REGULAR_FILE.has(entry.mode) && entry.size <= maxBytes;
    });
    const read = await this.workspace.readManyAt(this.repo, this.sha, wanted);
    const texts = new Map<string, string>();
    wanted.forEach((file, i) => {
      const text = read[i];
      if (text !== undefined) texts.set(file, text);
    });
    return texts;
  }

  /** Several files' texts, in one git call; undefined for each the commit lacks (known from the listing, without asking git). */
  async readMany(files: readonly string[]): Promise<Array<string | undefined>> {
    const tree = await this.#tree();
    const present = files.filter((file) => tree.has(file));
    const read = await this.workspace.readManyAt(this.repo, this.sha, present);
    return files.map((file) => (tree.has(file) ? read[present.indexOf(file)] : undefined));
  }

  /** One file's text, or undefined when the commit has none. */
  async read(file: string): Promise<string | undefined> {
    return (await this.readMany([file]))[0];
  }

  #tree(): Promise<Map<string, TreeEntry>> {
    this.#entries ??= this.workspace
      .treeAt(this.repo, this.sha)
      .then((entries) => new Map(entries.map((entry) => [entry.path, entry])));
    return this.#entries;
  }
}
