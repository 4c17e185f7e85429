import { z } from 'zod';
import { RepoSlug } from '../operation.ts';
import { envSection } from './env-section.ts';
import { commaList, positiveInt } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

const DASHBOARD_USER = /^[A-Za-z0-9._-]{1,64}$/;

interface DashboardUser {
  user: string;
  token: string;
}

/** `alice:token1,bob:token2` → users; problems name the user, never the token. */
const dashboardUsers = z.string().transform((raw, ctx) => {
  const users: DashboardUser[] = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      return colon < 0 ? { user: entry, token: '' } : { user: entry.slice(0, colon), token: entry.slice(colon + 1) };
    });
  const seen = new Set<string>();
  for (const [i, { user, token }] of users.entries()) {
    const who = DASHBOARD_USER.test(user) ? user : `entry ${i + 1}`;
    const problem = (message: string) => ctx.addIssue({ code: 'custom', message: `${who}: ${message}` });
    if (!DASHBOARD_USER.test(user)) problem('user must be 1-64 of A-Z a-z 0-9 . _ -');
    if (token.length < 16) problem('token must be at least 16 characters (user:token)');
    if (seen.has(user)) problem('listed twice');
    seen.add(user);
  }
  return users;
});

export const dashboardSettings = envSection(
  'Requests and the dashboard',
  {
    DEFAULT_REPO: envVariable(RepoSlug, {
      doc: 'The repository (`owner/name`) of a request that names none.',
      readBy: READ_BY.api,
    }),
    DASHBOARD_USERS: envVariable(dashboardUsers, {
      doc: 'Dashboard people and their sign-in tokens: `alice:token1,bob:token2` (tokens of 16+ characters).',
      defaultDoc: 'only API_TOKEN signs in (as `operator`)',
      readBy: READ_BY.api,
      secret: { parts: (users) => (users ?? []).map((u) => u.token) },
    }),
    DASHBOARD_APPROVERS: envVariable(commaList, {
      doc: "Dashboard users who may approve or reject: `alice,carol`. The API token's `operator` always may (it can approve through REST anyway).",
      defaultDoc: 'every signed-in user',
      readBy: READ_BY.api,
    }),
    DASHBOARD_SESSION_TTL_S: envVariable(positiveInt, {
      doc: 'How long a dashboard sign-in lasts, in seconds: 12 h, one working day.',
      default: '43200',
      readBy: READ_BY.api,
    }),
  },
  (env) => ({
    defaultRepo: env.DEFAULT_REPO,
    dashboard: {
      users: env.DASHBOARD_USERS ?? [],
      /** Empty: every signed-in user may approve. */
      approvers: env.DASHBOARD_APPROVERS ?? [],
      sessionTtlS: env.DASHBOARD_SESSION_TTL_S,
    },
  }),
);
