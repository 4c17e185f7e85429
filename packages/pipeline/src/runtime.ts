import path from 'node:path';
import { createModelProvider, loadReplayTranscript, type ModelProvider, ReplayProvider } from '@pullwright/agent';
import { type Config, configSecrets, type Logger, PullwrightError } from '@pullwright/core';
import { LocalForge } from '@pullwright/forge';
import { BranchRegistry, FileLocks, LockWaiter, MergeLock } from '@pullwright/locks';
import { CodeQueue, OperationEvents, OperationInbox, OperationStore, RedisKeys } from '@pullwright/queue';
import { type CommandRunner, createCommandRunner } from '@pullwright/sandbox';
import { Redactor } from '@pullwright/security';
import { WorkspaceManager } from '@pullwright/workspace';
import { Redis } from 'ioredis';
import { OperationActions } from './operation-actions.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

/** The lock objects of one process; FileLocks and MergeLock share one subscriber connection. */
export interface RuntimeLocks {
  files: FileLocks;
  merge: MergeLock;
  branches: BranchRegistry;
  /** First segment of every lock key (`<REDIS_PREFIX>:locks`). */
  prefix: string;
}

export interface Runtime extends PipelineDeps {
  config: Config;
  redis: Redis;
  keys: RedisKeys;
  localForge: LocalForge | undefined;
  actions: OperationActions;
  locks: RuntimeLocks;
  close(): Promise<void>;
}

/**
 * One provider per operation: the replay provider keeps its place in the transcript, and a
 * real provider's per-conversation state (Anthropic's thinking-turn memory) stays with it.
 */
export function createModelProviderFactory(config: Config, logger: Logger): () => ModelProvider {
  if (config.llm.provider === 'replay') {
    const file = config.llm.replayFile;
    if (!file) throw new PullwrightError('config_invalid', 'REPLAY_FILE is required when LLM_PROVIDER=replay');
    const transcript = loadReplayTranscript(file);
    return () => new ReplayProvider(transcript);
  }
  const replayUnavailable = (): ModelProvider => {
    throw new PullwrightError('config_invalid', 'replay is not configured');
  };
  return () => createModelProvider(config.llm, replayUnavailable, logger);
}

/** The sandbox for repository commands; the data directories are hidden from it (keys, other worktrees). */
export function createSandbox(config: Config, logger: Logger): Promise<CommandRunner> {
  const hide = [config.dataDir, config.workspaceDir];
  return createCommandRunner({
    logger,
    bubblewrap: { hide },
    ...(config.sandbox.kind === 'auto' ? {} : { prefer: config.sandbox.kind }),
    ...(config.sandbox.kind === 'docker' ? { docker: { image: config.sandbox.dockerImage } } : {}),
  });
}

/** Builds the shared objects of one process (API, worker or both) from the configuration. */
export async function createRuntime(
  config: Config,
  logger: Logger,
  redactor = new Redactor({ secrets: configSecrets(config) }),
): Promise<Runtime> {
  if (!config.redisUrl) throw new PullwrightError('config_invalid', 'REDIS_URL is required');
  if (config.forge !== 'local')
    throw new PullwrightError('config_invalid', 'FORGE=github is not available in this build');
  // Before any connection is opened, so a bad provider or sandbox setting leaks nothing.
  const createProvider = createModelProviderFactory(config, logger);
  const runner = await createSandbox(config, logger);
  // Commands fail fast when Redis is away (the API answers 503) instead of queueing forever.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3000, lazyConnect: false });
  redis.on('error', (err) => logger.warn({ err: redactor.redact(err.message) }, 'redis connection error'));
  const keys = new RedisKeys(config.redisPrefix);
  const scrub = <T>(v: T) => redactor.redactValue(v);
  const store = new OperationStore(redis, keys, scrub);
  const events = new OperationEvents(redis, keys, scrub);
  const queue = new CodeQueue(redis, config.redisPrefix);
  const lockPrefix = `${config.redisPrefix}:locks`;
  const waiter = new LockWaiter(redis, { logger });
  const locks: RuntimeLocks = {
    files: new FileLocks(redis, { prefix: lockPrefix, waiter, logger }),
    merge: new MergeLock(redis, { prefix: lockPrefix, waiter, logger }),
    branches: new BranchRegistry(redis, { prefix: lockPrefix }),
    prefix: lockPrefix,
  };
  const webUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const localForge = new LocalForge({
    root: path.join(config.dataDir, 'forge'),
    redis,
    keyPrefix: config.redisPrefix,
    webUrl,
  });
  return {
    config,
    redis,
    keys,
    store,
    events,
    inbox: new OperationInbox(redis, keys),
    queue,
    forge: localForge,
    localForge,
    workspace: new WorkspaceManager(config.workspaceDir, logger),
    runner,
    redactor,
    logger,
    createProvider,
    transcriptsDir: path.join(config.dataDir, 'transcripts'),
    maxTurns: config.maxTurns,
    checkTimeoutMs: config.checkTimeoutMs,
    actions: new OperationActions(store, queue),
    locks,
    async close() {
      await locks.files.close();
      await locks.merge.close();
      await waiter.close();
      await queue.close();
      redis.disconnect();
    },
  };
}
