import path from 'node:path';
import {
  createModelProvider,
  DEFAULT_RETRY_POLICY,
  loadReplayTranscript,
  type ModelProvider,
  priceTableWith,
  ReplayProvider,
} from '@pullwright/agent';
import {
  type Config,
  internalApiUrl,
  type Logger,
  type Operation,
  type ProcessRole,
  PullwrightError,
  readGitHubPrivateKey,
} from '@pullwright/core';
import {
  BrokeredInstallationTokens,
  type Forge,
  GitHubForge,
  GitHubInstallationTokens,
  LocalForge,
  type PermissionGap,
  scannedForge,
  tracedForge,
} from '@pullwright/forge';
import { BranchRegistry, FileLocks, LockWaiter, MergeLock } from '@pullwright/locks';
import { IdentityDirectory, loadServicePolicy } from '@pullwright/policy';
import {
  CodeQueue,
  ConversationCheckpoints,
  connectRedis,
  createRedisClient,
  DailySpend,
  EventSourceLog,
  FeatureRequestStore,
  OperationEvents,
  OperationInbox,
  OperationStore,
  RedisArtifactStore,
  type RedisClient,
  RedisKeys,
  ScheduleRegistry,
} from '@pullwright/queue';
import { type CommandRunner, createCommandRunner, NoCommandRunner } from '@pullwright/sandbox';
import { DEFAULT_RULES, jobCredential, loadGitleaksConfigFile, Redactor, SecretScanner } from '@pullwright/security';
import { DependencyCache, WorkspaceManager } from '@pullwright/workspace';
import { CredentialBroker } from './broker/credential-broker.ts';
import { GatewayMeter } from './broker/gateway-meter.ts';
import { ModelGateway } from './broker/model-gateway.ts';
import { BaselineChecks } from './checks/baseline-checks.ts';
import { CheckResultCache } from './checks/repo-checks.ts';
import { Deployer } from './deploy/deploy-operation.ts';
import type { ModelSubject, PipelineDeps } from './frame/pipeline-deps.ts';
import { ApprovalPolicy } from './intake/approval-policy.ts';
import { DEMO_REFUSAL, DEMO_REVISION_REFUSAL, isDemoRequest } from './intake/demo-mode.ts';
import { FeatureRequests } from './intake/feature-requests.ts';
import { InboundEvents } from './intake/inbound-events.ts';
import { OperationActions } from './intake/operation-actions.ts';
import { ScheduledWork } from './intake/scheduled-work.ts';

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
  /** GitHub App installations that lack an optional permission, and what is off there (none on the local forge). */
  permissionGaps(): Promise<PermissionGap[]>;
  /** The repositories' `schedules:` (synced and ticked by the API processes). */
  scheduledWork: ScheduledWork;
  schedules: ScheduleRegistry;
  /** `POST /v1/events/<source>` from the sources EVENT_SOURCES configures. */
  inboundEvents: InboundEvents;
  /**
   * What the API serves workers at `/internal/v1/*` (WORKER_TOKEN set, not on a worker): the
   * credential broker (with the GitHub App key) and the model gateway (with the model keys).
   */
  internal: InternalServices | undefined;
  close(): Promise<void>;
}

export interface InternalServices {
  workerToken: string;
  /** Undefined on the local forge: there is no token to mint. */
  broker: CredentialBroker | undefined;
  gateway: ModelGateway;
  meter: GatewayMeter;
}

/**
 * How a worker with WORKER_TOKEN reaches the API (INTERNAL_API_URL, default PUBLIC_URL);
 * undefined for the API, the all-in-one, and a worker without it (which uses its own keys).
 */
function brokeredBy(config: Config, role: ProcessRole | undefined): { url: string; workerToken: string } | undefined {
  const workerToken = config.internalApi.workerToken;
  return role === 'worker' && workerToken ? { url: internalApiUrl(config), workerToken } : undefined;
}

/**
 * One provider per operation: the replay provider keeps its place in the transcript, and a
 * real provider's per-conversation state (Anthropic's thinking-turn memory) stays with it.
 */
export function createModelProviderFactory(
  config: Config,
  logger: Logger,
  demo = false,
  gateway?: { url: string; workerToken: string; redactor: Redactor },
): (op: ModelSubject) => ModelProvider {
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
  const llmFor = (op: Partial<Pick<Operation, 'eval'>>) =>
    op.eval?.model ? { ...config.llm, model: op.eval.model } : config.llm;
  if (!gateway) return (op) => createModelProvider(llmFor(op), replayUnavailable, logger);
  // A worker that holds no model key: the same SDKs, pointed at the API's gateway, with a
  // credential for this one subject as their key (the gateway holds the real one).
  const base = `${gateway.url}/internal/v1/model`;
  return (op) => {
    const credential = jobCredential(gateway.workerToken, op.id);
    gateway.redactor.addSecret(credential);
    return createModelProvider(
      {
        ...llmFor(op),
        anthropicApiKey: credential,
        anthropicBaseUrl: `${base}/anthropic`,
        openaiApiKey: credential,
        openaiBaseUrl: `${base}/openai`,
      },
      replayUnavailable,
      logger,
    );
  };
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
    // `auto` falls back to docker when bubblewrap cannot start (README, SANDBOX's doc).
    ...(config.sandbox.kind === 'docker' || config.sandbox.kind === 'auto'
      ? { docker: { image: config.sandbox.dockerImage } }
      : {}),
  });
}

/**
 * The GitHub App forge; the key and every token it mints are fed to the Redactor first. A
 * worker with WORKER_TOKEN holds no key: its tokens come from the API's credential broker.
 */
function createGitHubForge(
  config: Config,
  logger: Logger,
  redactor: Redactor,
  brokered: { url: string; workerToken: string } | undefined,
): GitHubForge {
  const settings = {
    url: config.github.url,
    draft: config.github.draftPullRequests,
    logger: logger.child({ forge: 'github' }),
    onSecret: (value: string) => redactor.addSecret(value),
  };
  if (brokered) {
    const tokens = new BrokeredInstallationTokens({
      internalApiUrl: brokered.url,
      workerToken: brokered.workerToken,
      onToken: settings.onSecret,
      logger: settings.logger,
    });
    return new GitHubForge({ ...settings, tokens });
  }
  const { appId, privateKey } = config.github;
  if (!appId || !privateKey)
    throw new PullwrightError('config_invalid', 'FORGE=github needs GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY');
  return new GitHubForge({ ...settings, appId, privateKey: readGitHubPrivateKey(privateKey) });
}

/**
 * The service's own ports, refused to every install whatever address its host resolves to:
 * the API (PORT), the worker's health port and Redis. (A postinstall script once wrote into
 * the worker's Redis, which has no password under `npm start`.)
 */
function servicePorts(config: Config): number[] {
  const redis = config.redisUrl ? [Number(new URL(config.redisUrl).port || 6379)] : [];
  return [config.port, config.workerPort, ...redis, ...config.redisClusterNodes.map((n) => n.port)];
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
  const brokered = brokeredBy(config, options.role);
  // Before any connection is opened, so a bad provider or sandbox setting leaks nothing.
  const createProvider = runsOperations
    ? createModelProviderFactory(config, logger, demo, brokered && { ...brokered, redactor })
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
  const githubForge = config.forge === 'github' ? createGitHubForge(config, logger, redactor, brokered) : undefined;
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
  const schedules = new ScheduleRegistry(redis, keys);
  const prices = priceTableWith(config.llm.prices);
  const workerToken = config.internalApi.workerToken;
  let internal: InternalServices | undefined;
  if (workerToken && options.role !== 'worker') {
    const meter = new GatewayMeter(redis, keys, config.retentionS);
    internal = {
      workerToken,
      broker: githubForge ? new CredentialBroker(store, githubForge.mintedTokens) : undefined,
      meter,
      gateway: new ModelGateway({
        store,
        features,
        meter,
        llm: config.llm,
        prices,
        budget: config.budget,
        workerToken,
        timeoutMs: DEFAULT_RETRY_POLICY.timeoutMs,
        logger: logger.child({ component: 'model-gateway' }),
      }),
    };
  }
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
    // A worker whose tokens come from the broker holds no App key: the API's readiness lists the gaps.
    permissionGaps: async () =>
      githubForge?.tokens instanceof GitHubInstallationTokens ? githubForge.tokens.permissionGaps() : [],
    workspace: new WorkspaceManager(config.workspaceDir, logger),
    dependencies: new DependencyCache(path.join(config.workspaceDir, 'deps')),
    runner,
    egress: { trusted: config.networkAllow, servicePorts: servicePorts(config) },
    redactor,
    scanner,
    logger,
    createProvider,
    artifacts: new RedisArtifactStore(redis, keys),
    budget: config.budget,
    dailySpend: new DailySpend(redis, keys),
    prices,
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
    internal,
    features,
    featureRequests: new FeatureRequests({ features, operations: store, queue, actions }),
    approvalPolicy,
    deployer,
    verificationKey: config.verificationKey,
    publicUrl: config.publicUrl,
    locks,
    schedules,
    scheduledWork: new ScheduledWork({
      forge,
      registry: schedules,
      actions,
      minIntervalMs: config.schedules.minIntervalMs,
      logger,
    }),
    inboundEvents: new InboundEvents(config.events.sources, actions, new EventSourceLog(redis, keys)),
    async close() {
      await githubForge?.close();
      await queue.close();
      await schedules.close();
      // Its subscriber connection exists once a lock was waited for, and would keep the process alive.
      await lockWaiter.close();
      redis.disconnect();
    },
  };
}
