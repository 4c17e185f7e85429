/** Git's global options that take the next argument as their value (`git -C dir push …`). */
const GLOBAL_WITH_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env']);

/** Long push options that rewrite or remove what the forge has. */
const REFUSED_LONG = ['--force', '--force-with-lease', '--force-if-includes', '--mirror', '--delete', '--prune'];

/** Short push options that do the same (`-f` force, `-d` delete), alone or in a cluster (`-uf`). */
const REFUSED_SHORT = new Set(['f', 'd']);

/** Push options whose value is the next argument: their value is not a refspec. */
const PUSH_WITH_VALUE = new Set(['-o', '--push-option', '--repo', '--receive-pack', '--exec']);

/** Configuration that turns a plain push into a mirror push or a forced refspec. */
const REFUSED_CONFIG = /^remote\.[^=]*\.(mirror|push)=/i;

/**
 * Why a git invocation would force, mirror or delete on the remote, or undefined when it
 * would not. `args` are git's arguments (`['push', 'origin', 'HEAD:refs/heads/x']`); anything
 * but a push is undefined. A push may only add commits on top of what the forge has (seed
 * 001: "force push is blocked"), so `--force`, `-f`, `--force-with-lease`, `+refspec`,
 * `--mirror`, `--delete` and deleting refspecs (`:branch`) are all refused here, before git
 * runs, whatever the forge's branch protection says.
 */
export function forcePushFlag(args: readonly string[]): string | undefined {
  let i = 0;
  const config: string[] = [];
  // Global options come before the subcommand.
  while (i < args.length && args[i]!.startsWith('-')) {
    const arg = args[i]!;
    if (arg === '-c') config.push(args[i + 1] ?? '');
    else if (arg.startsWith('-c') && arg.length > 2) config.push(arg.slice(2));
    i += GLOBAL_WITH_VALUE.has(arg) ? 2 : 1;
  }
  if (args[i] !== 'push') return undefined;
  const refusedConfig = config.find((c) => REFUSED_CONFIG.test(c));
  if (refusedConfig) return `-c ${refusedConfig}`;
  let afterDashes = false;
  for (let j = i + 1; j < args.length; j++) {
    const arg = args[j]!;
    if (!afterDashes && arg === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && arg.startsWith('--')) {
      const name = arg.split('=')[0]!;
      if (REFUSED_LONG.includes(name)) return arg;
      if (PUSH_WITH_VALUE.has(arg)) j++;
      continue;
    }
    if (!afterDashes && arg.startsWith('-') && arg.length > 1) {
      // A cluster of short options; `-o` takes the rest (or the next argument) as its value.
      for (const ch of arg.slice(1)) {
        if (REFUSED_SHORT.has(ch)) return arg;
        if (ch === 'o') break;
      }
      if (arg === '-o') j++;
      continue;
    }
    // Positional: the remote, then refspecs. `+src:dst` forces; `:dst` deletes.
    if (arg.startsWith('+')) return arg;
    if (arg.startsWith(':') && arg.length > 1) return arg;
  }
  return undefined;
}
