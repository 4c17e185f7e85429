import type { Runtime } from '@pullwright/pipeline';
import {
  SlackClient,
  SlackCommandHandler,
  type SlackDeps,
  SlackEventHandler,
  SlackInteractionHandler,
  SlackKeys,
  SlackMessages,
  SlackNotifier,
  type SlackNotifierOptions,
  SlackSessions,
  slackApprovers,
} from '@pullwright/slack';

export type SlackRuntime = Pick<
  Runtime,
  | 'store'
  | 'events'
  | 'inbox'
  | 'queue'
  | 'forge'
  | 'actions'
  | 'featureRequests'
  | 'redis'
  | 'keys'
  | 'config'
  | 'logger'
  | 'scanner'
  | 'redactor'
>;

export interface SlackServices {
  /** Set: Slack's HTTP requests are accepted (signed with it) at /slack/*. */
  signingSecret: string | undefined;
  /** Set: Slack's requests arrive over a Socket Mode connection instead (or as well). */
  appToken: string | undefined;
  deps: SlackDeps;
  commands: SlackCommandHandler;
  interactions: SlackInteractionHandler;
  events: SlackEventHandler;
  /** A notifier for this process; the caller starts and closes it. */
  createNotifier(options?: SlackNotifierOptions): SlackNotifier;
}

/**
 * The Slack side of a process, or undefined when neither SLACK_SIGNING_SECRET (HTTP) nor
 * SLACK_APP_TOKEN (Socket Mode) is set (Slack is off).
 */
export function createSlackServices(rt: SlackRuntime): SlackServices | undefined {
  const { slack } = rt.config;
  if (!slack.signingSecret && !slack.appToken) return undefined;
  const slackKeys = new SlackKeys(rt.config.redisPrefix);
  const deps: SlackDeps = {
    store: rt.store,
    events: rt.events,
    inbox: rt.inbox,
    queue: rt.queue,
    actions: rt.actions,
    featureRequests: rt.featureRequests,
    sessions: new SlackSessions(rt.redis, slackKeys),
    client: new SlackClient({
      botToken: slack.botToken,
      apiUrl: slack.apiUrl,
      redactor: rt.redactor,
      scanner: rt.scanner,
      logger: rt.logger.child({ component: 'slack' }),
    }),
    messages: new SlackMessages(rt.config.publicUrl),
    repositoryExists: (repo) => rt.forge.repositoryExists(repo),
    settings: {
      defaultRepo: rt.config.defaultRepo,
      channelRepos: slack.channelRepos,
      approvers: slackApprovers(slack.approvers, rt.config.identities !== undefined),
    },
    logger: rt.logger.child({ component: 'slack' }),
  };
  return {
    signingSecret: slack.signingSecret,
    appToken: slack.appToken,
    deps,
    commands: new SlackCommandHandler(deps),
    interactions: new SlackInteractionHandler(deps),
    events: new SlackEventHandler(deps),
    createNotifier: (options) =>
      new SlackNotifier({ ...deps, redis: rt.redis, queueKeys: rt.keys, slackKeys }, options),
  };
}
