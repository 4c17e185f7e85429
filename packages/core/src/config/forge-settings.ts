import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { type EnvIssue, envSection } from './env-section.ts';
import { flag, text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';
import { readGitHubPrivateKey } from './github-private-key.ts';

/**
 * Why the App's private key cannot sign, or undefined when it can. A key cut short by a
 * shell or a secrets UI is found here, at start, instead of at every operation's first token.
 */
function privateKeyProblem(value: string): string | undefined {
  let pem: string;
  try {
    pem = readGitHubPrivateKey(value);
  } catch (err) {
    return (err as Error).message.replace(/^GITHUB_APP_PRIVATE_KEY /, '');
  }
  try {
    createPrivateKey(pem);
    return undefined;
  } catch {
    return 'is not a usable private key (cut short, or its line breaks lost)';
  }
}

export const forgeSettings = envSection(
  'Forge and GitHub',
  {
    FORGE: envVariable(z.enum(['github', 'local']), {
      doc: 'Where repositories and pull requests live: `github` (a GitHub App) or `local` (bare repositories in FORGE_DIR, pull requests on the dashboard).',
      defaultDoc: '`github` when GITHUB_APP_ID is set, else `local`',
      readBy: READ_BY.every,
    }),
    GITHUB_URL: envVariable(url, {
      doc: 'GitHub, or GitHub Enterprise Server: REST at `<GITHUB_URL>/api/v3`, git at `<GITHUB_URL>/<owner>/<repo>.git`.',
      default: 'https://github.com',
      readBy: READ_BY.every,
    }),
    GITHUB_APP_ID: envVariable(text, {
      doc: "The GitHub App's id.",
      readBy: READ_BY.every,
    }),
    GITHUB_APP_PRIVATE_KEY: envVariable(text, {
      doc: "The GitHub App's private key: the PEM text or the path of the downloaded .pem file. The API holds it and mints each job's token (its credential broker); a worker holds it only without WORKER_TOKEN.",
      readBy: READ_BY.api,
      secret: true,
    }),
    GITHUB_WEBHOOK_SECRET: envVariable(text, {
      doc: "The App's webhook secret: verifies `POST /github/webhooks` (reviews, `/pullwright` comments, merges, CI).",
      readBy: READ_BY.api,
      secret: true,
    }),
    GITHUB_PR_DRAFT: envVariable(flag, {
      doc: 'Open pull requests as drafts (`true`) or ready for review.',
      default: 'false',
      readBy: READ_BY.worker,
    }),
    GITHUB_CLIENT_ID: envVariable(text, {
      doc: "Dashboard sign-in with GitHub: the GitHub App's OAuth client id (callback `<PUBLIC_URL>/v1/session/github/callback`); needs IDENTITIES, which gives logins their roles.",
      defaultDoc: 'no GitHub sign-in, tokens only',
      readBy: READ_BY.api,
    }),
    GITHUB_CLIENT_SECRET: envVariable(text, {
      doc: "The GitHub App's OAuth client secret, with GITHUB_CLIENT_ID.",
      readBy: READ_BY.api,
      secret: true,
    }),
  },
  (env) => ({
    forge: env.FORGE ?? (env.GITHUB_APP_ID ? ('github' as const) : ('local' as const)),
    github: {
      url: env.GITHUB_URL,
      appId: env.GITHUB_APP_ID,
      privateKey: env.GITHUB_APP_PRIVATE_KEY,
      webhookSecret: env.GITHUB_WEBHOOK_SECRET,
      draftPullRequests: env.GITHUB_PR_DRAFT,
      /** OAuth client of the GitHub App, for dashboard sign-in; both set or neither. */
      clientId: env.GITHUB_CLIENT_ID,
      clientSecret: env.GITHUB_CLIENT_SECRET,
    },
  }),
  {
    check: (env) => {
      const issues: EnvIssue[] = [];
      if (Boolean(env.GITHUB_CLIENT_ID) !== Boolean(env.GITHUB_CLIENT_SECRET)) {
        const variable = env.GITHUB_CLIENT_ID ? 'GITHUB_CLIENT_SECRET' : 'GITHUB_CLIENT_ID';
        issues.push({ variable, reason: 'GitHub sign-in needs both the client id and secret' });
      }
      return issues;
    },
    warnings: ({ forge, github }, role) => {
      if (forge !== 'github') return [];
      const issues: EnvIssue[] = [];
      const keyProblem = github.privateKey ? privateKeyProblem(github.privateKey) : undefined;
      if (keyProblem) {
        issues.push({
          variable: 'GITHUB_APP_PRIVATE_KEY',
          reason: `${keyProblem}: every GitHub call will fail. Fix: paste the whole .pem from the App's settings (BEGIN to END line) or give the file's path`,
        });
      }
      if (role !== 'worker' && !github.webhookSecret) {
        issues.push({
          variable: 'GITHUB_WEBHOOK_SECRET',
          reason:
            "unset with FORGE=github: reviews, `/pullwright` comments, merges and CI results on GitHub go unseen. Fix: set it to the App's webhook secret",
        });
      }
      return issues;
    },
  },
);
