import { hkdfSync } from 'node:crypto';
import { envSection } from './env-section.ts';
import { longSecret } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

/** HKDF, so a leaked PR body (signed with the key) never reveals the token itself. */
const derivedVerificationKey = (apiToken: string) =>
  Buffer.from(hkdfSync('sha256', apiToken, '', 'pullwright verification block v1', 32)).toString('hex');

export const accessSettings = envSection(
  'Access',
  {
    API_TOKEN: envVariable(longSecret, {
      doc: 'Bearer token for REST and the dashboard; workers never get it.',
      defaultDoc: '`npm start`: generated, kept in `<DATA_DIR>/api-token`',
      readBy: READ_BY.api,
      secret: true,
      needs: { api: { level: 'required', why: 'REST and the dashboard sign in with it' } },
    }),
    VERIFICATION_KEY: envVariable(longSecret, {
      doc: 'HMAC-SHA256 key of the verification block in PR bodies: workers sign it, the API checks it, so both get the same value.',
      defaultDoc: '`npm start`: derived from API_TOKEN (HKDF-SHA256)',
      readBy: READ_BY.every,
      secret: true,
      needs: {
        api: { level: 'required', why: 'the API checks the receipts workers sign (same value on both)' },
        worker: {
          level: 'required',
          why: 'workers sign PR receipts with it and the API checks them (same value on both)',
        },
      },
    }),
    METRICS_TOKEN: envVariable(longSecret, {
      doc: 'Bearer token for `GET /metrics` on the API and the workers; unset: `/metrics` is open (scrapers usually sit on a private network).',
      readBy: READ_BY.every,
      secret: true,
    }),
  },
  (env) => ({
    apiToken: env.API_TOKEN,
    /** VERIFICATION_KEY, or derived from API_TOKEN; undefined only when neither is set. */
    verificationKey: env.VERIFICATION_KEY ?? (env.API_TOKEN ? derivedVerificationKey(env.API_TOKEN) : undefined),
    metricsToken: env.METRICS_TOKEN,
  }),
  { derivedSecrets: (section) => [section.verificationKey] },
);
