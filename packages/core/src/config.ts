import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PullwrightError } from './errors.ts';
import { RepoSlug } from './operation.ts';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
const optionalUrl = optionalText.pipe(z.url().optional());
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An enum where an empty value means unset: compose passes `${LLM_PROVIDER:-}` as "". */
const optionalEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.enum(values).optional());
const PORT_RANGE = 'must be a port number, 0-65535';
const TCP_PORT = z.coerce.number({ error: PORT_RANGE }).int(PORT_RANGE).min(0, PORT_RANGE).max(65535, PORT_RANGE);

/**
 * Every variable the service reads, with its default. Parsed once at start-up; a bad
 * environment fails with every problem listed at once (see `loadConfig`).
 */
export const EnvSchema = z
  .object({
    /** Redis for queues, operations, events and locks. Unset: `npm start` runs a private redis-server. */
    REDIS_URL: optionalUrl,
    /**
     * Redis Cluster instead of REDIS_URL: `host:port,host:port,…` (any reachable nodes; the rest
     * are discovered). Every multi-key script and MULTI stays inside one `{…}` hash slot.
     */
    REDIS_CLUSTER_NODES: z
      .string()
      .default('')
      .transform((raw, ctx) => parseClusterNodes(raw, ctx)),
    /** Password for REDIS_CLUSTER_NODES, or for REDIS_URL when the URL carries none. */
    REDIS_PASSWORD: optionalText,
    /** Days an ended operation (record, events, transcript, artifacts) is kept in Redis before it expires. */
    RETENTION_DAYS: positiveInt(30),
    /** Prefix of every Redis key, so several deployments (or tests) can share one Redis. */
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('pw'),
    /** HTTP port of the API and dashboard. */
    PORT: TCP_PORT.default(3000),
    /** A worker process's own /healthz, /readyz and /metrics port (`pullwright worker`; 0 picks a free one). */
    WORKER_PORT: TCP_PORT.default(3001),
    /** Interface to listen on; containers set 0.0.0.0. Loopback by default so a laptop run is private. */
    HOST: z.string().default('127.0.0.1'),
    /** Bearer token for REST and the dashboard. `npm start` generates one when unset. */
    API_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    /**
     * HMAC-SHA256 key signing the verification block in PR bodies (the dashboard checks it).
     * Default: derived from API_TOKEN with HKDF, so it works out of the box and a leaked PR
     * body never reveals the token itself.
     */
    VERIFICATION_KEY: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    /** anthropic | openai | replay. Default: anthropic with ANTHROPIC_API_KEY, openai with OPENAI_API_KEY, else replay. */
    LLM_PROVIDER: optionalEnum(['anthropic', 'openai', 'replay']),
    LLM_MODEL: optionalText,
    /** tools: the model edits through tool calls; text: whole-file blocks (`^^^path … ^^^end`) for models without tool use. */
    LLM_EDIT_MODE: z.enum(['tools', 'text']).default('tools'),
    /**
     * Prices of models the built-in table does not know, USD per million tokens:
     * `{"qwen3-coder":{"input":0,"output":0}}`. Without a price, a model's calls cannot be
     * held to MAX_COST_USD, so an operation using it stops with a reason naming this variable.
     */
    LLM_PRICES: optionalText.pipe(
      z
        .string()
        .transform((text, ctx) => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            ctx.addIssue({ code: 'custom', message: 'must be JSON' });
            return z.NEVER;
          }
        })
        .pipe(
          z.record(
            z.string().min(1),
            z.object({
              input: z.number().nonnegative(),
              output: z.number().nonnegative(),
              cacheRead: z.number().nonnegative().optional(),
              cacheWrite: z.number().nonnegative().optional(),
            }),
          ),
        )
        .optional(),
    ),
    ANTHROPIC_API_KEY: optionalText,
    ANTHROPIC_BASE_URL: optionalUrl,
    OPENAI_API_KEY: optionalText,
    OPENAI_BASE_URL: optionalUrl,
    /** Transcript the replay provider plays (JSON). Default: the bundled demo transcript. */
    REPLAY_FILE: optionalText,
    /** github | local. Default: github when a GitHub App is configured, else local. */
    FORGE: optionalEnum(['github', 'local']),
    GITHUB_URL: z.url().default('https://github.com'),
    GITHUB_APP_ID: optionalText,
    /** PEM text or a path to the PEM file. */
    GITHUB_APP_PRIVATE_KEY: optionalText,
    GITHUB_WEBHOOK_SECRET: optionalText,
    /**
     * Dashboard sign-in with GitHub: the GitHub App's OAuth client id and secret (the App's
     * settings page; the callback URL is <PUBLIC_URL>/v1/session/github/callback). Unset: no
     * GitHub sign-in, tokens only. Needs IDENTITIES: the roles a login gets.
     */
    GITHUB_CLIENT_ID: optionalText,
    GITHUB_CLIENT_SECRET: optionalText,
    /** Open pull requests as drafts (true) or ready for review (false, the default). */
    GITHUB_PR_DRAFT: z
      .enum(['true', 'false', '1', '0'])
      .default('false')
      .transform((v) => v === 'true' || v === '1'),
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_BOT_TOKEN: optionalText,
    /**
     * An app-level token (`xapp-…`, scope connections:write): Slack's requests arrive over a
     * Socket Mode WebSocket the API opens, so no public URL is needed. Unset: HTTP endpoints.
     */
    SLACK_APP_TOKEN: optionalText,
    SLACK_API_URL: optionalUrl,
    /** Channel → repository for Slack commands that name none: `C123=acme/api,C456=acme/web`. Empty by default. */
    SLACK_CHANNEL_REPOS: z
      .string()
      .default('')
      .transform((raw, ctx) => parseChannelRepos(raw, ctx)),
    /** Slack user ids allowed to press Approve / Reject: `U123,U456`. Empty by default: nobody can approve from Slack. */
    SLACK_APPROVERS: z
      .string()
      .default('')
      .transform((raw, ctx) => parseSlackUserIds(raw, ctx)),
    /** Where people reach the dashboard; Slack messages link here. Default: http://HOST:PORT. */
    PUBLIC_URL: optionalUrl,
    /** Repository used when a request names none. */
    DEFAULT_REPO: optionalText.pipe(RepoSlug.optional()),
    /** Embedded Redis data and the generated API token of `npm start`. Per process: nothing another process reads. */
    DATA_DIR: z.string().min(1).default('.pullwright'),
    /**
     * The local forge's bare repositories (`<FORGE_DIR>/<owner>/<name>.git`). Default:
     * <DATA_DIR>/forge. Processes on one forge must see it at the same path (compose: /srv/forge).
     */
    FORGE_DIR: optionalText,
    /** Mirrors and worktrees. Default: <DATA_DIR>/workspace. */
    WORKSPACE_DIR: optionalText,
    /**
     * Where repository commands run. A named sandbox that cannot start stops the worker; auto
     * takes bubblewrap when it works, else docker (with SANDBOX_DOCKER_IMAGE), else stops the
     * worker too. Only `none` runs repository code unsandboxed (warned at start, shown on every operation).
     */
    SANDBOX: z.enum(['auto', 'bubblewrap', 'docker', 'none']).default('auto'),
    /** Image for SANDBOX=docker: it must hold the toolchains the repositories' checks need. */
    SANDBOX_DOCKER_IMAGE: z.string().min(1).default('node:22-bookworm-slim'),
    /** A gitleaks-format TOML file of extra secret rules (a team's own, or `[extend] useDefault = true`). */
    SECRET_RULES_FILE: optionalText,
    /**
     * Service policy (YAML, the `.pullwright.yml` policy keys): the defaults and the ceiling every
     * repository file can only tighten. Unset: one approval from anyone, no path rules, no
     * auto-approval, no deploys (today's behaviour).
     */
    POLICY_FILE: optionalText,
    /**
     * Who is who across Slack, GitHub, the dashboard and the API, with roles: JSON text or a path
     * to a JSON file. Unset: every caller holding the API token (or a verified Slack/GitHub
     * request) acts as admin, as before roles existed.
     */
    IDENTITIES: optionalText,
    /** HMAC key for deploy webhooks (`X-Pullwright-Signature-256`); required when a webhook deploy runs. */
    DEPLOY_WEBHOOK_SECRET: optionalText,
    /**
     * OTLP/HTTP endpoint for traces (`http://collector:4318`; /v1/traces is added). Unset: no
     * traces are exported (spans cost nothing without a provider).
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Operations one worker process runs at once. Each holds a worktree and a sandbox. */
    WORKER_CONCURRENCY: positiveInt(2),
    /** A repo check (test, lint…) is killed after this long. 10 min covers most CI suites. */
    CHECK_TIMEOUT_MS: positiveInt(10 * 60_000),
    /** Model turns per operation before the loop stops with a budget reason. */
    MAX_TURNS: positiveInt(40),
    /** Tokens (input + output + cache) per operation: ~$5 of a mid-size model. */
    MAX_TOKENS: positiveInt(2_000_000),
    /** Wall time of the agent loop per operation. */
    MAX_WALL_MS: positiveInt(30 * 60_000),
    /** Model cost per operation in USD, from the price table. */
    MAX_COST_USD: z.coerce.number().positive().default(5),
    /**
     * How long an operation that asked for plan confirmation (Slack /implement without --auto)
     * waits for Start / Modify before it ends cancelled. The worker slot stays held meanwhile.
     */
    PLAN_CONFIRMATION_TIMEOUT_MS: positiveInt(3_600_000),
    /**
     * How long the publish gate keeps trying a forge that does not answer or answers 5xx
     * (backoff 1 s, 2 s, 4 s … 30 s), within the operation's time budget, before the operation
     * fails naming the forge. A forge restart or a blip during the push no longer fails it.
     */
    FORGE_RETRY_MS: positiveInt(120_000),
    /** Repair rounds after the first attempt (seed 003: one attempt + three repairs). */
    MAX_REPAIRS: z.coerce.number().int().min(0).max(10).default(3),
    /** Size of the repository map given to the model instead of whole files. */
    REPO_MAP_TOKENS: positiveInt(2000),
    /**
     * File tool calls (read, list, search, edit, write, delete) one job may make per minute
     * (seed 001: 100). Over it the model is told, and the operation goes on.
     */
    FILE_OPS_PER_MINUTE: positiveInt(100),
    /**
     * Dashboard people and their sign-in tokens: `alice:token1,bob:token2` (tokens of 16+ characters).
     * Unset: only the API token signs in (as `operator`).
     */
    DASHBOARD_USERS: optionalText,
    /**
     * Dashboard users who may approve or reject: `alice,carol`. Unset: every signed-in user may.
     * The API token's `operator` always may: that token can approve through REST anyway.
     */
    DASHBOARD_APPROVERS: optionalText,
    /** How long a dashboard sign-in lasts (seconds). 12 h: one working day, then sign in again. */
    DASHBOARD_SESSION_TTL_S: positiveInt(12 * 3600),
    /**
     * On SIGTERM a worker stops taking jobs and gives running ones this long to finish; a job
     * still running then is left to BullMQ's stalled recovery and resumes from its checkpoints.
     * Orchestrators must wait longer than this before SIGKILL (compose stop_grace_period, k8s
     * terminationGracePeriodSeconds). 60 s lets a check suite or a push finish.
     */
    SHUTDOWN_GRACE_MS: positiveInt(60_000),
    /** A running step that appends no event for this long is reported as stuck (event + field). */
    STUCK_AFTER_MS: positiveInt(10 * 60_000),
    /**
     * BullMQ job lock. The worker renews it every half of this while the job runs, so it bounds
     * how long an event-loop stall or a Redis blip may last before the job is taken as stalled
     * and run twice, and how long a dead worker's job waits before another worker resumes it.
     */
    JOB_LOCK_MS: positiveInt(60_000),
    /** How often each worker looks for jobs whose lock expired (BullMQ stalledInterval). */
    JOB_STALLED_INTERVAL_MS: positiveInt(30_000),
    /**
     * Times a job may be recovered after its worker died before it fails for good. A job that
     * kills its worker every time (out of memory on a huge repo) must not loop forever; 3 rides
     * out a rolling deploy plus a crash.
     */
    JOB_MAX_STALLED: z.coerce.number().int().nonnegative().default(3),
    /** Bearer token for GET /metrics; unset: /metrics is open (scrapers usually sit on a private network). */
    METRICS_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_URL && env.REDIS_CLUSTER_NODES.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_CLUSTER_NODES'],
        message: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both',
      });
    }
    if (env.LLM_PROVIDER === 'anthropic' && !env.ANTHROPIC_API_KEY) {
      ctx.addIssue({ code: 'custom', path: ['ANTHROPIC_API_KEY'], message: 'required when LLM_PROVIDER=anthropic' });
    }
    if (env.LLM_PROVIDER === 'openai' && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['OPENAI_API_KEY'], message: 'required when LLM_PROVIDER=openai' });
    }
    if (env.FORGE === 'github') {
      for (const key of ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when FORGE=github' });
      }
    }
    if (Boolean(env.GITHUB_CLIENT_ID) !== Boolean(env.GITHUB_CLIENT_SECRET)) {
      const missing = env.GITHUB_CLIENT_ID ? 'GITHUB_CLIENT_SECRET' : 'GITHUB_CLIENT_ID';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'GitHub sign-in needs both the client id and secret' });
    }
    if (env.GITHUB_CLIENT_ID && !env.IDENTITIES) {
      // Without a directory every caller is an admin: any GitHub account could approve.
      ctx.addIssue({
        code: 'custom',
        path: ['IDENTITIES'],
        message: 'required with GITHUB_CLIENT_ID: it gives GitHub logins their roles',
      });
    }
    if (env.SLACK_APP_TOKEN && !env.SLACK_APP_TOKEN.startsWith('xapp-')) {
      ctx.addIssue({ code: 'custom', path: ['SLACK_APP_TOKEN'], message: 'must be an app-level token (xapp-…)' });
    }
    for (const message of dashboardUserProblems(env.DASHBOARD_USERS)) {
      ctx.addIssue({ code: 'custom', path: ['DASHBOARD_USERS'], message });
    }
  });

const DASHBOARD_USER = /^[A-Za-z0-9._-]{1,64}$/;

function parseDashboardUsers(raw: string | undefined): { user: string; token: string }[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      return colon < 0 ? { user: entry, token: '' } : { user: entry.slice(0, colon), token: entry.slice(colon + 1) };
    });
}

/** Problems name the user, never the token. */
function dashboardUserProblems(raw: string | undefined): string[] {
  const users = parseDashboardUsers(raw);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, { user, token }] of users.entries()) {
    const who = DASHBOARD_USER.test(user) ? user : `entry ${i + 1}`;
    if (!DASHBOARD_USER.test(user)) problems.push(`${who}: user must be 1-64 of A-Z a-z 0-9 . _ -`);
    if (token.length < 16) problems.push(`${who}: token must be at least 16 characters (user:token)`);
    if (seen.has(user)) problems.push(`${who}: listed twice`);
    seen.add(user);
  }
  return problems;
}

export type Env = z.infer<typeof EnvSchema>;

/** `10.0.0.1:7000,redis-2:7000` → `[{ host, port }]`; every entry that is not host:port is reported. */
function parseClusterNodes(raw: string, ctx: z.RefinementCtx): { host: string; port: number }[] {
  const nodes: { host: string; port: number }[] = [];
  for (const entry of raw.split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" must be host:port` });
      continue;
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  return nodes;
}

/** `U123,W456` → `['U123', 'W456']`; every entry that is not a Slack user id is reported. */
function parseSlackUserIds(raw: string, ctx: z.RefinementCtx): string[] {
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!/^[UW][A-Z0-9]{2,}$/.test(id))
      ctx.addIssue({ code: 'custom', message: `"${id}" is not a Slack user id (U…)` });
  }
  return ids;
}

/** `C123=acme/api,C456=acme/web` → `{ C123: 'acme/api', … }`; every bad pair is reported. */
function parseChannelRepos(raw: string, ctx: z.RefinementCtx): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of raw.split(',').map((s) => s.trim())) {
    if (!pair) continue;
    const [channel = '', repo = ''] = pair.split('=').map((s) => s.trim());
    if (!/^[CGD][A-Z0-9]{2,}$/.test(channel) || !RepoSlug.safeParse(repo).success) {
      ctx.addIssue({ code: 'custom', message: `"${pair}" must be CHANNEL_ID=owner/name` });
      continue;
    }
    out[channel] = repo;
  }
  return out;
}

export interface Config {
  redisUrl: string | undefined;
  /** REDIS_CLUSTER_NODES: empty unless a Cluster is configured. */
  redisClusterNodes: { host: string; port: number }[];
  redisPassword: string | undefined;
  redisPrefix: string;
  /** RETENTION_DAYS in seconds: how long an ended operation's keys live. */
  retentionS: number;
  port: number;
  workerPort: number;
  host: string;
  apiToken: string | undefined;
  /** VERIFICATION_KEY, or derived from API_TOKEN; undefined only when neither is set. */
  verificationKey: string | undefined;
  llm: {
    provider: 'anthropic' | 'openai' | 'replay';
    model: string | undefined;
    editMode: 'tools' | 'text';
    /** LLM_PRICES: USD per million tokens for models the built-in table lacks. */
    prices: Record<
      string,
      { input: number; output: number; cacheRead?: number | undefined; cacheWrite?: number | undefined }
    >;
    anthropicApiKey: string | undefined;
    anthropicBaseUrl: string | undefined;
    openaiApiKey: string | undefined;
    openaiBaseUrl: string | undefined;
    replayFile: string | undefined;
  };
  forge: 'github' | 'local';
  github: {
    url: string;
    appId: string | undefined;
    privateKey: string | undefined;
    webhookSecret: string | undefined;
    draftPullRequests: boolean;
    /** OAuth client of the GitHub App, for dashboard sign-in; both set or neither. */
    clientId: string | undefined;
    clientSecret: string | undefined;
  };
  slack: {
    signingSecret: string | undefined;
    botToken: string | undefined;
    /** Socket Mode when set. */
    appToken: string | undefined;
    apiUrl: string | undefined;
    channelRepos: Record<string, string>;
    approvers: string[];
  };
  /** Base URL of the dashboard, without a trailing slash. */
  publicUrl: string;
  defaultRepo: string | undefined;
  dataDir: string;
  workspaceDir: string;
  forgeDir: string;
  /** Files the `*_FILE` variables named: the sandbox hides them from repository code. */
  secretFiles: string[];
  sandbox: { kind: Env['SANDBOX']; dockerImage: string };
  secretRulesFile: string | undefined;
  policyFile: string | undefined;
  identities: string | undefined;
  deployWebhookSecret: string | undefined;
  logLevel: Env['LOG_LEVEL'];
  workerConcurrency: number;
  checkTimeoutMs: number;
  planConfirmationTimeoutMs: number;
  forgeRetryMs: number;
  maxTurns: number;
  budget: { turns: number; tokens: number; wallMs: number; costUsd: number };
  maxRepairs: number;
  repoMapTokens: number;
  fileOpsPerMinute: number;
  dashboard: {
    users: { user: string; token: string }[];
    /** Empty: every signed-in user may approve. */
    approvers: string[];
    sessionTtlS: number;
  };
  worker: {
    shutdownGraceMs: number;
    stuckAfterMs: number;
    jobLockMs: number;
    stalledIntervalMs: number;
    maxStalledCount: number;
  };
  metricsToken: string | undefined;
  /** Traces are exported here when set. */
  otlpEndpoint: string | undefined;
}

export class ConfigError extends PullwrightError<{ issues: { variable: string; reason: string }[] }> {
  constructor(issues: { variable: string; reason: string }[]) {
    // One line, so a crash-looping container shows the whole reason in its last log line.
    const problems = issues.map((i) => `${i.variable}: ${i.reason}`).join('; ');
    super('config_invalid', `invalid configuration: ${problems}`, { issues });
  }
}

/** Which process reads the configuration: each refuses to start without what it needs. */
export type ProcessRole = 'api' | 'worker' | 'all';

/** Secrets that may come from a file instead (`API_TOKEN_FILE=/run/secrets/api-token`): Docker and compose secrets. */
const FILE_VARIABLES = [
  'API_TOKEN',
  'VERIFICATION_KEY',
  'REDIS_PASSWORD',
  'METRICS_TOKEN',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GITHUB_WEBHOOK_SECRET',
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'GITHUB_CLIENT_SECRET',
  'DEPLOY_WEBHOOK_SECRET',
] as const;

type Issue = { variable: string; reason: string };

/** Fills `X` from the file `X_FILE` names when `X` itself is unset or empty. */
function withFileVariables(source: NodeJS.ProcessEnv, issues: Issue[]): NodeJS.ProcessEnv {
  const env = { ...source };
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file || env[name]?.trim()) continue;
    try {
      env[name] = readFileSync(file, 'utf8').trim();
    } catch (err) {
      issues.push({ variable: `${name}_FILE`, reason: `cannot read ${file} (${(err as NodeJS.ErrnoException).code})` });
    }
  }
  return env;
}

/**
 * What a process started alone needs besides a valid environment. The API and the worker
 * share Redis and the verification key (the worker signs the PR's receipt, the API checks
 * it); `npm start` generates what is missing, so the all-in-one role needs nothing.
 */
function roleIssues(env: NodeJS.ProcessEnv, role: ProcessRole): Issue[] {
  if (role === 'all') return [];
  const set = (name: string) => Boolean(env[name]?.trim());
  const issues: Issue[] = [];
  if (!set('REDIS_URL') && !set('REDIS_CLUSTER_NODES')) {
    issues.push({ variable: 'REDIS_URL', reason: `required by the ${role} process (or REDIS_CLUSTER_NODES)` });
  }
  if (!set('VERIFICATION_KEY')) {
    issues.push({
      variable: 'VERIFICATION_KEY',
      reason: `required by the ${role} process: workers sign PR receipts with it and the API checks them (same value on both)`,
    });
  }
  if (role === 'api' && !set('API_TOKEN'))
    issues.push({ variable: 'API_TOKEN', reason: 'required by the api process' });
  return issues;
}

/** Reads the environment once; throws `ConfigError` naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, role: ProcessRole = 'all'): Config {
  const issues: Issue[] = [];
  const withFiles = withFileVariables(source, issues);
  const parsed = EnvSchema.safeParse(withFiles);
  if (!parsed.success) {
    issues.push(
      ...parsed.error.issues.map((i) => ({ variable: i.path.join('.') || '(environment)', reason: i.message })),
    );
  }
  issues.push(...roleIssues(withFiles, role));
  if (issues.length > 0 || !parsed.success) throw new ConfigError(issues);
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  const provider = env.LLM_PROVIDER ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : 'replay');
  return {
    redisUrl: env.REDIS_URL,
    redisClusterNodes: env.REDIS_CLUSTER_NODES,
    redisPassword: env.REDIS_PASSWORD,
    redisPrefix: env.REDIS_PREFIX,
    retentionS: env.RETENTION_DAYS * 24 * 3600,
    port: env.PORT,
    workerPort: env.WORKER_PORT,
    host: env.HOST,
    apiToken: env.API_TOKEN,
    verificationKey:
      env.VERIFICATION_KEY ??
      (env.API_TOKEN
        ? Buffer.from(hkdfSync('sha256', env.API_TOKEN, '', 'pullwright verification block v1', 32)).toString('hex')
        : undefined),
    llm: {
      provider,
      model: env.LLM_MODEL,
      editMode: env.LLM_EDIT_MODE,
      prices: env.LLM_PRICES ?? {},
      anthropicApiKey: env.ANTHROPIC_API_KEY,
      anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
      openaiApiKey: env.OPENAI_API_KEY,
      openaiBaseUrl: env.OPENAI_BASE_URL,
      replayFile: env.REPLAY_FILE,
    },
    forge: env.FORGE ?? (env.GITHUB_APP_ID ? 'github' : 'local'),
    github: {
      url: env.GITHUB_URL,
      appId: env.GITHUB_APP_ID,
      privateKey: env.GITHUB_APP_PRIVATE_KEY,
      webhookSecret: env.GITHUB_WEBHOOK_SECRET,
      draftPullRequests: env.GITHUB_PR_DRAFT,
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
    },
    slack: {
      signingSecret: env.SLACK_SIGNING_SECRET,
      botToken: env.SLACK_BOT_TOKEN,
      appToken: env.SLACK_APP_TOKEN,
      apiUrl: env.SLACK_API_URL,
      channelRepos: env.SLACK_CHANNEL_REPOS,
      approvers: env.SLACK_APPROVERS,
    },
    publicUrl: (env.PUBLIC_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`).replace(
      /\/+$/,
      '',
    ),
    defaultRepo: env.DEFAULT_REPO,
    dataDir,
    workspaceDir: path.resolve(env.WORKSPACE_DIR ?? path.join(dataDir, 'workspace')),
    forgeDir: path.resolve(env.FORGE_DIR ?? path.join(dataDir, 'forge')),
    secretFiles: FILE_VARIABLES.map((name) => source[`${name}_FILE`]?.trim())
      .filter((file): file is string => Boolean(file))
      .map((file) => path.resolve(file)),
    sandbox: { kind: env.SANDBOX, dockerImage: env.SANDBOX_DOCKER_IMAGE },
    secretRulesFile: env.SECRET_RULES_FILE,
    policyFile: env.POLICY_FILE,
    identities: env.IDENTITIES,
    deployWebhookSecret: env.DEPLOY_WEBHOOK_SECRET,
    logLevel: env.LOG_LEVEL,
    workerConcurrency: env.WORKER_CONCURRENCY,
    checkTimeoutMs: env.CHECK_TIMEOUT_MS,
    planConfirmationTimeoutMs: env.PLAN_CONFIRMATION_TIMEOUT_MS,
    forgeRetryMs: env.FORGE_RETRY_MS,
    maxTurns: env.MAX_TURNS,
    budget: { turns: env.MAX_TURNS, tokens: env.MAX_TOKENS, wallMs: env.MAX_WALL_MS, costUsd: env.MAX_COST_USD },
    maxRepairs: env.MAX_REPAIRS,
    repoMapTokens: env.REPO_MAP_TOKENS,
    fileOpsPerMinute: env.FILE_OPS_PER_MINUTE,
    dashboard: {
      users: parseDashboardUsers(env.DASHBOARD_USERS),
      approvers: (env.DASHBOARD_APPROVERS ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
      sessionTtlS: env.DASHBOARD_SESSION_TTL_S,
    },
    worker: {
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      stuckAfterMs: env.STUCK_AFTER_MS,
      jobLockMs: env.JOB_LOCK_MS,
      stalledIntervalMs: env.JOB_STALLED_INTERVAL_MS,
      maxStalledCount: env.JOB_MAX_STALLED,
    },
    metricsToken: env.METRICS_TOKEN,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
}

/** The values no output may ever show: fed to the Redactor at start-up. */
export function configSecrets(config: Config): string[] {
  return [
    config.apiToken,
    config.verificationKey,
    config.metricsToken,
    config.llm.anthropicApiKey,
    config.llm.openaiApiKey,
    config.github.privateKey,
    config.github.webhookSecret,
    config.slack.signingSecret,
    config.slack.botToken,
    config.slack.appToken,
    config.github.clientSecret,
    ...config.dashboard.users.map((u) => u.token),
    config.deployWebhookSecret,
    config.redisPassword,
    config.redisUrl && new URL(config.redisUrl).password
      ? decodeURIComponent(new URL(config.redisUrl).password)
      : undefined,
  ].filter((v): v is string => typeof v === 'string' && v.length >= 6);
}
