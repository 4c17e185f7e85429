import { type Logger, PullwrightError, silentLogger } from '@pullwright/core';
import {
  describeOutboundFinding,
  type OutboundFinding,
  type Redactor,
  type SecretScanner,
  scanOutbound,
} from '@pullwright/security';
import type { KnownBlock, View } from '@slack/types';
import { LogLevel, type Logger as SlackLogger, WebAPIPlatformError, WebClient } from '@slack/web-api';

/** What every Slack message carries: `text` is the notification and screen-reader fallback. */
export interface SlackMessage {
  text: string;
  blocks?: KnownBlock[];
}

/** A message sent through a `response_url` (slash commands, button clicks). */
export interface SlackResponse extends SlackMessage {
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
}

export class SlackApiError extends PullwrightError<{ method: string; slackError: string }> {
  constructor(method: string, slackError: string, options?: { cause?: unknown }) {
    super('unavailable', `slack ${method} failed: ${slackError}`, { method, slackError }, options);
  }
}

interface SlackClientOptions {
  /** SLACK_BOT_TOKEN; without it only `respond` works (the response_url fallback). */
  botToken: string | undefined;
  /** SLACK_API_URL: a Slack-compatible Web API (tests, proxies). Default https://slack.com/api/. */
  apiUrl: string | undefined;
  redactor: Redactor;
  /** The outbound scan every message goes through before it leaves (rules, decoders, joining). */
  scanner: SecretScanner;
  logger?: Logger;
}

/** A response_url post that does not answer within this long is given up (Slack answers in well under 1 s). */
const RESPONSE_URL_TIMEOUT_MS = 5000;

function slackLogger(logger: Logger, redactor: Redactor): SlackLogger {
  const line = (msg: unknown[]) => redactor.redact(msg.map((m) => (typeof m === 'string' ? m : String(m))).join(' '));
  return {
    debug: (...msg) => logger.debug(line(msg)),
    info: (...msg) => logger.info(line(msg)),
    warn: (...msg) => logger.warn(line(msg)),
    error: (...msg) => logger.error(line(msg)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
}

/** Every string of a payload (text, Block Kit texts, fields, button values), one per line. */
function payloadText(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) payloadText(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) payloadText(v, out);
  return out;
}

/** What Slack shows instead of a message the outbound scan refused. */
function withheld(findings: OutboundFinding[]): SlackMessage {
  const rules = [...new Set(findings.map((f) => f.ruleId))].join(', ');
  const text = `:no_entry: Pullwright withheld this message: it would have shown a secret (${rules}). Nothing of it was sent; the operation's page has the details.`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/**
 * The only way Pullwright talks to Slack. Every outgoing payload goes through the outbound
 * scan here (a message holding a secret is replaced by a notice saying why, and logged with
 * rule and line), then the Redactor (the process's own secrets), so no caller can forget
 * either.
 */
export class SlackClient {
  readonly #web: WebClient | undefined;
  readonly #redactor: Redactor;
  readonly #scanner: SecretScanner;
  readonly #logger: Logger;

  constructor(options: SlackClientOptions) {
    this.#redactor = options.redactor;
    this.#scanner = options.scanner;
    this.#logger = options.logger ?? silentLogger();
    this.#web = options.botToken
      ? new WebClient(options.botToken, {
          ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
          logger: slackLogger(options.logger ?? silentLogger(), this.#redactor),
          logLevel: LogLevel.WARN,
          // The default (ten retries over half an hour) would stall every later update of the thread.
          retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2000 },
          timeout: 10_000,
        })
      : undefined;
  }

  get hasBot(): boolean {
    return this.#web !== undefined;
  }

  /**
   * The payload as it may leave: scanned as one text (every string in it); refused, its
   * `text` and `blocks` become a notice saying why. Then redacted.
   */
  #outbound<T extends object>(where: string, payload: T): T {
    const findings = scanOutbound(this.#scanner, {
      channel: 'slack',
      where,
      content: payloadText(payload).join('\n'),
    });
    if (findings.length === 0) return this.#redactor.redactValue(payload);
    this.#logger.warn(
      { where, findings: findings.map(describeOutboundFinding) },
      'slack message refused: it would have shown a secret',
    );
    return this.#redactor.redactValue({ ...payload, ...withheld(findings) });
  }

  async #call<T>(method: string, args: Record<string, unknown>): Promise<T> {
    if (!this.#web) throw new SlackApiError(method, 'no bot token configured');
    try {
      return (await this.#web.apiCall(method, this.#outbound(method, args))) as T;
    } catch (err) {
      if (err instanceof WebAPIPlatformError) throw new SlackApiError(method, String(err.data.error), { cause: err });
      throw new SlackApiError(method, this.#redactor.redact((err as Error).message), { cause: err });
    }
  }

  /** Posts to a channel (or into a thread with `threadTs`); returns the message ts. */
  async postMessage(channel: string, message: SlackMessage, threadTs?: string): Promise<string> {
    const res = await this.#call<{ ts?: string }>('chat.postMessage', {
      channel,
      ...message,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (!res.ts) throw new SlackApiError('chat.postMessage', 'no ts in the response');
    return res.ts;
  }

  async update(channel: string, ts: string, message: SlackMessage): Promise<void> {
    await this.#call('chat.update', { channel, ts, ...message });
  }

  async postEphemeral(channel: string, user: string, message: SlackMessage): Promise<void> {
    await this.#call('chat.postEphemeral', { channel, user, ...message });
  }

  /** Opens a modal for the person who clicked (`trigger_id` lives 3 s). */
  async openView(triggerId: string, view: View): Promise<void> {
    await this.#call('views.open', { trigger_id: triggerId, view });
  }

  /** The bot's own user id: its messages in a thread are not replies to pass to the model. */
  async identity(): Promise<{ userId: string; botId: string | undefined; team: string | undefined }> {
    const res = await this.#call<{ user_id?: string; bot_id?: string; team?: string }>('auth.test', {});
    return { userId: res.user_id ?? '', botId: res.bot_id, team: res.team };
  }

  /**
   * Posts through a `response_url`. The URL came in a request whose signature was checked,
   * so it is Slack's; it is itself a credential and never logged.
   */
  async respond(responseUrl: string, message: SlackResponse): Promise<void> {
    const res = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(this.#outbound('response_url', message)),
      redirect: 'error',
      signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
    }).catch((err: Error) => {
      throw new SlackApiError('response_url', this.#redactor.redact(err.message), { cause: err });
    });
    await res.body?.cancel();
    if (!res.ok) throw new SlackApiError('response_url', `HTTP ${res.status}`);
  }

  /** Scans and redacts a payload that leaves as an HTTP answer rather than through this client. */
  scrub<T extends object>(payload: T): T {
    return this.#outbound('http_answer', payload);
  }
}
