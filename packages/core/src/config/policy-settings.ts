import { envSection } from './env-section.ts';
import { text } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const policySettings = envSection(
  'Policy, identities and deploys',
  {
    POLICY_FILE: envVariable(text, {
      doc: 'Service policy (YAML, the `.pullwright.yml` keys): the defaults and the ceiling every repository file can only tighten; the same file for the API and the workers.',
      defaultDoc: 'one approval from anyone, no path rules, no auto-approval, no deploys',
      readBy: READ_BY.every,
    }),
    IDENTITIES: envVariable(text, {
      doc: 'Who is who across Slack, GitHub, the dashboard and the API, with roles: JSON text or the path of a JSON file. Checked by the API (requests, approvals) and again by workers at claim: the same value for both.',
      defaultDoc: 'every caller holding the API token (or a verified Slack/GitHub request) acts as admin',
      readBy: READ_BY.every,
    }),
    DEPLOY_WEBHOOK_SECRET: envVariable(text, {
      doc: 'HMAC key signing deploy webhooks (`X-Pullwright-Signature-256`); workers run deploys, so they need it once a policy has a webhook deploy. A policy’s `url_env` names further `DEPLOY_*` variables the workers read.',
      readBy: READ_BY.worker,
      secret: true,
    }),
  },
  (env) => ({
    policyFile: env.POLICY_FILE,
    identities: env.IDENTITIES,
    deployWebhookSecret: env.DEPLOY_WEBHOOK_SECRET,
  }),
);
