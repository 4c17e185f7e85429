import { type GitAuth, HARDENED_GIT_CONFIG } from '@pullwright/security';
import { type SimpleGit, simpleGit } from 'simple-git';

const TOKEN_ENV = 'PW_GIT_TOKEN';
const USER_ENV = 'PW_GIT_USER';

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
  return simpleGit({
    baseDir,
    config,
    unsafe: {
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeCredentialHelper: true,
      allowUnsafeProtocolOverride: true,
    },
  }).env(env);
}
