import { PullwrightError } from '@pullwright/core';
import { type GitAuth, HARDENED_GIT_CONFIG } from '@pullwright/security';
import { type SimpleGit, simpleGit } from 'simple-git';
import { forcePushFlag } from './force-push-flag.ts';

const TOKEN_ENV = 'PW_GIT_TOKEN';
const USER_ENV = 'PW_GIT_USER';

/** Thrown before git runs: a push may only add commits on top of what the forge has. */
export class ForcePushRefusedError extends PullwrightError<{ flag: string }> {
  constructor(flag: string) {
    super('git_failed', `push refused: ${flag} would force, mirror or delete on the remote; pushes only add commits`, {
      flag,
    });
  }
}

/** `raw`'s arguments as git sees them: one array, or strings (simple-git accepts both; a callback may follow). */
function rawArgs(args: unknown[]): string[] {
  return args.flatMap((a) => (Array.isArray(a) ? a.map(String) : typeof a === 'string' ? [a] : []));
}

/** `push(remote?, branch?, options?)`'s options (an array or `{'--flag': value|null}`) as arguments. */
function pushArgs(args: unknown[]): string[] {
  const out = ['push'];
  for (const a of args) {
    if (typeof a === 'string') out.push(a);
    else if (Array.isArray(a)) out.push(...a.map(String));
    else if (a && typeof a === 'object')
      for (const [k, v] of Object.entries(a)) out.push(v === null || v === undefined ? k : `${k}=${String(v)}`);
  }
  return out;
}

/** A rejected promise, like git's own failures, so a caller's `.catch` sees the refusal too. */
function refusal(args: string[]): Promise<never> | undefined {
  const flag = forcePushFlag(args);
  return flag === undefined ? undefined : Promise.reject(new ForcePushRefusedError(flag));
}

/**
 * Every git client we make refuses a forced push (seed 001), so no path — the publish gate,
 * the merge train, a future job — can overwrite or delete what the forge has, whether or not
 * the forge's branch protection would also refuse it. The check sees `raw` and `push`, the
 * only simple-git calls that can push with arbitrary flags.
 */
function refusingForcePushes(git: SimpleGit): SimpleGit {
  return new Proxy(git, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'raw') return (...args: unknown[]) => refusal(rawArgs(args)) ?? value.apply(target, args);
      if (prop === 'push') return (...args: unknown[]) => refusal(pushArgs(args)) ?? value.apply(target, args);
      // Chained calls (`env`, `cwd`…) hand back the guarded client, not the bare one.
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? receiver : result;
      };
    },
  });
}

export function gitClient(baseDir: string, auth?: GitAuth): SimpleGit {
  const config = [...HARDENED_GIT_CONFIG];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    GIT_TERMINAL_PROMPT: '0',
  };
  if (auth) {
    // The helper is a shell function reading variables: the token is never in argv, a URL,
    // .git/config or any log line.
    config.push(
      'credential.helper=',
      `credential.helper=!f() { echo "username=$${USER_ENV}"; echo "password=$${TOKEN_ENV}"; }; f`,
    );
    env[TOKEN_ENV] = auth.token;
    env[USER_ENV] = auth.username;
  }
  const git = simpleGit({
    baseDir,
    config,
    unsafe: {
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeCredentialHelper: true,
      allowUnsafeProtocolOverride: true,
    },
  }).env(env);
  return refusingForcePushes(git);
}
