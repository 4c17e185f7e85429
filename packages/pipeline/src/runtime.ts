import path from 'node:path';
import {
  createModelProvider,
  loadReplayTranscript,
  type ModelProvider,
  priceTableWith,
  ReplayProvider,
} from '@pullwright/agent';
import { type Config, type Logger, type ProcessRole, PullwrightError, readGitHubPrivateKey } from '@pullwright/core';
import { type Forge, GitHubForge, LocalForge, scannedForge, tracedForge } from '@pullwright/forge';
import { BranchRegistry, FileLocks, LockWaiter, MergeLock } from '@pullwright/locks';
import { IdentityDirectory, loadServicePolicy } from '@pullwright/policy';
import {
  CodeQueue,
  ConversationCheckpoints,
  connectRedis,
  createRedisClient,
  FeatureRequestStore,
  OperationEvents,
  OperationInbox,
  OperationStore,
  RedisArtifactStore,
  type RedisClient,
  RedisKeys,
} from '@pullwright/queue';
import { type CommandRunner, createCommandRunner, NoCommandRunner } from '@pullwright/sandbox';
import { DEFAULT_RULES, loadGitleaksConfigFile, Redactor, SecretScanner } from '@pullwright/security';
import { DependencyCache, WorkspaceManager } from '@pullwright/workspace';
import { ApprovalPolicy } from './approval-policy.ts';
import { BaselineChecks } from './baseline-checks.ts';
import { DEMO_REFUSAL, DEMO_REVISION_REFUSAL, isDemoRequest } from './demo-mode.ts';
import { Deployer } from './deploy-operation.ts';
import { FeatureRequests } from './feature-requests.ts';
import { OperationActions } from './operation-actions.ts';
import type { ModelSubject, PipelineDeps } from './pipeline-deps.ts';
import { CheckResultCache } from './repo-checks.ts';

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
  redis: RedisClient;
  keys: RedisKeys;
  localForge: LocalForge | undefined;
  actions: OperationActions;
  /** Capture, triage and "Implement" of feature requests, for every entry point. */
  featureRequests: FeatureRequests;
  /** Identities, roles and the approval rules (POLICY_FILE, IDENTITIES); the pipeline calls `atClaim` and `afterPullRequest`. */
  approvalPolicy: ApprovalPolicy;
  /** The merge job calls `deployAfterMerge` once an operation is merged. */
  deployer: Deployer;
  locks: RuntimeLocks;
  /** Demo mode (no model configured): only the seeded demo operation runs; see DEMO_REFUSAL. */
  demo: boolean;
  close(): Promise<void>;
}

/**
 * One provider per operation: the replay provider keeps its place in the transcript, and a
 * real provider's per-conversation state (Anthropic's thinking-turn memory) stays with it.
 */
export function createModelProviderFactory(
  config: Config,
  logger: Logger,
  demo = false,
): (op: Omit<ModelSubject, 'id'>) => ModelProvider {
  if (config.llm.provider === 'replay') {
    const file = config.llm.replayFile;
    if (!file) throw new PullwrightError('config_invalid', 'REPLAY_FILE is required when LLM_PROVIDER=replay');
    const transcript = loadReplayTranscript(file);
    return (op) => {
      // The demo recording answers the demo request's run only: a different request, or a
      // revision of the demo's PR, gets the reason, not the recording's answer to another question.
      if (demo && !isDemoRequest(op)) throw new PullwrightError('config_invalid', DEMO_REFUSAL);
      if (demo && op.revision) throw new PullwrightError('config_invalid', DEMO_REVISION_REFUSAL);
      return new ReplayProvider(transcript);
    };
  }
  const replayUnavailable = (): ModelProvider => {
    throw new PullwrightError('config_invalid', 'replay is not configured');
  };
  // An evaluation attempt is answered by the model its run asked for, whichever worker takes it.
  return (op) =>
    createModelProvider(
      op.eval?.model ? { ...config.llm, model: op.eval.model } : config.llm,
      replayUnavailable,
      logger,
    );
}

/**
/**
 * The sandbox for repository commands (fails closed: see createCommandRunner). Hidden from
 * it even where it sits inside something the sandbox shows: the data and workspace
 * directories (other worktrees), the local forge's repositories (another repository's
 * history must not be writable by this one's tests) and the secret files (`*_FILE`, a key
 * given as a path).
 */
export function createSandbox(config: Config, logger: Logger): Promise<CommandRunner> {
  const key = config.github.privateKey;
  const keyFile = key && !key.includes('-----BEGIN') ? [key] : [];
  const hide = [config.dataDir, config.workspaceDir, config.forgeDir, ...config.secretFiles, ...keyFile];
  return createCommandRunner({
    logger,
    sandbox: config.sandbox.kind,
    bubblewrap: { hide },
    ...(config.sandbox.kind === 'docker' ? { docker: { image: config.sandbox.dockerImage } } : {}),
  });
}

/** The GitHub App forge; the key and every token it mints are fed to the Redactor first. */
function createGitHubForge(config: Config, logger: Logger, redactor: Redactor): GitHubForge {
  const { appId, privateKey } = config.github;
  if (!appId || !privateKey)
    throw new PullwrightError('config_invalid', 'FORGE=github needs GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY');
  return new GitHubForge({
    url: config.github.url,
    appId,
    privateKey: readGitHubPrivateKey(privateKey),
    draft: config.github.draftPullRequests,
    logger: logger.child({ forge: 'github' }),
    onSecret: (value) => redactor.addSecret(value),
  });
}

/** What the API process gets instead of a model and a sandbox: it runs no operation. */
function notInThisProcess(what: string): never {
  throw new PullwrightError('unavailable', `the api process runs no ${what}; a worker does`);
}

/**
 * Builds the shared objects of one process from the configuration. `role: 'api'` builds no
 * model provider and no sandbox: the API never runs an operation, so it needs neither a
 * model key nor bubblewrap. Redis is connected before this returns; an unreachable Redis
 * is a start-up error naming the variable and the address.
 */
export async function createRuntime(
  config: Config,
  logger: Logger,
  redactor = new Redactor({ secrets: config.secrets }),
  options: { role?: ProcessRole; demo?: boolean } = {},
): Promise<Runtime> {
  const runsOperations = options.role !== 'api';
  const demo = options.demo ?? false;
  // Before any connection is opened, so a bad provider or sandbox setting leaks nothing.
  const createProvider = runsOperations
    ? createModelProviderFactory(config, logger, demo)
    : () => notInThisProcess('model');
  // The API runs no repository code: it starts without a sandbox on hosts that have none.
  const runner = runsOperations ? await createSandbox(config, logger) : new NoCommandRunner();
  const service = loadServicePolicy(config.policyFile);
  const identities = IdentityDirectory.fromConfig(config.identities);
  const scanner = new SecretScanner({
    rules: config.secretRulesFile
      ? loadGitleaksConfigFile(config.secretRulesFile, { defaults: DEFAULT_RULES })
      : DEFAULT_RULES,
  });
  const githubForge = config.forge === 'github' ? createGitHubForge(config, logger, redactor) : undefined;
  // Errors are logged only once connected: a failure at boot is reported once, by connectRedis.
  let connected = false;
  const redis = createRedisClient(config, {
    onError: (err) => {
      if (connected) logger.warn({ err: redactor.redact(err.message) }, 'redis connection error');
    },
  });
  await connectRedis(redis, config);
  connected = true;
  const keys = new RedisKeys(config.redisPrefix);
  const scrub = <T>(v: T) => redactor.redactValue(v);
  const store = new OperationStore(redis, keys, scrub, config.retentionS);
  const events = new OperationEvents(redis, keys, scrub);
  const queue = new CodeQueue(redis, config.redisPrefix);
  // One subscriber connection wakes both lock kinds' waiters.
  const lockPrefix = `${config.redisPrefix}:locks`;
  const lockWaiter = new LockWaiter(redis, { logger });
  const fileLocks = new FileLocks(redis, { prefix: lockPrefix, waiter: lockWaiter, logger });
  const mergeLock = new MergeLock(redis, { prefix: lockPrefix, waiter: lockWaiter, logger });
  const branches = new BranchRegistry(redis, { prefix: lockPrefix });
  const locks: RuntimeLocks = { files: fileLocks, merge: mergeLock, branches, prefix: lockPrefix };
  // PUBLIC_URL: a worker writes the pull request's link, and the API serves the page there.
  const localForge = githubForge
    ? undefined
    : new LocalForge({ root: config.forgeDir, redis, keyPrefix: config.redisPrefix, webUrl: config.publicUrl });
  // Every text written to the forge passes the outbound secret scan; every forge call an
  // operation makes gets a trace span (no-op without OTEL_EXPORTER_OTLP_ENDPOINT).
  const forge: Forge = tracedForge(
    scannedForge(githubForge ?? localForge!, scanner, logger.child({ forge: 'outbound' })),
  );
  const approvalPolicy = new ApprovalPolicy(
    { store, events, queue, forge, logger, budget: config.budget },
    service,
    identities,
  );
  const deployer = new Deployer({
    store,
    events,
    logger,
    redactor,
    policyOf: (op) => approvalPolicy.policyOf(op),
    webhookSecret: config.deployWebhookSecret,
    enqueue: (job) => queue.add('deploy', job),
  });
  const features = new FeatureRequestStore(redis, keys, scrub);
  const actions = new OperationActions(store, queue, approvalPolicy, deployer, demo);
  return {
    config,
    redis,
    keys,
    store,
    events,
    inbox: new OperationInbox(redis, keys),
    queue,
    forge,
    localForge,
    workspace: new WorkspaceManager(config.workspaceDir, logger),
    dependencies: new DependencyCache(path.join(config.workspaceDir, 'deps')),
    runner,
    redactor,
    scanner,
    logger,
    createProvider,
    artifacts: new RedisArtifactStore(redis, keys),
    budget: config.budget,
    prices: priceTableWith(config.llm.prices),
    maxRepairs: config.maxRepairs,
    editMode: config.llm.editMode,
    repoMapTokens: config.repoMapTokens,
    fileOpsPerMinute: config.fileOpsPerMinute,
    baselines: new BaselineChecks(redis, config.redisPrefix),
    checkResults: new CheckResultCache(),
    conversations: new ConversationCheckpoints(redis, keys, { scrub, logger }),
    fileLocks,
    mergeLock,
    branches,
    checkTimeoutMs: config.checkTimeoutMs,
    planConfirmationTimeoutMs: config.planConfirmationTimeoutMs,
    forgeRetryMs: config.forgeRetryMs,
    actions,
    demo,
    features,
    featureRequests: new FeatureRequests({ features, operations: store, queue, actions }),
    approvalPolicy,
    deployer,
    verificationKey: config.verificationKey,
    publicUrl: config.publicUrl,
    locks,
    async close() {
      await githubForge?.close();
      await queue.close();
      // Its subscriber connection exists once a lock was waited for, and would keep the process alive.
      await lockWaiter.close();
      redis.disconnect();
    },
  };
}
