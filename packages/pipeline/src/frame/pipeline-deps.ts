import type { ModelProvider, PriceTable } from '@pullwright/agent';
import type { Logger, Operation } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import type { BranchRegistry, FileLocks, MergeLock } from '@pullwright/locks';
import type {
  ArtifactStore,
  CodeQueue,
  ConversationCheckpoints,
  DailySpend,
  FeatureRequestStore,
  OperationEvents,
  OperationInbox,
  OperationStore,
} from '@pullwright/queue';
import type { CommandRunner, DeploymentEgress } from '@pullwright/sandbox';
import type { Redactor, SecretScanner } from '@pullwright/security';
import type { DependencyCache, WorkspaceManager } from '@pullwright/workspace';
import type { BaselineChecks } from '../checks/baseline-checks.ts';
import type { CheckResultCache } from '../checks/repo-checks.ts';
import type { Deployer } from '../deploy/deploy-operation.ts';
import type { ApprovalPolicy } from '../intake/approval-policy.ts';

/** What a model is asked about: an operation (an evaluation attempt names its model), or a feature request being analysed. */
/** What a model answers: the operation, and whether it is a revision of the operation's pull request. */
export type ModelSubject = Pick<Operation, 'id' | 'repo' | 'description'> &
  Partial<Pick<Operation, 'eval'>> & { revision?: boolean };

/** Everything a pipeline step needs, built once per process by `createRuntime`. */
export interface PipelineDeps {
  store: OperationStore;
  events: OperationEvents;
  inbox: OperationInbox;
  queue: CodeQueue;
  workspace: WorkspaceManager;
  /** Installed dependency trees of this host, by lock file (see DependencyCache). */
  dependencies: DependencyCache;
  forge: Forge;
  runner: CommandRunner;
  /** What every install's egress proxy adds to a repository's hosts: NETWORK_ALLOW, and the service's ports it refuses. */
  egress: DeploymentEgress;
  redactor: Redactor;
  scanner: SecretScanner;
  logger: Logger;
  /**
   * A fresh provider per operation or feature-request analysis (the replay provider keeps its
   * place in the transcript).
   */
  createProvider: (subject: ModelSubject) => ModelProvider;
  /** Feature requests (seed 001): analysed by a worker job, released when their operation merges. */
  features: FeatureRequestStore;
  /** Transcripts and kept diffs: shared storage any API replica reads (Redis by default). */
  artifacts: ArtifactStore;
  budget: { turns: number; tokens: number; wallMs: number; costUsd: number };
  /** Model spend per UTC day, per repository and overall: the policy's daily caps read it. */
  dailySpend: DailySpend;
  /** Model prices: the built-in table with LLM_PRICES on top (an unpriced model cannot be held to a cost cap). */
  prices: PriceTable;
  maxRepairs: number;
  editMode: 'tools' | 'text';
  repoMapTokens: number;
  /** FILE_OPS_PER_MINUTE: file tool calls one job may make per minute (seed 001: 100). */
  fileOpsPerMinute: number;
  /** CHECK_TIMEOUT_MS: the ceiling of every check's timeout (a check's own default is 60 or 180 s). */
  checkTimeoutMs: number;
  /** How long a plan waits for Start / Modify (PLAN_CONFIRMATION_TIMEOUT_MS; 1 h when unset). */
  planConfirmationTimeoutMs?: number;
  /** FORGE_RETRY_MS: how long publishing retries a forge that does not answer (see withForgeRetries). */
  forgeRetryMs: number;
  baselines: BaselineChecks;
  /** Check results by tree, kept by this worker across jobs (see CheckResultCache). */
  checkResults: CheckResultCache;
  /** Each solve's conversation, turn by turn: a job retried after a transient error continues it instead of paying for it again. */
  conversations: ConversationCheckpoints;
  fileLocks: FileLocks;
  mergeLock: MergeLock;
  branches: BranchRegistry;
  approvalPolicy: ApprovalPolicy;
  deployer: Deployer;
  /** Signs the verification block in PR bodies (config VERIFICATION_KEY); no block without one. */
  verificationKey?: string | undefined;
  /** PUBLIC_URL: where people open the dashboard (links in the tracking comment); none without it. */
  publicUrl?: string | undefined;
}
