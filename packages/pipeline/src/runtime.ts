import path from 'node:path';
import { loadReplayTranscript, type ModelProvider, ReplayProvider } from '@pullwright/agent';
import { type Config, configSecrets, type Logger, PullwrightError } from '@pullwright/core';
import { LocalForge } from '@pullwright/forge';
import { CodeQueue, OperationEvents, OperationInbox, OperationStore, RedisKeys } from '@pullwright/queue';
import { ProcessRunner } from '@pullwright/sandbox';
import { Redactor } from '@pullwright/security';
import { WorkspaceManager } from '@pullwright/workspace';
import { Redis } from 'ioredis';
import { OperationActions } from './operation-actions.ts';
import type { PipelineDeps } from './pipeline-deps.ts';

export interface Runtime extends PipelineDeps {
  config: Config;
  redis: Redis;
  keys: RedisKeys;
  localForge: LocalForge | undefined;
  actions: OperationActions;
  close(): Promise<void>;
}

export function createModelProviderFactory(config: Config): (op: unknown) => ModelProvider {
  switch (config.llm.provider) {
    case 'replay': {
      const file = config.llm.replayFile;
      if (!file) throw new PullwrightError('config_invalid', 'REPLAY_FILE is required when LLM_PROVIDER=replay');
      const transcript = loadReplayTranscript(file);
      return () => new ReplayProvider(transcript);
    }
    default:
      throw new PullwrightError('config_invalid', `LLM_PROVIDER=${config.llm.provider} is not available in this build`);
  }
}

/** Builds the shared objects of one process (API, worker or both) from the configuration. */
export function createRuntime(
  config: Config,
  logger: Logger,
  redactor = new Redactor({ secrets: configSecrets(config) }),
): Runtime {
  if (!config.redisUrl) throw new PullwrightError('config_invalid', 'REDIS_URL is required');
  // Commands fail fast when Redis is away (the API answers 503) instead of queueing forever.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3000, lazyConnect: false });
  redis.on('error', (err) => logger.warn({ err: redactor.redact(err.message) }, 'redis connection error'));
  const keys = new RedisKeys(config.redisPrefix);
  const scrub = <T>(v: T) => redactor.redactValue(v);
  const store = new OperationStore(redis, keys, scrub);
  const events = new OperationEvents(redis, keys, scrub);
  const queue = new CodeQueue(redis, config.redisPrefix);
  const webUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const localForge =
    config.forge === 'local'
      ? new LocalForge({ root: path.join(config.dataDir, 'forge'), redis, keyPrefix: config.redisPrefix, webUrl })
      : undefined;
  if (!localForge) throw new PullwrightError('config_invalid', 'FORGE=github is not available in this build');
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
    runner: new ProcessRunner(),
    redactor,
    logger,
    createProvider: createModelProviderFactory(config),
    transcriptsDir: path.join(config.dataDir, 'transcripts'),
    maxTurns: config.maxTurns,
    checkTimeoutMs: config.checkTimeoutMs,
    actions: new OperationActions(store, queue),
    async close() {
      await queue.close();
      redis.disconnect();
    },
  };
}
