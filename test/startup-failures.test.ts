import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type RedisServerHandle, startRedisServer } from '@pullwright/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-process.ts';
import { redisEnv } from './support/redis-env.ts';

/**
 * Only a guard against a hang. "At once" (the issue: within 5 s) is shown by the path each
 * case ends on: the message names the cause, never a timer (`no answer within 4 s`), so no
 * wait is built into it. Wall time here measures the machine's load: process start-up under
 * a full suite on two cores has taken 5 s by itself.
 */
const HANG_GUARD_MS = 30_000;
const KEY = 'verification-key-0123456789abcdef';
const TOKEN = 'api-token-0123456789abcdef';

let busy: net.Server;
/** A Redis that wants a password, as compose runs it. */
let guarded: RedisServerHandle;
let busyPort: number;
/** A loopback port nothing listens on: connections are refused at once. */
let closedPort: number;

async function listen(): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  guarded = await startRedisServer({ password: 'the-right-password' });
  busy = await listen();
  busyPort = (busy.address() as net.AddressInfo).port;
  const probe = await listen();
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
});
afterAll(async () => {
  await new Promise((r) => busy.close(r));
  await guarded.stop();
});

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pw-startup-'));
const base = () => ({
  ...redisEnv(),
  REDIS_PREFIX: 'startup-failures',
  DATA_DIR: dataDir,
  VERIFICATION_KEY: KEY,
  API_TOKEN: TOKEN,
  PORT: '0',
  WORKER_PORT: '0',
  LOG_LEVEL: 'info',
  SANDBOX: 'none',
});
/** An OpenAI-compatible local server (Ollama's address); nothing listens: the worker starts without calling it. */
const LOCAL_MODEL = { LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'qwen3-coder' };
const without = (env: Record<string, string>, name: string) => {
  const { [name]: _, ...rest } = env;
  return rest;
};

type Case = [what: string, role: 'api' | 'worker', env: () => Record<string, string>, expected: () => RegExp];

const cases: Case[] = [
  [
    'PORT is not a number',
    'api',
    () => ({ ...base(), PORT: 'abc' }),
    () => /invalid configuration: PORT: must be a port number, 0-65535$/,
  ],
  [
    'the API port is taken',
    'api',
    () => ({ ...base(), PORT: String(busyPort) }),
    () => new RegExp(`PORT: cannot listen on 127\\.0\\.0\\.1:${busyPort}: the address is already in use`),
  ],
  [
    'the worker port is taken',
    'worker',
    () => ({ ...base(), WORKER_PORT: String(busyPort) }),
    () => new RegExp(`WORKER_PORT: cannot listen on 127\\.0\\.0\\.1:${busyPort}`),
  ],
  [
    'Redis is unreachable (api)',
    'api',
    () => ({ ...without(base(), 'REDIS_CLUSTER_NODES'), REDIS_URL: `redis://127.0.0.1:${closedPort}` }),
    () => new RegExp(`REDIS_URL: cannot use Redis at 127\\.0\\.0\\.1:${closedPort}: it is unreachable`),
  ],
  [
    'Redis is unreachable (worker)',
    'worker',
    () => ({ ...without(base(), 'REDIS_CLUSTER_NODES'), REDIS_URL: `redis://127.0.0.1:${closedPort}` }),
    () => new RegExp(`REDIS_URL: cannot use Redis at 127\\.0\\.0\\.1:${closedPort}: it is unreachable`),
  ],
  [
    'the Redis password is wrong',
    'api',
    () => ({
      ...without(base(), 'REDIS_CLUSTER_NODES'),
      REDIS_URL: `redis://127.0.0.1:${guarded.port}`,
      REDIS_PASSWORD: 'a-wrong-password',
    }),
    () => /REDIS_URL: cannot use Redis at 127\.0\.0\.1:\d+: the password was refused/,
  ],
  [
    'no Cluster node answers',
    'worker',
    () => ({ ...without(base(), 'REDIS_URL'), REDIS_CLUSTER_NODES: `127.0.0.1:${closedPort}` }),
    () => new RegExp(`REDIS_CLUSTER_NODES: cannot use Redis at 127\\.0\\.0\\.1:${closedPort}`),
  ],
  [
    'a Cluster node is not host:port',
    'api',
    () => ({ ...without(base(), 'REDIS_URL'), REDIS_CLUSTER_NODES: 'redis-1' }),
    () => /REDIS_CLUSTER_NODES: "redis-1" must be host:port/,
  ],
  [
    'no Redis at all',
    'worker',
    () => without(without(base(), 'REDIS_URL'), 'REDIS_CLUSTER_NODES'),
    () => /REDIS_URL: required by the worker process/,
  ],
  [
    'the API has no API_TOKEN',
    'api',
    () => without(base(), 'API_TOKEN'),
    () => /API_TOKEN: required by the api process/,
  ],
  [
    'the API has no VERIFICATION_KEY',
    'api',
    () => without(base(), 'VERIFICATION_KEY'),
    () => /VERIFICATION_KEY: required by the api process/,
  ],
  [
    'the worker has no VERIFICATION_KEY',
    'worker',
    () => without(base(), 'VERIFICATION_KEY'),
    () => /VERIFICATION_KEY: required by the worker process/,
  ],
  [
    'a secret file is missing',
    'api',
    () => ({ ...without(base(), 'API_TOKEN'), API_TOKEN_FILE: '/nonexistent/api-token' }),
    () => /API_TOKEN_FILE: cannot read \/nonexistent\/api-token \(ENOENT\)/,
  ],
  [
    'a provider without its key',
    'worker',
    () => ({ ...base(), LLM_PROVIDER: 'anthropic' }),
    () => /ANTHROPIC_API_KEY: required when LLM_PROVIDER=anthropic/,
  ],
  [
    'a worker holding a model key in production mode',
    'worker',
    () => ({
      ...base(),
      WORKER_TOKEN: 'worker-token-0123456789abcdef',
      PRODUCTION_MODE: 'true',
      LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-api03-heldHELDheldHELD0123456789',
    }),
    () => /ANTHROPIC_API_KEY: a worker should not hold it: .* Fix: give it to the API only/,
  ],
  [
    'a model without a price (a local model)',
    'worker',
    () => ({ ...base(), ...LOCAL_MODEL }),
    () =>
      /LLM_PRICES: model "qwen3-coder" has no known price, so MAX_COST_USD could not be kept\. Fix: .* a local model \(Ollama, vLLM, llama\.cpp\) is free: LLM_PRICES='\{"qwen3-coder":\{"input":0,"output":0\}\}'$/,
  ],
];

describe('start-up failures: each bad setting ends the process at once, naming it', () => {
  it.each(cases)(
    '%s',
    async (_what, role, env, expected) => {
      const proc = spawnCli([role], env());
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), HANG_GUARD_MS);
      const { code, signal } = await proc.exited;
      clearTimeout(timer);
      expect(signal, `still running after ${HANG_GUARD_MS} ms:\n${proc.output()}`).toBeNull();
      expect(code).toBe(1);
      expect(proc.output()).not.toMatch(/no answer within/);
      // One line on stderr: the setting, no stack, no library retry messages.
      const lines = proc.errors().trim().split('\n');
      expect(lines, proc.errors()).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^pullwright ${role}: `));
      expect(lines[0]).toMatch(expected());
      expect(proc.output()).not.toMatch(/redis connection error|Unhandled error event|at .*\.ts:\d+/);
      expect(proc.output()).not.toContain('a-wrong-password');
    },
    HANG_GUARD_MS + 10_000,
  );
});

describe('start-up warnings: a process starts, and says once what it lacks or should not hold', () => {
  const started = async (env: Record<string, string>) => {
    const proc = spawnCli(['worker'], env, '"worker started"');
    try {
      await proc.ready;
      return proc.output();
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  };
  const warned = (output: string) =>
    output
      .split('\n')
      .filter((l) => l.includes('"level":40'))
      .map((l) => (JSON.parse(l) as { variable?: string }).variable)
      .filter(Boolean);

  it(
    'a worker with an explicit zero price for its local model starts; without PUBLIC_URL and WORKER_TOKEN, and holding API_TOKEN, it warns',
    async () => {
      const output = await started({ ...base(), ...LOCAL_MODEL, LLM_PRICES: '{"qwen3-coder":{"input":0,"output":0}}' });
      expect(warned(output).sort()).toEqual(['API_TOKEN', 'PUBLIC_URL', 'WORKER_TOKEN']);
      expect(output).toMatch(
        /PUBLIC_URL: unset, recommended by the worker process: the pull requests and tracking comments/,
      );
      expect(output).toMatch(/API_TOKEN: set, but the worker process never reads it/);
      expect(output).not.toContain(TOKEN);
    },
    HANG_GUARD_MS,
  );

  it(
    'a worker given what it needs, and nothing more, warns about nothing',
    async () => {
      const output = await started({
        ...without(base(), 'API_TOKEN'),
        PUBLIC_URL: 'https://pullwright.example.com',
        WORKER_TOKEN: 'worker-token-0123456789abcdef',
      });
      expect(warned(output)).toEqual([]);
    },
    HANG_GUARD_MS,
  );
});
