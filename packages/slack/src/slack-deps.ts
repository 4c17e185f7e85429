import type { Budget, FeatureRequest, Logger, Operation } from '@pullwright/core';
import type { CodeQueue, NewFeatureRequest, OperationEvents, OperationInbox, OperationStore } from '@pullwright/queue';
import type { SlackClient } from './slack-client.ts';
import type { SlackMessages } from './slack-messages.ts';
import type { SlackSessions } from './slack-sessions.ts';

type By = { user: string; source: 'slack' };

/** The approve / reject / cancel rules every entry point shares (pipeline's OperationActions fits). */
export interface SlackActions {
  approve(id: string, by: By, headSha?: string): Promise<Operation>;
  reject(id: string, by: By, reason?: string): Promise<Operation>;
  cancel(id: string, by: By): Promise<Operation>;
  /** Throws a typed refusal naming the missing role when `by` may not do `action`. */
  authorize(id: string | undefined, by: By, action: 'request' | 'revise'): Promise<void>;
  /** Throws a typed refusal when a request's own budget is above the caps `by` may set. */
  authorizeBudget(by: By, budget: Budget): void;
  /** Words asking for changes to an open PR: a ledger entry and a revise job (`permissions.revise`). */
  requestChanges(id: string, by: By, instruction: string, requestId: string, ref?: number): Promise<unknown>;
  /** Starts the deploy of a merged operation (the deploy role); it runs in the background. */
  deploy(id: string, by: By): Promise<Operation>;
}

/** `/feature`: captures a request and queues its analysis (pipeline's FeatureRequests fits). */
export interface SlackFeatureRequests {
  capture(input: NewFeatureRequest, by: By, idempotencyKey?: string): Promise<FeatureRequest>;
}

export interface SlackSettings {
  defaultRepo: string | undefined;
  /** Channel id → repository, for commands that name none. */
  channelRepos: Readonly<Record<string, string>>;
  /** Slack user ids that may approve, or `'roles'` when IDENTITIES decides alone (see `slackApprovers`). */
  approvers: readonly string[] | 'roles';
}

/** What the Slack handlers and the notifier work with; built once per process. */
export interface SlackDeps {
  store: OperationStore;
  events: OperationEvents;
  inbox: OperationInbox;
  queue: CodeQueue;
  actions: SlackActions;
  featureRequests: SlackFeatureRequests;
  sessions: SlackSessions;
  client: SlackClient;
  messages: SlackMessages;
  /** The forge's answer: commands naming an unknown repository are refused before anything is queued. */
  repositoryExists(repo: string): Promise<boolean>;
  settings: SlackSettings;
  logger: Logger;
}
