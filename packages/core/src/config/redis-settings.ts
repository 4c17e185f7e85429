import { z } from 'zod';
import { envSection } from './env-section.ts';
import { positiveInt, text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

interface RedisNode {
  host: string;
  port: number;
}

/** `10.0.0.1:7000,redis-2:7000` → `[{ host, port }]`; every entry that is not host:port is reported. */
const clusterNodes = z.string().transform((raw, ctx) => {
  const nodes: RedisNode[] = [];
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
});

const passwordOf = (value: string | undefined) => {
  const password = value ? new URL(value).password : '';
  return [password ? decodeURIComponent(password) : undefined];
};

const needRedis = (role: string) => ({
  level: 'required' as const,
  why: `the ${role} shares queues, operations and locks through it`,
  orElse: 'REDIS_CLUSTER_NODES',
});

export const redisSettings = envSection(
  'Redis',
  {
    REDIS_URL: envVariable(url, {
      doc: 'Redis for queues, operations, events, locks and transcripts; it must use `maxmemory-policy noeviction`.',
      defaultDoc: '`npm start`: a private `redis-server` (data under `<DATA_DIR>/redis`)',
      readBy: READ_BY.every,
      // The URL may carry the password.
      secret: { parts: passwordOf },
      needs: { api: needRedis('api'), worker: needRedis('worker') },
    }),
    REDIS_CLUSTER_NODES: envVariable(clusterNodes, {
      doc: 'A Redis Cluster instead of REDIS_URL: `host:port,host:port,…` (any reachable nodes; the rest are discovered). Every multi-key script and MULTI stays inside one `{…}` hash slot.',
      readBy: READ_BY.every,
    }),
    REDIS_PASSWORD: envVariable(text, {
      doc: 'Password for REDIS_CLUSTER_NODES, or for a REDIS_URL that carries none.',
      readBy: READ_BY.every,
      secret: true,
    }),
    REDIS_PREFIX: envVariable(z.string().regex(/^[A-Za-z0-9_-]+$/), {
      doc: 'Prefix of every Redis key, so several deployments (or tests) can share one Redis; the same value in every process.',
      default: 'pw',
      readBy: READ_BY.every,
    }),
    RETENTION_DAYS: envVariable(positiveInt, {
      doc: 'Days an ended operation (record, timeline, transcript, artifacts) stays in Redis before it expires.',
      default: '30',
      readBy: READ_BY.every,
    }),
  },
  (env) => ({
    redisUrl: env.REDIS_URL,
    /** REDIS_CLUSTER_NODES: empty unless a Cluster is configured. */
    redisClusterNodes: env.REDIS_CLUSTER_NODES ?? [],
    redisPassword: env.REDIS_PASSWORD,
    redisPrefix: env.REDIS_PREFIX,
    /** RETENTION_DAYS in seconds: how long an ended operation's keys live. */
    retentionS: env.RETENTION_DAYS * 24 * 3600,
  }),
  {
    check: (env) =>
      env.REDIS_URL && env.REDIS_CLUSTER_NODES?.length
        ? [{ variable: 'REDIS_CLUSTER_NODES', reason: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both' }]
        : [],
  },
);
