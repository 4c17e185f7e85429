/**
 * The only variables a repo command sees. Everything else (API keys, REDIS_URL, tokens)
 * stays in the worker: the repo's tests are untrusted code.
 */
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TERM'] as const;

export function safeEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { HOME: home, CI: 'true', NO_COLOR: '1', npm_config_update_notifier: 'false' };
  for (const key of PASSED_THROUGH) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, ...extra };
}
