import { readFileSync } from 'node:fs';
import path from 'node:path';
import { accessSettings } from './config/access-settings.ts';
import { dashboardSettings } from './config/dashboard-settings.ts';
import type { EnvIssue, EnvSection, EnvVariables } from './config/env-section.ts';
import type { EnvVariable, Need, ProcessRole } from './config/env-variable.ts';
import { eventSettings } from './config/event-settings.ts';
import { forgeSettings } from './config/forge-settings.ts';
import { internalApiSettings } from './config/internal-api-settings.ts';
import { limitSettings } from './config/limit-settings.ts';
import { modelSettings } from './config/model-settings.ts';
import { networkSettings } from './config/network-settings.ts';
import { policySettings } from './config/policy-settings.ts';
import { redisSettings } from './config/redis-settings.ts';
import { sandboxSettings } from './config/sandbox-settings.ts';
import { slackSettings } from './config/slack-settings.ts';
import { storageSettings } from './config/storage-settings.ts';
import { telemetrySettings } from './config/telemetry-settings.ts';
import { workerSettings } from './config/worker-settings.ts';
import { PullwrightError } from './errors.ts';

export type { EnvIssue } from './config/env-section.ts';
export type { EnvVariable, ProcessRole } from './config/env-variable.ts';
export { EventSource } from './config/event-settings.ts';
export { readGitHubPrivateKey } from './config/github-private-key.ts';
export { storageSettings } from './config/storage-settings.ts';

/**
 * Every section of the configuration, in the order the docs list them. A section declares
 * its variables once; parsing it yields its part of `Config`. Adding a variable is one
 * declaration in its section: the parse, `<NAME>_FILE`, redaction, the per-process contract,
 * the docs and .env.example follow from it.
 */
export const CONFIG_SECTIONS = [
  redisSettings,
  networkSettings,
  accessSettings,
  modelSettings,
  forgeSettings,
  slackSettings,
  dashboardSettings,
  storageSettings,
  sandboxSettings,
  policySettings,
  eventSettings,
  limitSettings,
  workerSettings,
  internalApiSettings,
  telemetrySettings,
] as const;

type SectionOf<S> = S extends EnvSection<EnvVariables, infer Out> ? Out : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export type Config = Intersection<SectionOf<(typeof CONFIG_SECTIONS)[number]>> & {
  /** Files the `<NAME>_FILE` variables named: the sandbox hides them from repository code. */
  secretFiles: string[];
  /** Every secret value of this configuration (at least 6 characters): fed to the Redactor at start-up. */
  secrets: string[];
};

/** Every variable the service reads, by name. */
export const ENV_VARIABLES: Readonly<Record<string, EnvVariable>> = Object.assign(
  {},
  ...CONFIG_SECTIONS.map((section) => section.variables),
);

export class ConfigError extends PullwrightError<{ issues: EnvIssue[] }> {
  constructor(issues: EnvIssue[]) {
    // One line, so a crash-looping container shows the whole reason in its last log line.
    const problems = issues.map((i) => `${i.variable}: ${i.reason}`).join('; ');
    super('config_invalid', `invalid configuration: ${problems}`, { issues });
  }
}

const secretNames = () => Object.keys(ENV_VARIABLES).filter((name) => ENV_VARIABLES[name]!.secret);
const isSet = (env: NodeJS.ProcessEnv, name: string) => Boolean(env[name]?.trim());

/** Fills a secret `X` from the file `X_FILE` names when `X` itself is unset or empty. */
function withSecretFiles(source: NodeJS.ProcessEnv, issues: EnvIssue[]): NodeJS.ProcessEnv {
  const env = { ...source };
  for (const name of secretNames()) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file || isSet(env, name)) continue;
    try {
      env[name] = readFileSync(file, 'utf8').trim();
    } catch (err) {
      issues.push({ variable: `${name}_FILE`, reason: `cannot read ${file} (${(err as NodeJS.ErrnoException).code})` });
    }
  }
  return env;
}

/** What `role` lacks at `level`: a process started alone refuses to start, or starts and warns. */
function unmetNeeds(env: NodeJS.ProcessEnv, role: ProcessRole, level: Need['level']): EnvIssue[] {
  const issues: EnvIssue[] = [];
  for (const [name, variable] of Object.entries(ENV_VARIABLES)) {
    const need = variable.needs[role];
    if (need?.level !== level || isSet(env, name) || (need.orElse && isSet(env, need.orElse))) continue;
    const alternative = need.orElse ? ` (or ${need.orElse})` : '';
    const verb = level === 'required' ? 'required' : 'unset, recommended';
    issues.push({ variable: name, reason: `${verb} by the ${role} process${alternative}: ${need.why}` });
  }
  return issues;
}

/**
 * The long-lived keys that live in the API alone (seed 001, secrets management): a worker
 * gets per-job installation tokens from the API's broker and calls the model through its
 * gateway. Read by a worker only when it runs without WORKER_TOKEN.
 */
const API_HELD_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GITHUB_APP_PRIVATE_KEY'] as const;

/**
 * A long-lived key in a worker's environment: code that runs on the worker's host reads it
 * from `/proc/<pid>/environ`. Warned about, or refused with PRODUCTION_MODE.
 */
function workerHeldKeys(env: NodeJS.ProcessEnv): EnvIssue[] {
  return API_HELD_KEYS.filter((name) => isSet(env, name) || isSet(env, `${name}_FILE`)).map((variable) => ({
    variable,
    reason:
      'a worker should not hold it: whoever runs code on its host can read it and mint tokens for every repository or spend without a budget. Fix: give it to the API only, and WORKER_TOKEN to the API and every worker (the API brokers tokens and model calls)',
  }));
}

/** A secret given to a process that never reads it: a key it could leak and does not need. */
function unreadSecrets(env: NodeJS.ProcessEnv, role: ProcessRole): EnvIssue[] {
  return secretNames()
    .filter((name) => !ENV_VARIABLES[name]!.readBy.includes(role))
    .filter((name) => role !== 'worker' || !(API_HELD_KEYS as readonly string[]).includes(name))
    .filter((name) => isSet(env, name) || isSet(env, `${name}_FILE`))
    .map((name) => ({
      variable: name,
      reason: `set, but the ${role} process never reads it. Fix: give it only to the processes that do, so this one holds no secret it does not need`,
    }));
}

/** Rules between sections. */
function crossSectionIssues(env: NodeJS.ProcessEnv, role: ProcessRole): EnvIssue[] {
  const issues: EnvIssue[] = [];
  // Without a directory every caller is an admin: any GitHub account could approve.
  if (isSet(env, 'GITHUB_CLIENT_ID') && !isSet(env, 'IDENTITIES'))
    issues.push({
      variable: 'IDENTITIES',
      reason: 'required with GITHUB_CLIENT_ID: it gives GitHub logins their roles',
    });
  // A worker with WORKER_TOKEN holds no key: the API's broker and gateway hold them.
  const brokered = role === 'worker' && isSet(env, 'WORKER_TOKEN');
  if (!brokered) {
    if (env.FORGE?.trim() === 'github') {
      for (const variable of ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY'])
        if (!isSet(env, variable)) issues.push({ variable, reason: 'required when FORGE=github' });
    }
    const provider = env.LLM_PROVIDER?.trim();
    if (provider === 'anthropic' && !isSet(env, 'ANTHROPIC_API_KEY'))
      issues.push({ variable: 'ANTHROPIC_API_KEY', reason: 'required when LLM_PROVIDER=anthropic' });
    if (provider === 'openai' && !isSet(env, 'OPENAI_API_KEY') && !isSet(env, 'OPENAI_BASE_URL'))
      issues.push({ variable: 'OPENAI_API_KEY', reason: 'required when LLM_PROVIDER=openai' });
  }
  if (role === 'worker' && flagSet(env, 'PRODUCTION_MODE')) issues.push(...workerHeldKeys(env));
  if (isSet(env, 'WORKER_TOKEN') && env.WORKER_TOKEN?.trim() === env.API_TOKEN?.trim())
    issues.push({
      variable: 'WORKER_TOKEN',
      reason: 'must differ from API_TOKEN: it authorizes the internal routes only. Fix: a value of its own',
    });
  return issues;
}

const flagSet = (env: NodeJS.ProcessEnv, name: string) => ['true', '1'].includes(env[name]?.trim() ?? '');

function secretValues(env: NodeJS.ProcessEnv, sections: readonly unknown[]): string[] {
  const values: (string | undefined)[] = [];
  for (const name of secretNames()) {
    const { secret, schema } = ENV_VARIABLES[name]!;
    const parsed = schema.safeParse(env[name]);
    if (secret && parsed.success) values.push(...secret.parts(parsed.data));
  }
  CONFIG_SECTIONS.forEach((section, i) => {
    values.push(...(section as EnvSection).derivedSecrets(sections[i]));
  });
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 6))];
}

/**
 * Reads the environment once for `role`: the configuration, and what the process should be
 * warned about (a variable it needs but lacks, a half-configuration). Throws `ConfigError`
 * naming every bad variable at once.
 */
export function readConfig(
  source: NodeJS.ProcessEnv = process.env,
  role: ProcessRole = 'all',
): { config: Config; warnings: EnvIssue[] } {
  const issues: EnvIssue[] = [];
  const env = withSecretFiles(source, issues);
  const sections: unknown[] = [];
  for (const section of CONFIG_SECTIONS) {
    const parsed = (section as EnvSection).schema.safeParse(env);
    if (parsed.success) sections.push(parsed.data);
    else
      issues.push(
        ...parsed.error.issues.map((i) => ({ variable: String(i.path[0] ?? '(environment)'), reason: i.message })),
      );
  }
  issues.push(...crossSectionIssues(env, role), ...unmetNeeds(env, role, 'required'));
  if (issues.length > 0) throw new ConfigError(issues);
  const secretFiles = secretNames()
    .map((name) => source[`${name}_FILE`]?.trim())
    .filter((file): file is string => Boolean(file))
    .map((file) => path.resolve(file));
  const config = Object.assign({}, ...sections, { secretFiles, secrets: secretValues(env, sections) }) as Config;
  const warnings = [
    ...unmetNeeds(env, role, 'recommended'),
    ...CONFIG_SECTIONS.flatMap((section, i) => (section as EnvSection).warnings(sections[i], role)),
    ...(role === 'all' ? [] : unreadSecrets(env, role)),
    ...(role === 'worker' && !config.internalApi.productionMode ? workerHeldKeys(env) : []),
  ];
  return { config, warnings };
}

/** Reads the environment once; throws `ConfigError` naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, role: ProcessRole = 'all'): Config {
  return readConfig(source, role).config;
}

/** Where a worker reaches the API's broker and gateway: INTERNAL_API_URL, else PUBLIC_URL. */
export function internalApiUrl(config: Pick<Config, 'internalApi' | 'publicUrl'>): string {
  return config.internalApi.url ?? config.publicUrl;
}
