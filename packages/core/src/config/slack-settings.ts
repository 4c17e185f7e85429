import { z } from 'zod';
import { RepoSlug } from '../operation.ts';
import { type EnvIssue, envSection } from './env-section.ts';
import { text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

/** `U123,W456` → `['U123', 'W456']`; every entry that is not a Slack user id is reported. */
const slackUserIds = z.string().transform((raw, ctx) => {
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!/^[UW][A-Z0-9]{2,}$/.test(id))
      ctx.addIssue({ code: 'custom', message: `"${id}" is not a Slack user id (U…)` });
  }
  return ids;
});

/** `C123=acme/api,C456=acme/web` → `{ C123: 'acme/api', … }`; every bad pair is reported. */
const channelRepos = z.string().transform((raw, ctx) => {
  const out: Record<string, string> = {};
  for (const pair of raw.split(',').map((s) => s.trim())) {
    if (!pair) continue;
    const [channel = '', repo = ''] = pair.split('=').map((s) => s.trim());
    if (!/^[CGD][A-Z0-9]{2,}$/.test(channel) || !RepoSlug.safeParse(repo).success) {
      ctx.addIssue({ code: 'custom', message: `"${pair}" must be CHANNEL_ID=owner/name` });
      continue;
    }
    out[channel] = repo;
  }
  return out;
});

export const slackSettings = envSection(
  'Slack',
  {
    SLACK_SIGNING_SECRET: envVariable(text, {
      doc: "The Slack app's signing secret: verifies requests to `/slack/*` (HTTP mode).",
      readBy: READ_BY.api,
      secret: true,
    }),
    SLACK_BOT_TOKEN: envVariable(text, {
      doc: 'The bot token (`xoxb-…`): answers, progress messages and buttons.',
      readBy: READ_BY.api,
      secret: true,
    }),
    SLACK_APP_TOKEN: envVariable(
      text.refine((v) => v.startsWith('xapp-'), 'must be an app-level token (xapp-…)'),
      {
        doc: "An app-level token (`xapp-…`, scope connections:write): Slack's requests arrive over a Socket Mode WebSocket the API opens, so no public URL is needed.",
        defaultDoc: 'HTTP endpoints',
        readBy: READ_BY.api,
        secret: true,
      },
    ),
    SLACK_API_URL: envVariable(url, {
      doc: "Another address for Slack's Web API (a proxy, or a test server).",
      readBy: READ_BY.api,
    }),
    SLACK_CHANNEL_REPOS: envVariable(channelRepos, {
      doc: 'The repository of Slack commands that name none, per channel: `C123=acme/api,C456=acme/web`.',
      readBy: READ_BY.api,
    }),
    SLACK_APPROVERS: envVariable(slackUserIds, {
      doc: 'Slack user ids who may press Approve / Reject: `U123,U456`. Without IDENTITIES only they approve from Slack (unset: nobody). With IDENTITIES, unset lets the roles decide alone; set, a person needs both the list and the role.',
      readBy: READ_BY.api,
    }),
  },
  (env) => ({
    slack: {
      signingSecret: env.SLACK_SIGNING_SECRET,
      botToken: env.SLACK_BOT_TOKEN,
      /** Socket Mode when set. */
      appToken: env.SLACK_APP_TOKEN,
      apiUrl: env.SLACK_API_URL,
      channelRepos: env.SLACK_CHANNEL_REPOS ?? {},
      approvers: env.SLACK_APPROVERS ?? [],
    },
  }),
  {
    warnings: ({ slack }, role) => {
      if (role === 'worker') return [];
      const issues: EnvIssue[] = [];
      const inbound = slack.signingSecret || slack.appToken;
      if (slack.botToken && !inbound) {
        issues.push({
          variable: 'SLACK_SIGNING_SECRET',
          reason:
            "unset beside SLACK_BOT_TOKEN: Slack's commands cannot reach Pullwright. Fix: set SLACK_SIGNING_SECRET (HTTP endpoints) or SLACK_APP_TOKEN (Socket Mode)",
        });
      }
      if (inbound && !slack.botToken) {
        issues.push({
          variable: 'SLACK_BOT_TOKEN',
          reason: `unset beside ${slack.appToken ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET'}: Pullwright cannot answer in Slack. Fix: set the bot token (xoxb-…) from the app's OAuth page`,
        });
      }
      return issues;
    },
  },
);
