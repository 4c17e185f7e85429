import { PullwrightError } from '@pullwright/core';
import { type GitAuth, type GitProtocol, runGit } from '@pullwright/security';
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

/** How a client reaches the forge: the transport of its URL, and the job's token. */
export interface GitRemoteAccess {
  auth?: GitAuth | undefined;
  /** The forge's transport (`protocolOf(cloneUrl)`); without it no command can reach any remote. */
  protocol?: GitProtocol | undefined;
}

/**
 * git in one directory, as the worker runs it: hardened (`runGit`), credentials through a
 * helper function reading variables — the token is never in argv, a URL, .git/config or a
 * log line — and no forced push (seed 001): `raw` is the only way in, and it refuses every
 * force, mirror or delete flag before git runs, so no path (the publish gate, the merge
 * train, a future job) can overwrite what the forge has, whatever its branch protection.
 */
export class GitClient {
  readonly #config: string[] = [];
  readonly #env: Record<string, string> = {};
  readonly #protocols: GitProtocol[];

  constructor(
    readonly dir: string,
    { auth, protocol }: GitRemoteAccess = {},
  ) {
    this.#protocols = protocol ? [protocol] : [];
    if (auth) {
      this.#config.push(
        'credential.helper=',
        `credential.helper=!f() { echo "username=$${USER_ENV}"; echo "password=$${TOKEN_ENV}"; }; f`,
      );
      this.#env[TOKEN_ENV] = auth.token;
      this.#env[USER_ENV] = auth.username;
    }
  }

  /** git's stdout as text; rejects with its stderr when it exits non-zero. */
  async raw(args: readonly string[]): Promise<string> {
    const flag = forcePushFlag(args);
    if (flag !== undefined) throw new ForcePushRefusedError(flag);
    return (
      await runGit(this.dir, args, { config: this.#config, env: this.#env, protocols: this.#protocols })
    ).toString('utf8');
  }
}

export function gitClient(dir: string, remote?: GitRemoteAccess): GitClient {
  return new GitClient(dir, remote);
}

/**
 * Whether `ancestor` is in `descendant`'s history (`merge-base --is-ancestor` answers by exit
 * status). An object we do not have — someone else's push — is not in our history either.
 */
export async function isAncestor(git: GitClient, ancestor: string, descendant: string): Promise<boolean> {
  return git.raw(['merge-base', '--is-ancestor', ancestor, descendant]).then(
    () => true,
    () => false,
  );
}
