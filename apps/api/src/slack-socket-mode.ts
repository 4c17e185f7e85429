import type { Logger } from '@pullwright/core';
import { LogLevel, type Logger as SlackLogger, SocketModeClient } from '@slack/socket-mode';
import { SlackInbound } from './slack-inbound.ts';
import type { SlackServices } from './slack-services.ts';

export interface SlackSocketMode {
  /** Resolves once Slack said hello on the first connection. */
  connected: Promise<void>;
  close(): Promise<void>;
}

/** `@slack/logger`'s interface over our pino logger (redaction included). */
function slackLogger(logger: Logger): SlackLogger {
  const text = (msg: unknown[]) => msg.map(String).join(' ');
  let level = LogLevel.INFO;
  return {
    debug: (...msg) => logger.debug(text(msg)),
    info: (...msg) => logger.info(text(msg)),
    warn: (...msg) => logger.warn(text(msg)),
    error: (...msg) => logger.error(text(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * Socket Mode: the API opens a WebSocket to Slack with the app-level token and takes the
 * same commands, button clicks and thread events it takes over HTTP, through the same
 * handlers (`SlackInbound`); each envelope is acknowledged with what the HTTP route would
 * have answered. No public URL is needed. The library reconnects when Slack recycles the
 * connection (it does, every few hours).
 */
export function startSlackSocketMode(
  slack: SlackServices,
  appToken: string,
  apiUrl: string | undefined,
): SlackSocketMode {
  const logger = slack.deps.logger.child({ transport: 'socket_mode' });
  const inbound = new SlackInbound(slack);
  const client = new SocketModeClient({
    appToken,
    logger: slackLogger(logger),
    logLevel: LogLevel.INFO,
    ...(apiUrl ? { clientOptions: { slackApiUrl: apiUrl } } : {}),
  });
  client.on(
    'slack_event',
    async ({ ack, type, body }: { ack: (r?: object) => Promise<void>; type: string; body: unknown }) => {
      try {
        if (type === 'slash_commands') return await ack(await inbound.command(body));
        if (type === 'interactive') return await ack(await inbound.interaction(body));
        if (type === 'events_api') await inbound.event(body);
        await ack();
      } catch (err) {
        // A bad envelope is still acknowledged: Slack would otherwise deliver it again.
        logger.warn({ type, reason: (err as Error).message }, 'slack envelope refused');
        await ack().catch(() => undefined);
      }
    },
  );
  const connected = client.start().then(() => {
    logger.info('slack socket mode connected');
  });
  connected.catch((err: unknown) => logger.error({ err }, 'slack socket mode could not connect'));
  return {
    connected,
    close: async () => {
      await client.disconnect().catch(() => undefined);
    },
  };
}
