import { type Config, PullwrightError } from '@pullwright/core';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** A single node or a Cluster: every module takes either (keys of one script or MULTI share a `{…}` slot). */
export type RedisClient = Redis | Cluster;

interface RedisClientOptions {
  /** Commands fail after this many reconnect attempts; `null` waits for ever (BullMQ workers, XREAD BLOCK). */
  maxRetriesPerRequest?: number | null;
  onError?: (err: Error) => void;
}

/** Where the client connects, for messages: never the password. */
function redisTarget(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): string {
  if (config.redisClusterNodes.length > 0) return config.redisClusterNodes.map((n) => `${n.host}:${n.port}`).join(',');
  if (!config.redisUrl) return '(none)';
  const url = new URL(config.redisUrl);
  return `${url.hostname}:${url.port || '6379'}`;
}

function variableOf(config: Pick<Config, 'redisClusterNodes'>): string {
  return config.redisClusterNodes.length > 0 ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
}

/**
 * The one way a process builds its Redis client: a standalone client from REDIS_URL, or a
 * Cluster client from REDIS_CLUSTER_NODES (REDIS_PASSWORD for either). Nothing is connected
 * until `connectRedis`, which decides whether a failure at boot is fatal.
 */
export function createRedisClient(
  config: Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'redisPassword'>,
  options: RedisClientOptions = {},
): RedisClient {
  const node: RedisOptions = {
    // Commands fail fast when Redis is away (the API answers 503) instead of queueing forever.
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 1 : options.maxRetriesPerRequest,
    connectTimeout: 3000,
    lazyConnect: true,
    ...(config.redisPassword ? { password: config.redisPassword } : {}),
  };
  let client: RedisClient;
  if (config.redisClusterNodes.length > 0) {
    const clusterOptions: ClusterOptions = {
      lazyConnect: true,
      redisOptions: node,
      // Cluster-wide auto-pipelining groups commands per node: what MGET across slots cannot do.
      enableAutoPipelining: true,
      maxRedirections: 16,
    };
    client = new Cluster(config.redisClusterNodes, clusterOptions);
  } else {
    if (!config.redisUrl) throw new PullwrightError('config_invalid', 'REDIS_URL is required');
    client = new Redis(config.redisUrl, node);
  }
  client.on('error', options.onError ?? (() => undefined));
  return client;
}

/**
 * A second connection with the same target and credentials: blocking reads (XREAD BLOCK,
 * BullMQ workers) hold their connection, so they get their own. `Cluster.duplicate` would
 * replace `redisOptions` wholesale and lose the password, hence this helper.
 */
export function duplicateRedis(client: RedisClient, options: RedisClientOptions = {}): RedisClient {
  const retries =
    options.maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest: options.maxRetriesPerRequest };
  const copy =
    client instanceof Cluster
      ? client.duplicate([], { redisOptions: { ...client.options.redisOptions, ...retries } })
      : client.duplicate(retries);
  copy.on('error', options.onError ?? (() => undefined));
  return copy;
}

/**
 * Connects once, without the client's reconnect loop: a Redis that is down, a wrong host or
 * a wrong password at boot is a fatal start-up error naming the variable and the address,
 * not a stream of retry warnings. Afterwards the client reconnects on its own as usual.
 */
export async function connectRedis(
  client: RedisClient,
  config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>,
  timeoutMs = 4000,
): Promise<void> {
  const target = redisTarget(config);
  const variable = variableOf(config);
  let timer: NodeJS.Timeout | undefined;
  // connect() often rejects with a generic "Connection is closed."; the cause (WRONGPASS,
  // ECONNREFUSED) arrives as an 'error' event just before.
  let cause: Error | undefined;
  const remember = (err: Error) => {
    cause ??= err;
  };
  client.on('error', remember);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeout,
    ]);
  } catch (err) {
    client.disconnect();
    const message = (cause ?? (err as Error)).message ?? String(err);
    const reason = /WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message)
      ? 'the password was refused (REDIS_PASSWORD or the URL password)'
      : /None of startup nodes is available|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|no answer|Connection is closed|Failed to refresh slots cache/i.test(
            message,
          )
        ? `it is unreachable (${firstLine(message)})`
        : firstLine(message);
    throw new PullwrightError('unavailable', `${variable}: cannot use Redis at ${target}: ${reason}`);
  } finally {
    clearTimeout(timer);
    client.off('error', remember);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 200);
}
