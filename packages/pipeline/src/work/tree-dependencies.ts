import type { CommandRunner, CommandSpec } from '@pullwright/sandbox';
import type { DependencyCache } from '@pullwright/workspace';
import type { Installed } from './install-dependencies.ts';

/**
 * One tree's dependencies, installed beside whatever runs first (issue 29): the install
 * starts as soon as the tree exists and nothing waits for it but the tree's own commands —
 * the model's planning reads files and the repository map, and needs none. Every command run
 * through `runner` waits for the install (a failed install fails it with the install's
 * reason: the job ends there) and then gets the tree's dependency layer when it has one.
 */
export class TreeDependencies {
  #installed: Promise<Installed> | undefined;
  readonly #stop = new AbortController();

  constructor(private readonly cache: DependencyCache) {}

  /** Starts the install once (stopped by `release` if still running); later calls keep the first. */
  begin(install: (signal: AbortSignal) => Promise<Installed>): void {
    if (this.#installed) return;
    this.#installed = install(this.#stop.signal);
    // Awaited by the tree's first command; until then a failure must not count as unhandled.
    this.#installed.catch(() => undefined);
  }

  /** The install's result; a command that runs before `begin` is a bug in a step list. */
  ready(): Promise<Installed> {
    if (!this.#installed) return Promise.reject(new Error('step order: a command ran before the install step'));
    return this.#installed;
  }

  /** `inner`, for this tree: each command after the install, with its layer. */
  runner(inner: CommandRunner): CommandRunner {
    const after = async (spec: CommandSpec): Promise<CommandSpec> => {
      const installed = await this.ready();
      return installed.how === 'layered' ? { ...spec, dependencies: installed.layer } : spec;
    };
    const start = inner.start?.bind(inner);
    return {
      name: inner.name,
      sandboxed: inner.sandboxed,
      run: async (spec) => inner.run(await after(spec)),
      ...(start ? { start: async (spec: CommandSpec) => start(await after(spec)) } : {}),
    };
  }

  /** When the tree is done: an install still running stops, and the layer's own writes go (the cache below stays). */
  async release(): Promise<void> {
    this.#stop.abort();
    const installed = await this.#installed?.catch(() => undefined);
    if (installed?.how === 'layered') await this.cache.dropLayer(installed.layer);
  }
}
