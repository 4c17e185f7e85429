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

/**
 * Every variable the service reads, with its default. Parsed once at start-up; a bad
 * environment fails with every problem listed at once (see `loadConfig`).
 */
export const EnvSchema = z
  .object({
    /** Redis for queues, operations, events and locks. Unset: `npm start` runs a private redis-server. */
    REDIS_URL: optionalUrl,
    /** Prefix of every Redis key, so several deployments (or tests) can share one Redis. */
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('pw'),
    /** HTTP port of the API and dashboard. */
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Interface to listen on; containers set 0.0.0.0. Loopback by default so a laptop run is private. */
    HOST: z.string().default('127.0.0.1'),
    /** Bearer token for REST and the dashboard. `npm start` generates one when unset. */
    API_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    /** anthropic | openai | replay. Default: anthropic with ANTHROPIC_API_KEY, openai with OPENAI_API_KEY, else replay. */
    LLM_PROVIDER: z.enum(['anthropic', 'openai', 'replay']).optional(),
    LLM_MODEL: optionalText,
    ANTHROPIC_API_KEY: optionalText,
    ANTHROPIC_BASE_URL: optionalUrl,
    OPENAI_API_KEY: optionalText,
    OPENAI_BASE_URL: optionalUrl,
    /** Transcript the replay provider plays (JSON). Default: the bundled demo transcript. */
    REPLAY_FILE: optionalText,
    /** github | local. Default: github when a GitHub App is configured, else local. */
    FORGE: z.enum(['github', 'local']).optional(),
    GITHUB_URL: z.url().default('https://github.com'),
    GITHUB_APP_ID: optionalText,
    /** PEM text or a path to the PEM file. */
    GITHUB_APP_PRIVATE_KEY: optionalText,
    GITHUB_WEBHOOK_SECRET: optionalText,
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_BOT_TOKEN: optionalText,
    SLACK_API_URL: optionalUrl,
    /** Repository used when a request names none. */
    DEFAULT_REPO: optionalText.pipe(RepoSlug.optional()),
    /** Embedded Redis data, local forge repositories, transcripts. */
    DATA_DIR: z.string().min(1).default('.pullwright'),
    /** Mirrors and worktrees. Default: <DATA_DIR>/workspace. */
    WORKSPACE_DIR: optionalText,
    /** Where repository commands run: auto picks bubblewrap when it works, else docker when configured, else a plain process (warned). */
    SANDBOX: z.enum(['auto', 'bubblewrap', 'docker', 'process']).default('auto'),
    /** Image for SANDBOX=docker: it must hold the toolchains the repositories' checks need. */
    SANDBOX_DOCKER_IMAGE: z.string().min(1).default('node:22-bookworm-slim'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Operations one worker process runs at once. Each holds a worktree and a sandbox. */
    WORKER_CONCURRENCY: positiveInt(2),
    /** A repo check (test, lint…) is killed after this long. 10 min covers most CI suites. */
    CHECK_TIMEOUT_MS: positiveInt(10 * 60_000),
    /** Model turns per operation before the loop stops with a budget reason. */
    MAX_TURNS: positiveInt(40),
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
  });

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  redisUrl: string | undefined;
  redisPrefix: string;
  port: number;
  host: string;
  apiToken: string | undefined;
  llm: {
    provider: 'anthropic' | 'openai' | 'replay';
    model: string | undefined;
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
  };
  slack: { signingSecret: string | undefined; botToken: string | undefined; apiUrl: string | undefined };
  defaultRepo: string | undefined;
  dataDir: string;
  workspaceDir: string;
  sandbox: { kind: Env['SANDBOX']; dockerImage: string };
  logLevel: Env['LOG_LEVEL'];
  workerConcurrency: number;
  checkTimeoutMs: number;
  maxTurns: number;
  worker: {
    shutdownGraceMs: number;
    stuckAfterMs: number;
    jobLockMs: number;
    stalledIntervalMs: number;
    maxStalledCount: number;
  };
  metricsToken: string | undefined;
}

export class ConfigError extends PullwrightError<{ issues: { variable: string; reason: string }[] }> {
  constructor(issues: { variable: string; reason: string }[]) {
    const lines = issues.map((i) => `  ${i.variable}: ${i.reason}`).join('\n');
    super('config_invalid', `invalid configuration:\n${lines}`, { issues });
  }
}

/** Reads the environment once; throws `ConfigError` naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ variable: i.path.join('.') || '(environment)', reason: i.message })),
    );
  }
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  const provider = env.LLM_PROVIDER ?? (env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : 'replay');
  return {
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX,
    port: env.PORT,
    host: env.HOST,
    apiToken: env.API_TOKEN,
    llm: {
      provider,
      model: env.LLM_MODEL,
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
    },
    slack: { signingSecret: env.SLACK_SIGNING_SECRET, botToken: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL },
    defaultRepo: env.DEFAULT_REPO,
    dataDir,
    workspaceDir: path.resolve(env.WORKSPACE_DIR ?? path.join(dataDir, 'workspace')),
    sandbox: { kind: env.SANDBOX, dockerImage: env.SANDBOX_DOCKER_IMAGE },
    logLevel: env.LOG_LEVEL,
    workerConcurrency: env.WORKER_CONCURRENCY,
    checkTimeoutMs: env.CHECK_TIMEOUT_MS,
    maxTurns: env.MAX_TURNS,
    worker: {
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      stuckAfterMs: env.STUCK_AFTER_MS,
      jobLockMs: env.JOB_LOCK_MS,
      stalledIntervalMs: env.JOB_STALLED_INTERVAL_MS,
      maxStalledCount: env.JOB_MAX_STALLED,
    },
    metricsToken: env.METRICS_TOKEN,
  };
}

/** The values no output may ever show: fed to the Redactor at start-up. */
export function configSecrets(config: Config): string[] {
  return [
    config.apiToken,
    config.metricsToken,
    config.llm.anthropicApiKey,
    config.llm.openaiApiKey,
    config.github.privateKey,
    config.github.webhookSecret,
    config.slack.signingSecret,
    config.slack.botToken,
    config.redisUrl && new URL(config.redisUrl).password
      ? decodeURIComponent(new URL(config.redisUrl).password)
      : undefined,
  ].filter((v): v is string => typeof v === 'string' && v.length >= 6);
}
