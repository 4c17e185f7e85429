import { crc32Base62Suffix } from './token-checksum.ts';

/**
 * Real-format credentials and look-alikes for every default rule, built at run time from a
 * seeded generator: no literal secret sits in this repository for GitHub push protection
 * (or our own scanner) to trip on, and a run is reproducible from its seed. The per-rule
 * tests use one seed and one context each; `bench/scanner-recall.bench.ts` draws a held-out
 * corpus from another seed in every syntax, encoded and split across lines.
 *
 * Formats are the providers' documented ones (see the comment above each section of
 * default-rules.toml); none of these values was ever a live credential.
 */

/** Draws `length` characters of `alphabet`. */
export type Pick = (alphabet: string, length: number) => string;

interface CredentialSample {
  ruleId: string;
  /** Provider family, for per-family recall. */
  family: string;
  /** A fresh secret in the documented format. */
  secret(pick: Pick): string;
  /** Format characters at the start of the secret (kept in look-alikes). */
  prefix?: string;
  /** Keyed formats: the variable name the value is assigned to (SCREAMING_SNAKE). */
  name?: string;
  /** Structural formats write their own text around the secret (PEM blocks, command lines). */
  text?: (secret: string, pick: Pick) => string;
  /** A file the text has to be in (rules limited by path). */
  file?: string;
}

/** A seeded generator (an LCG's high bits: its low bits cycle quickly). */
export function seededPick(seed: number): Pick {
  let state = seed >>> 0;
  return (alphabet, length) => {
    let out = '';
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out += alphabet[(state >>> 8) % alphabet.length];
    }
    return out;
  };
}

const DIGITS = '0123456789';
export const HEX = '0123456789abcdef';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LETTERS = LOWER + UPPER;
export const ALNUM = LETTERS + DIGITS;
const LOWER_NUM = LOWER + DIGITS;
const UPPER_NUM = UPPER + DIGITS;
const URLSAFE = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

const uuid = (p: Pick): string => `${p(HEX, 8)}-${p(HEX, 4)}-4${p(HEX, 3)}-a${p(HEX, 3)}-${p(HEX, 12)}`;
const b64url = (s: string): string => Buffer.from(s).toString('base64url');
/** GitHub / npm: 30 random base62 characters and their CRC32 suffix. */
const checksummed = (prefix: string) => (p: Pick) => {
  const random = p(ALNUM, 30);
  return `${prefix}${random}${crc32Base62Suffix(random)}`;
};
/** A password as people choose them: letters, digits and a few symbols. */
const password = (p: Pick): string => `${p(LETTERS, 6)}${p('!#@%^*', 1)}${p(ALNUM, 6)}${p('!#@%^*', 1)}${p(DIGITS, 3)}`;

function pemBody(p: Pick, lines: number): string {
  return Array.from({ length: lines }, () => p(B64, 64)).join('\n');
}

const samples: CredentialSample[] = [];
/** A prefixed token that stands on its own. */
const bare = (ruleId: string, family: string, prefix: string, secret: (p: Pick) => string): void => {
  samples.push({ ruleId, family, prefix, secret: (p) => prefix + secret(p) });
};
/** A value that needs the provider's name beside it. */
const keyed = (ruleId: string, family: string, name: string, secret: (p: Pick) => string): void => {
  samples.push({ ruleId, family, name, secret });
};
const structural = (
  ruleId: string,
  family: string,
  secret: (p: Pick) => string,
  text: (secret: string, p: Pick) => string,
  file?: string,
): void => {
  samples.push({ ruleId, family, secret, text, ...(file === undefined ? {} : { file }) });
};
const r = (alphabet: string, n: number) => (p: Pick) => p(alphabet, n);

// Keys, URLs and command lines.
structural(
  'private-key',
  'private-key',
  (p) => pemBody(p, 12),
  (s) => `-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----\n`,
);
structural(
  'private-key',
  'private-key',
  (p) => pemBody(p, 6),
  (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----\n`,
);
structural(
  'private-key',
  'private-key',
  (p) => pemBody(p, 8),
  (s) =>
    `GITHUB_APP_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n${s.replaceAll('\n', '\\n')}\\n-----END PRIVATE KEY-----"`,
);
// A block cut short (a paste that lost its tail): the boundary and a line of body.
structural(
  'generic-private-key-block',
  'private-key',
  (p) => `MHcCAQEE${p(B64, 40)}`,
  (s) => `-----BEGIN EC PRIVATE KEY-----\n${s}\n`,
);
structural(
  'ssh2-private-key',
  'private-key',
  (p) => pemBody(p, 6),
  (s) =>
    `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\n${s}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n`,
);
structural(
  'putty-private-key',
  'private-key',
  (p) => pemBody(p, 4),
  (s, p) =>
    `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 2\n${p(B64, 64)}\n${p(B64, 20)}\nPrivate-Lines: 4\n${s}\nPrivate-MAC: ${p(HEX, 64)}\n`,
);
// A wallet key pasted into prose: the key, then the wallet it funds on the next line.
structural(
  'secp256k1-private-key-hex',
  'private-key',
  (p) => `0x${p(HEX, 64)}`,
  (s) => `Left the deployer key here by mistake: ${s}.\nThat wallet still holds the testnet funds.\n`,
);
structural(
  'url-credentials',
  'url-credentials',
  r(ALNUM, 16),
  (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`,
);
structural('curl-auth-user', 'command-line', password, (s) => `curl -fsS -u deploy:${s} https://ci.internal/api/build`);
structural(
  'curl-auth-header',
  'command-line',
  r(ALNUM, 40),
  (s) => `curl -X POST -H "Authorization: Bearer ${s}" https://api.internal/v1/jobs`,
);
structural(
  'authorization-header',
  'command-line',
  (p) => Buffer.from(`deploy:${password(p)}`).toString('base64'),
  (s) => `GET /api/builds HTTP/1.1\nAuthorization: Basic ${s}`,
);
structural(
  'wget-auth-password',
  'command-line',
  password,
  (s) => `wget --user=deploy --password=${s} https://files.internal/release.tar.gz`,
);

// Providers, A-Z (the order of default-rules.toml).
bare('1password-secret-key', '1password', 'A3-', (p) =>
  [p(UPPER_NUM, 6), p(UPPER_NUM, 6), p(UPPER_NUM, 5), p(UPPER_NUM, 5), p(UPPER_NUM, 5), p(UPPER_NUM, 5)].join('-'),
);
bare('1password-service-account-token', '1password', 'ops_eyJ', r(ALNUM, 300));
bare('adafruit-api-key', 'adafruit', 'aio_', r(ALNUM, 28));
keyed('adafruit-legacy-api-key', 'adafruit', 'ADAFRUIT_IO_KEY', r(LOWER_NUM, 32));
keyed('adobe-client-id', 'adobe', 'ADOBE_CLIENT_ID', r(HEX, 32));
bare('adobe-client-secret', 'adobe', 'p8e-', r(ALNUM, 32));
bare('age-secret-key', 'age', 'AGE-SECRET-KEY-1', r(BECH32, 58));
bare('airtable-personal-access-token', 'airtable', 'pat', (p) => `${p(ALNUM, 14)}.${p(HEX, 64)}`);
keyed('airtable-api-key', 'airtable', 'AIRTABLE_API_KEY', (p) => `key${p(ALNUM, 14)}`);
keyed('algolia-api-key', 'algolia', 'ALGOLIA_ADMIN_KEY', r(HEX, 32));
bare('alibaba-access-key-id', 'alibaba', 'LTAI', r(ALNUM, 20));
keyed('alibaba-secret-key', 'alibaba', 'ALIBABA_CLOUD_ACCESS_KEY_SECRET', r(ALNUM, 30));
bare('artifactory-api-key', 'jfrog', 'AKCp', r(ALNUM, 69));
bare('artifactory-reference-token', 'jfrog', 'cmVmd', r(ALNUM, 59));
keyed('jfrog-api-key', 'jfrog', 'JFROG_ACCESS_TOKEN', r(ALNUM, 64));
bare('asana-personal-access-token', 'asana', '1/', (p) => `${p(DIGITS, 16)}:${p(HEX, 32)}`);
keyed('asana-client-secret', 'asana', 'ASANA_CLIENT_SECRET', r(ALNUM, 32));
bare('atlassian-api-token', 'atlassian', 'ATATT3', r(URLSAFE, 186));
keyed('atlassian-legacy-api-token', 'atlassian', 'JIRA_API_TOKEN', r(ALNUM, 24));
/** Atlassian Data Center: base64 of a 12-digit token id, a colon and 20 random bytes. */
const atlassianDataCenter = (p: Pick): string =>
  Buffer.concat([Buffer.from(`${p(DIGITS, 12)}:`), Buffer.from(p(HEX, 40), 'hex')]).toString('base64');
keyed('atlassian-data-center-pat', 'atlassian', 'CONFLUENCE_PAT', atlassianDataCenter);
bare(
  'authress-service-client-access-key',
  'authress',
  'sc_',
  (p) => `${p(LOWER_NUM, 10)}.${p(LOWER_NUM, 5)}.acc_${p(LOWER_NUM, 16)}.${p(ALNUM, 40)}`,
);
bare('aws-access-token', 'aws', 'AKIA', r(UPPER_NUM, 16));
keyed('aws-secret-access-key', 'aws', 'AWS_SECRET_ACCESS_KEY', r(B64, 40));
bare('aws-bedrock-api-key', 'aws', 'ABSKQmVkcm9ja0FQSUtleS', r(B64, 120));
bare('aws-bedrock-short-term-api-key', 'aws', 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t', r(B64, 200));
bare('aws-appsync-api-key', 'aws', 'da2-', r(LOWER_NUM, 26));
bare('azure-ad-client-secret', 'azure', '', (p) => `${p(ALNUM, 3)}${p(DIGITS, 1)}Q~${p(`${ALNUM}_~.-`, 34)}`);
structural(
  'azure-sas-token',
  'azure',
  (p) => encodeURIComponent(`${p(B64, 43)}=`),
  (s) =>
    `https://appdata.blob.core.windows.net/uploads?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&sig=${s}`,
);
structural(
  'azure-apim-git-password',
  'azure',
  // The expiry: yyyyMMddHHmm.
  (p) => `git&20270${p('123456789', 1)}1512${p('012345', 1)}0&${p(B64, 86)}==`,
  (s) => `APIM_GIT_URL=https://contoso.scm.azure-api.net/\nAPIM_GIT_PASSWORD=${s}`,
);
structural(
  'azure-storage-account-key',
  'azure',
  (p) => `${p(B64, 86)}==`,
  (s) =>
    `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=appdata;AccountKey=${s};EndpointSuffix=core.windows.net"`,
);
keyed('azure-openai-api-key', 'azure', 'AZURE_OPENAI_API_KEY', r(HEX, 32));
bare('azure-entra-refresh-token', 'azure', '0.A', (p) => `${p(URLSAFE, 50)}.AgABAAAAAAD--${p(URLSAFE, 600)}`);
keyed('beamer-api-token', 'beamer', 'BEAMER_API_KEY', (p) => `b_${p(`${LOWER_NUM}=_-`, 44)}`);
bare('bitbucket-app-password', 'bitbucket', 'ATBB', r(ALNUM, 28));
bare('bitbucket-data-center-access-token', 'bitbucket', 'BBDC-', r(B64, 44));
keyed('bitbucket-client-secret', 'bitbucket', 'BITBUCKET_CLIENT_SECRET', r(ALNUM, 64));
keyed('bittrex-api-key', 'bittrex', 'BITTREX_API_SECRET', r(ALNUM, 32));
bare(
  'circleci-api-token',
  'circleci',
  'CCIPAT_',
  (p) => `${p('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', 22)}_${p(HEX, 40)}`,
);
keyed('cisco-meraki-api-key', 'cisco-meraki', 'MERAKI_DASHBOARD_API_KEY', r(HEX, 40));
bare('clickhouse-cloud-api-secret-key', 'clickhouse', '4b1d', r(ALNUM, 38));
bare('clojars-api-token', 'clojars', 'CLOJARS_', r(LOWER_NUM, 60));
bare('cloudflare-scannable-token', 'cloudflare', 'cfut_', (p) => `${p(ALNUM, 40)}${p(HEX, 8)}`);
bare('cloudflare-origin-ca-key', 'cloudflare', 'v1.0-', (p) => `${p(HEX, 24)}-${p(HEX, 146)}`);
keyed('cloudflare-global-api-key', 'cloudflare', 'CLOUDFLARE_API_KEY', r(HEX, 37));
keyed('cloudflare-api-token', 'cloudflare', 'CLOUDFLARE_API_TOKEN', r(URLSAFE, 40));
keyed('codecov-access-token', 'codecov', 'CODECOV_TOKEN', uuid);
keyed('cohere-api-token', 'cohere', 'COHERE_API_KEY', r(ALNUM, 40));
keyed('coinbase-access-token', 'coinbase', 'COINBASE_API_SECRET', r(ALNUM, 64));
keyed('confluent-secret-key', 'confluent', 'CONFLUENT_API_SECRET', r(ALNUM, 64));
keyed('contentful-delivery-api-token', 'contentful', 'CONTENTFUL_ACCESS_TOKEN', r(URLSAFE, 43));
bare('contentful-personal-access-token', 'contentful', 'CFPAT-', r(URLSAFE, 43));
bare('databricks-api-token', 'databricks', 'dapi', r(HEX, 32));
keyed('cloudant-credential', 'ibm', 'CLOUDANT_PASSWORD', r(HEX, 64));
keyed('ibm-cos-hmac-secret', 'ibm', 'COS_HMAC_SECRET_ACCESS_KEY', r(HEX, 48));
keyed('softlayer-api-key', 'ibm', 'SOFTLAYER_API_KEY', r(HEX, 64));
keyed('datadog-access-token', 'datadog', 'DD_API_KEY', r(HEX, 32));
bare('defined-networking-api-token', 'defined-networking', 'dnkey-', (p) => `${p(LOWER_NUM, 26)}-${p(LOWER_NUM, 52)}`);
bare('deno-deploy-token', 'deno', 'ddp_', r(ALNUM, 36));
bare('docker-access-token', 'docker', 'dckr_pat_', r(URLSAFE, 27));
bare('digitalocean-pat', 'digitalocean', 'dop_v1_', r(HEX, 64));
bare('digitalocean-access-token', 'digitalocean', 'doo_v1_', r(HEX, 64));
bare('digitalocean-refresh-token', 'digitalocean', 'dor_v1_', r(HEX, 64));
keyed(
  'discord-api-token',
  'discord',
  'DISCORD_BOT_TOKEN',
  (p) => `M${p(ALNUM, 23)}.${p(URLSAFE, 6)}.${p(URLSAFE, 27)}`,
);
bare('discord-bot-token', 'discord', 'M', (p) => `${p(ALNUM, 23)}.${p(URLSAFE, 6)}.${p(URLSAFE, 27)}`);
structural(
  'discord-webhook-url',
  'discord',
  (p) => p(URLSAFE, 68),
  (s) => `DISCORD_WEBHOOK=https://discord.com/api/webhooks/${'1'.repeat(18)}/${s}`,
);
bare('doppler-api-token', 'doppler', 'dp.st.', r(ALNUM, 43));
keyed('droneci-access-token', 'droneci', 'DRONE_TOKEN', r(ALNUM, 32));
keyed('dropbox-api-token', 'dropbox', 'DROPBOX_APP_SECRET', r(LOWER_NUM, 15));
keyed('dropbox-short-lived-api-token', 'dropbox', 'DROPBOX_ACCESS_TOKEN', (p) => `sl.${p(URLSAFE, 140)}`);
bare('dropbox-long-lived-api-token', 'dropbox', '', (p) => `${p(ALNUM, 11)}AAAAAAAAAA${p(URLSAFE, 43)}`);
bare('duffel-api-token', 'duffel', 'duffel_test_', r(URLSAFE, 43));
bare('dynatrace-api-token', 'dynatrace', 'dt0c01.', (p) => `${p(UPPER_NUM, 24)}.${p(UPPER_NUM, 64)}`);
bare('easypost-api-token', 'easypost', 'EZAK', r(ALNUM, 54));
structural(
  'jenkins-encrypted-secret',
  'jenkins',
  (p) => `AQAAABAAAAAQ${p(B64, 64)}`,
  (s) =>
    `<com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>\n  <secret>{${s}}</secret>\n</com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>`,
  'credentials.xml',
);
bare('vercel-token', 'vercel', 'vcp_', r(ALNUM, 40));
keyed('tableau-personal-access-token', 'tableau', 'TABLEAU_PAT_SECRET', (p) => `${p(B64, 22)}==:${p(ALNUM, 32)}`);
bare('tailscale-key', 'tailscale', 'tskey-api-', (p) => `${p(ALNUM, 7)}CNTRL-${p(ALNUM, 24)}`);
bare('easypost-test-api-token', 'easypost', 'EZTK', r(ALNUM, 54));
keyed('etsy-access-token', 'etsy', 'ETSY_API_KEY', r(LOWER_NUM, 24));
bare('facebook-access-token', 'facebook', 'EAAC', r(ALNUM, 150));
keyed('facebook-secret', 'facebook', 'FACEBOOK_APP_SECRET', r(HEX, 32));
bare('figma-personal-access-token', 'figma', 'figd_', r(URLSAFE, 40));
keyed('fastly-api-token', 'fastly', 'FASTLY_API_TOKEN', r(URLSAFE, 32));
keyed('finicity-api-token', 'finicity', 'FINICITY_APP_KEY', r(HEX, 32));
keyed('finnhub-access-token', 'finnhub', 'FINNHUB_API_KEY', r(LOWER_NUM, 20));
keyed('flickr-access-token', 'flickr', 'FLICKR_API_KEY', r(HEX, 32));
bare('flutterwave-secret-key', 'flutterwave', 'FLWSECK_TEST-', (p) => `${p(HEX, 32)}-X`);
bare('flutterwave-encryption-key', 'flutterwave', 'FLWSECK_TEST', r(HEX, 12));
bare('flyio-access-token', 'flyio', 'fo1_', r(URLSAFE, 43));
bare('frameio-api-token', 'frameio', 'fio-u-', r(URLSAFE, 64));
structural(
  'freemius-secret-key',
  'freemius',
  (p) => `sk_${p(ALNUM, 29)}`,
  (s) => `$fs = fs_dynamic_init(array('id' => '1234', 'secret_key' => '${s}',));`,
);
keyed('freshbooks-access-token', 'freshbooks', 'FRESHBOOKS_ACCESS_TOKEN', r(ALNUM, 64));
bare('gcp-api-key', 'gcp', 'AIza', r(URLSAFE, 35));
bare('gcp-oauth-client-secret', 'gcp', 'GOCSPX-', r(URLSAFE, 28));
bare('gcp-oauth-access-token', 'gcp', 'ya29.', r(URLSAFE, 120));
bare('gcp-oauth-refresh-token', 'gcp', '1//0', r(URLSAFE, 99));
samples.push({ ruleId: 'github-pat', family: 'github', prefix: 'ghp_', secret: checksummed('ghp_') });
bare('github-fine-grained-pat', 'github', 'github_pat_', (p) => `${p(ALNUM, 22)}_${p(ALNUM, 59)}`);
samples.push({ ruleId: 'github-oauth', family: 'github', prefix: 'gho_', secret: checksummed('gho_') });
samples.push({ ruleId: 'github-app-token', family: 'github', prefix: 'ghs_', secret: checksummed('ghs_') });
// Stateless installation token: ghs_, the app id, a JWT (header, claims, signature).
bare(
  'github-app-installation-jwt',
  'github',
  'ghs_',
  (p) =>
    `${p(DIGITS, 6)}_${b64url('{"alg":"RS256","typ":"JWT"}')}.${b64url(`{"iat":${p(DIGITS, 10)},"iss":"${p(DIGITS, 6)}","sub":"${p(ALNUM, 40)}"}`)}.${p(URLSAFE, 342)}`,
);
samples.push({ ruleId: 'github-refresh-token', family: 'github', prefix: 'ghr_', secret: checksummed('ghr_') });
keyed('github-oauth-client-secret', 'github', 'GITHUB_CLIENT_SECRET', r(HEX, 40));
structural(
  'github-oauth-client-pair',
  'github',
  r(HEX, 40),
  (s, p) => `client = providers.GitHub('Iv1.${p(HEX, 16)}', '${s}')`,
);
bare('gitlab-pat', 'gitlab', 'glpat-', r(URLSAFE, 20));
keyed('gitlab-legacy-pat', 'gitlab', 'GITLAB_TOKEN', r(ALNUM, 20));
bare('gitlab-pipeline-trigger-token', 'gitlab', 'glptt-', r(HEX, 40));
bare('gitlab-runner-token', 'gitlab', 'glrt-', r(URLSAFE, 20));
bare('gitlab-deploy-token', 'gitlab', 'gldt-', r(URLSAFE, 20));
bare('gitlab-cicd-job-token', 'gitlab', 'glcbt-', (p) => `${p(HEX, 2)}_${p(URLSAFE, 20)}`);
bare('gitlab-feature-flag-client-token', 'gitlab', 'glffct-', r(URLSAFE, 20));
bare('gitlab-feed-token', 'gitlab', 'glft-', r(URLSAFE, 20));
bare('gitlab-incoming-mail-token', 'gitlab', 'glimt-', r(URLSAFE, 25));
bare('gitlab-kubernetes-agent-token', 'gitlab', 'glagent-', r(URLSAFE, 50));
bare('gitlab-oauth-app-secret', 'gitlab', 'gloas-', r(URLSAFE, 64));
bare('gitlab-scim-token', 'gitlab', 'glsoat-', r(URLSAFE, 20));
structural(
  'gitlab-session-cookie',
  'gitlab',
  r(LOWER_NUM, 32),
  (s) => `curl -b "_gitlab_session=${s}" https://gitlab.internal/api/v4/projects`,
);
keyed('gitter-access-token', 'gitter', 'GITTER_TOKEN', r(ALNUM, 40));
keyed('gocardless-api-token', 'gocardless', 'GOCARDLESS_ACCESS_TOKEN', (p) => `live_${p(ALNUM, 40)}`);
bare('grafana-api-key', 'grafana', 'eyJrIjoi', r(ALNUM, 80));
bare('grafana-cloud-api-token', 'grafana', 'glc_', r(ALNUM, 80));
bare('grafana-service-account-token', 'grafana', 'glsa_', (p) => `${p(ALNUM, 32)}_${p(HEX, 8)}`);
bare('harness-api-key', 'harness', 'pat.', (p) => `${p(URLSAFE, 22)}.${p(ALNUM, 24)}.${p(ALNUM, 20)}`);
bare('hashicorp-tf-api-token', 'hashicorp', '', (p) => `${p(ALNUM, 14)}.atlasv1.${p(URLSAFE, 67)}`);
structural(
  'hashicorp-tf-password',
  'hashicorp',
  password,
  (s) => `resource "azurerm_sql_server" "db" {\n  administrator_login_password = "${s}"\n}`,
  'infra/main.tf',
);
bare('vault-service-token', 'hashicorp', 'hvs.', r(URLSAFE, 100));
bare('vault-batch-token', 'hashicorp', 'hvb.', r(URLSAFE, 150));
keyed('vault-legacy-token', 'hashicorp', 'VAULT_TOKEN', (p) => `s.${p(ALNUM, 24)}`);
bare('heroku-api-key-v2', 'heroku', 'HRKU-AA', r(URLSAFE, 58));
keyed('heroku-api-key', 'heroku', 'HEROKU_API_KEY', uuid);
bare('hubspot-private-app-token', 'hubspot', 'pat-na1-', uuid);
keyed('hubspot-api-key', 'hubspot', 'HUBSPOT_API_KEY', uuid);
bare('huggingface-access-token', 'huggingface', 'hf_', r(LETTERS, 34));
bare('huggingface-organization-api-token', 'huggingface', 'api_org_', r(LETTERS, 34));
bare('infracost-api-token', 'infracost', 'ico-', r(ALNUM, 32));
keyed('intercom-api-key', 'intercom', 'INTERCOM_ACCESS_TOKEN', r(URLSAFE, 60));
bare('intra42-client-secret', 'intra42', 's-s4t2ud-', r(HEX, 64));
structural(
  'jwt',
  'jwt',
  (p) =>
    `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${p(ALNUM, 12)}","iat":1716000000}`)}.${p(URLSAFE, 43)}`,
  (s) => `Authorization: Bearer ${s}`,
);
structural(
  'jwt-base64',
  'jwt',
  (p) =>
    Buffer.from(
      `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${p(ALNUM, 12)}"}`)}.${p(URLSAFE, 43)}`,
    ).toString('base64'),
  (s) => `jwt_blob: ${s}`,
);
keyed('kraken-access-token', 'kraken', 'KRAKEN_PRIVATE_KEY', r(B64, 88));
structural(
  'kubernetes-secret-yaml',
  'kubernetes',
  (p) => Buffer.from(p(ALNUM, 24)).toString('base64'),
  (s) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: ${s}\n`,
  'deploy/db-secret.yaml',
);
keyed('kucoin-access-token', 'kucoin', 'KUCOIN_API_SECRET', uuid);
bare('launchdarkly-access-token', 'launchdarkly', 'sdk-', uuid);
keyed('launchdarkly-legacy-token', 'launchdarkly', 'LAUNCHDARKLY_ACCESS_TOKEN', r(ALNUM, 40));
bare('linear-api-key', 'linear', 'lin_api_', r(ALNUM, 40));
keyed('linear-client-secret', 'linear', 'LINEAR_CLIENT_SECRET', r(HEX, 32));
keyed('linkedin-client-secret', 'linkedin', 'LINKEDIN_CLIENT_SECRET', r(ALNUM, 16));
keyed('lob-api-key', 'lob', 'LOB_API_KEY', (p) => `live_${p(HEX, 35)}`);
keyed('looker-client-secret', 'looker', 'LOOKER_CLIENT_SECRET', r(ALNUM, 24));
bare('mailchimp-api-key', 'mailchimp', '', (p) => `${p(HEX, 32)}-us${p('123456789', 1)}${p(DIGITS, 1)}`);
bare('mailgun-private-api-token', 'mailgun', 'key-', r(HEX, 32));
bare('mailgun-pub-key', 'mailgun', 'pubkey-', r(HEX, 32));
keyed(
  'mailgun-signing-key',
  'mailgun',
  'MAILGUN_WEBHOOK_SIGNING_KEY',
  (p) => `${p(HEX, 32)}-${p(HEX, 8)}-${p(HEX, 8)}`,
);
bare('mapbox-secret-token', 'mapbox', 'sk.eyJ', (p) => `${p(ALNUM, 60)}.${p(URLSAFE, 22)}`);
keyed('mapbox-api-token', 'mapbox', 'MAPBOX_TOKEN', (p) => `pk.${p(ALNUM, 60)}.${p(URLSAFE, 22)}`);
keyed('mattermost-access-token', 'mattermost', 'MATTERMOST_TOKEN', r(LOWER_NUM, 26));
bare('maxmind-license-key', 'maxmind', '', (p) => `${p(ALNUM, 6)}_${p(ALNUM, 29)}_mmk`);
keyed('messagebird-api-token', 'messagebird', 'MESSAGEBIRD_ACCESS_KEY', r(ALNUM, 25));
bare(
  'microsoft-teams-webhook',
  'microsoft-teams',
  'https://',
  (p) => `${p(LOWER, 8)}.webhook.office.com/webhookb2/${uuid(p)}@${uuid(p)}/IncomingWebhook/${p(HEX, 32)}/${uuid(p)}`,
);
structural(
  'microsoft-teams-workflow-webhook',
  'microsoft-teams',
  (p) => p(URLSAFE, 43),
  (s) =>
    `TEAMS_WEBHOOK=https://default${'0'.repeat(6)}.62.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/${'1'.repeat(6)}/triggers/manual/paths/invoke?api-version=1&sv=1.0&sig=${s}`,
);
bare('netlify-personal-access-token', 'netlify', 'nfp_', r(ALNUM, 36));
keyed('netlify-access-token', 'netlify', 'NETLIFY_AUTH_TOKEN', r(URLSAFE, 43));
bare('new-relic-user-api-key', 'new-relic', 'NRAK-', r(UPPER_NUM, 27));
bare('new-relic-insert-key', 'new-relic', 'NRII-', r(URLSAFE, 32));
bare('new-relic-browser-api-token', 'new-relic', 'NRJS-', r(HEX, 19));
bare('new-relic-rest-api-key', 'new-relic', 'NRRA-', r(HEX, 42));
keyed('new-relic-license-key', 'new-relic', 'NEW_RELIC_LICENSE_KEY', (p) => `${p(HEX, 36)}NRAL`);
bare('notion-api-token', 'notion', 'ntn_', (p) => `${p(DIGITS, 11)}${p(ALNUM, 35)}`);
bare('notion-legacy-api-token', 'notion', 'secret_', r(ALNUM, 43));
samples.push({ ruleId: 'npm-access-token', family: 'npm', prefix: 'npm_', secret: checksummed('npm_') });
structural('npmrc-auth', 'npm', r(ALNUM, 40), (s) => `//registry.internal/:_authToken=${s}`, '.npmrc');
structural(
  'nuget-config-password',
  'nuget',
  password,
  (s) =>
    `<packageSourceCredentials><feed><add key="Username" value="ci" /><add key="ClearTextPassword" value="${s}" /></feed></packageSourceCredentials>`,
  'nuget.config',
);
keyed('nytimes-access-token', 'nytimes', 'NYTIMES_API_KEY', r(ALNUM, 32));
bare('octopus-deploy-api-key', 'octopus-deploy', 'API-', r(UPPER_NUM, 26));
keyed('okta-access-token', 'okta', 'OKTA_API_TOKEN', (p) => `00${p(URLSAFE, 40)}`);
bare('openshift-user-token', 'openshift', 'sha256~', r(URLSAFE, 43));
bare('openai-api-key', 'openai', 'sk-proj-', (p) => `${p(URLSAFE, 74)}T3BlbkFJ${p(URLSAFE, 74)}`);
bare('sk-prefixed-api-key', 'braintrust', 'sk-', r(ALNUM, 48));
bare('anthropic-api-key', 'anthropic', 'sk-ant-api03-', (p) => `${p(URLSAFE, 93)}AA`);
bare('anthropic-admin-api-key', 'anthropic', 'sk-ant-admin01-', (p) => `${p(URLSAFE, 93)}AA`);
bare('perplexity-api-key', 'perplexity', 'pplx-', r(ALNUM, 48));
bare('groq-api-key', 'groq', 'gsk_', r(ALNUM, 52));
bare('xai-api-key', 'xai', 'xai-', r(ALNUM, 80));
bare('pinecone-api-key', 'pinecone', 'pcsk_', (p) => `${p(ALNUM, 5)}_${p(ALNUM, 63)}`);
bare('plaid-api-token', 'plaid', 'access-sandbox-', uuid);
keyed('plaid-secret-key', 'plaid', 'PLAID_SECRET', r(HEX, 30));
bare('planetscale-api-token', 'planetscale', 'pscale_tkn_', r(ALNUM, 43));
bare('postman-api-token', 'postman', 'PMAK-', (p) => `${p(HEX, 24)}-${p(HEX, 34)}`);
bare('prefect-api-token', 'prefect', 'pnu_', r(ALNUM, 36));
keyed('privateai-api-token', 'privateai', 'PRIVATE_AI_API_KEY', r(ALNUM, 32));
bare('pulumi-api-token', 'pulumi', 'pul-', r(HEX, 40));
bare('pypi-upload-token', 'pypi', 'pypi-AgEIcHlwaS5vcmc', r(URLSAFE, 160));
keyed('rapidapi-access-token', 'rapidapi', 'RAPIDAPI_KEY', r(URLSAFE, 50));
bare('readme-api-token', 'readme', 'rdme_', r(LOWER_NUM, 70));
bare('rubygems-api-token', 'rubygems', 'rubygems_', r(HEX, 48));
bare('scalingo-api-token', 'scalingo', 'tk-us-', r(URLSAFE, 48));
keyed('sendbird-access-token', 'sendbird', 'SENDBIRD_API_TOKEN', r(HEX, 40));
bare('sendgrid-api-token', 'sendgrid', 'SG.', (p) => `${p(URLSAFE, 22)}.${p(URLSAFE, 43)}`);
bare('sendinblue-api-token', 'sendinblue', 'xkeysib-', (p) => `${p(HEX, 64)}-${p(ALNUM, 16)}`);
bare('sentry-user-token', 'sentry', 'sntryu_', r(HEX, 64));
bare('sentry-org-token', 'sentry', 'sntrys_eyJ', (p) => `${p(B64, 120)}_${p(B64, 43)}`);
keyed('sentry-access-token', 'sentry', 'SENTRY_AUTH_TOKEN', r(HEX, 64));
bare('settlemint-access-token', 'settlemint', 'sm_pat_', r(ALNUM, 16));
bare('shippo-api-token', 'shippo', 'shippo_live_', r(HEX, 40));
bare('shopify-access-token', 'shopify', 'shpat_', r(HEX, 32));
keyed('sidekiq-secret', 'sidekiq', 'BUNDLE_ENTERPRISE__CONTRIBSYS__COM', (p) => `${p(HEX, 8)}:${p(HEX, 8)}`);
structural(
  'sidekiq-sensitive-url',
  'sidekiq',
  (p) => `${p(HEX, 8)}:${p(HEX, 8)}`,
  (s) => `source "https://${s}@gems.contribsys.com/" do`,
);
bare('slack-bot-token', 'slack', 'xoxb-', (p) => `${p(DIGITS, 12)}-${p(DIGITS, 13)}-${p(ALNUM, 24)}`);
bare('slack-user-token', 'slack', 'xoxp-', (p) => `${p(DIGITS, 12)}-${p(DIGITS, 12)}-${p(DIGITS, 13)}-${p(HEX, 32)}`);
bare('slack-config-access-token', 'slack', 'xoxe.xoxp-1-', r(UPPER_NUM, 164));
bare('slack-config-refresh-token', 'slack', 'xoxe-1-', r(UPPER_NUM, 146));
bare(
  'slack-legacy-workspace-token',
  'slack',
  'xoxa-2-',
  (p) => `${p(DIGITS, 9)}-${p(DIGITS, 11)}-${p(DIGITS, 13)}-${p(HEX, 32)}`,
);
bare('slack-legacy-token', 'slack', 'xoxs-', (p) => `${p(DIGITS, 10)}-${p(DIGITS, 11)}-${p(DIGITS, 12)}-${p(HEX, 64)}`);
bare('slack-app-token', 'slack', 'xapp-1-', (p) => `A${p(UPPER_NUM, 10)}-${p(DIGITS, 13)}-${p(HEX, 64)}`);
bare(
  'slack-webhook-url',
  'slack',
  'https://hooks.slack.com/services/',
  (p) => `T${p(UPPER_NUM, 8)}/B${p(UPPER_NUM, 10)}/${p(ALNUM, 24)}`,
);
keyed('snyk-api-token', 'snyk', 'SNYK_TOKEN', uuid);
bare('snyk-oauth-token', 'snyk', 'snyk_uat.', (p) => `${p(LOWER_NUM, 8)}.${p(URLSAFE, 40)}`);
bare('sonar-api-token', 'sonar', 'squ_', r(HEX, 40));
keyed('sonar-legacy-api-token', 'sonar', 'SONAR_TOKEN', r(ALNUM, 40));
bare('sourcegraph-access-token', 'sourcegraph', 'sgp_', (p) => `${p(HEX, 16)}_${p(HEX, 40)}`);
bare('square-access-token', 'square', 'EAAA', r(URLSAFE, 60));
bare('square-secret', 'square', 'sq0csp-', r(URLSAFE, 43));
keyed('squarespace-access-token', 'squarespace', 'SQUARESPACE_API_KEY', uuid);
bare('stripe-access-token', 'stripe', 'sk_live_', r(ALNUM, 24));
bare('stripe-payment-intent-client-secret', 'stripe', 'pi_', (p) => `${p(ALNUM, 24)}_secret_${p(ALNUM, 25)}`);
bare('stripe-webhook-secret', 'stripe', 'whsec_', r(ALNUM, 32));
keyed('sumologic-access-token', 'sumologic', 'SUMO_ACCESS_KEY', r(ALNUM, 64));
bare('telegram-bot-api-token', 'telegram', '', (p) => `${p('123456789', 1)}${p(DIGITS, 9)}:AA${p(URLSAFE, 33)}`);
keyed('telegram-bot-token-assigned', 'telegram', 'TELEGRAM_BOT_TOKEN', (p) => `${p(DIGITS, 9)}:${p(ALNUM, 35)}`);
bare(
  'tines-webhook-url',
  'tines',
  'https://',
  (p) => `${p(LOWER, 8)}.tines.com/webhook/${p(LOWER_NUM, 32)}/${p(LOWER_NUM, 32)}`,
);
keyed('travisci-access-token', 'travisci', 'TRAVIS_API_TOKEN', r(ALNUM, 22));
bare('twilio-api-key', 'twilio', 'SK', r(HEX, 32));
keyed('twilio-auth-token', 'twilio', 'TWILIO_AUTH_TOKEN', r(HEX, 32));
keyed('twitch-api-token', 'twitch', 'TWITCH_CLIENT_SECRET', r(LOWER_NUM, 30));
bare('twitter-bearer-token', 'twitter', 'A'.repeat(22), r(`${ALNUM}%`, 90));
keyed(
  'twitter-access-token',
  'twitter',
  'TWITTER_ACCESS_TOKEN',
  (p) => `${p('123456789', 1)}${p(DIGITS, 18)}-${p(ALNUM, 40)}`,
);
keyed('twitter-api-secret', 'twitter', 'TWITTER_API_SECRET', r(ALNUM, 50));
bare('typeform-api-token', 'typeform', 'tfp_', r(`${ALNUM}_`, 59));
bare('yandex-api-key', 'yandex', 'AQVN', r(URLSAFE, 36));
keyed('yandex-aws-access-token', 'yandex', 'YANDEX_ACCESS_KEY_ID', (p) => `YC${p(ALNUM, 38)}`);
bare('yandex-access-token', 'yandex', 't1.', (p) => `${p(URLSAFE, 40)}.${p(URLSAFE, 86)}`);
keyed('zendesk-secret-key', 'zendesk', 'ZENDESK_API_TOKEN', r(ALNUM, 40));

// Generic assignments.
keyed('generic-api-key', 'generic', 'PAYMENTS_SERVICE_API_KEY', r(ALNUM, 32));
keyed('generic-hex-secret', 'generic', 'WEBHOOK_SECRET', r(HEX, 40));
keyed('generic-password', 'generic', 'DB_PASSWORD', password);
structural(
  'generic-quoted-secret',
  'generic',
  (p) => `${p(LETTERS, 5)}{${p(ALNUM, 6)}}(${p(ALNUM, 5)})`,
  (s) => `if ("${s}" === api_secret) {`,
);
structural(
  'generic-config-add-value',
  'generic',
  r(ALNUM, 32),
  (s) => `<appSettings>\n  <add key="PaymentsApiKey" value="${s}" />\n</appSettings>`,
  'Web.config',
);
structural(
  'generic-xml-secret-element',
  'generic',
  r(ALNUM, 32),
  (s) => `<deploy>\n  <endpoint>https://deploy.internal</endpoint>\n  <apiToken>${s}</apiToken>\n</deploy>`,
  'deploy.xml',
);

bare('langfuse-secret-key', 'langfuse', 'sk-lf-', uuid);
bare('langsmith-api-key', 'langchain', 'lsv2_pt_', (p) => `${p(HEX, 32)}_${p(HEX, 10)}`);
bare('voiceflow-api-key', 'voiceflow', 'VF.DM.', (p) => `${p(HEX, 24)}.${p(ALNUM, 16)}`);
keyed('vault-approle-secret-id', 'hashicorp', 'VAULT_SECRET_ID', uuid);
// A whole block flattened onto one line (a JSON value), its body not starting as DER does.
structural(
  'generic-private-key-one-line',
  'private-key',
  (p) => `${p('ABCDEFGHIJKLNOPQRSTUVWXYZ', 1)}${p(B64, 15)} ${p(B64, 24)} ${p(B64, 9)}`,
  (s) => `{"signing_key": "-----BEGIN RSA PRIVATE KEY----- ${s} -----END RSA PRIVATE KEY-----"}`,
  'config/app.json',
);
structural(
  'connection-string-password',
  'url-credentials',
  password,
  (s) => `"ConnectionStrings": { "Orders": "Server=sql.internal;Database=orders;User Id=orders_app;Password=${s};" }`,
);
keyed('fullstory-api-key', 'fullstory', 'FULLSTORY_API_KEY', (p) => `na1.${p(B64, 64)}`);

export const CREDENTIAL_SAMPLES: readonly CredentialSample[] = samples;

/**
 * A secret in `ruleId`'s documented format for a test to plant, drawn from `seed` at run time:
 * no literal credential sits in a test file for push protection or `pullwright scan .` to
 * report. Different seeds give different secrets of the same format.
 */
export function sampleSecret(ruleId: string, seed: number): string {
  const sample = samples.find((s) => s.ruleId === ruleId);
  if (!sample) throw new Error(`no credential sample for rule ${ruleId}`);
  return sample.secret(seededPick(seed));
}

/** `PAYMENTS_API_KEY` → `paymentsApiKey`. */
function camel(name: string): string {
  return name.toLowerCase().replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The syntaxes a keyed value is written in, each a one-line file content. */
export const KEYED_SYNTAXES: ReadonlyArray<[string, (name: string, value: string) => string]> = [
  ['env', (n, v) => `${n}=${v}`],
  ['yaml', (n, v) => `  ${n.toLowerCase()}: "${v}"`],
  ['json', (n, v) => `  "${camel(n)}": "${v}",`],
  ['xml', (n, v) => `<${camel(n)}>${v}</${camel(n)}>`],
  ['toml', (n, v) => `${n.toLowerCase()} = '${v}'`],
  ['shell', (n, v) => `export ${n}="${v}"`],
  ['makefile', (n, v) => `${n} ?= ${v}`],
  ['go', (n, v) => `\t${camel(n)} := "${v}"`],
  ['java', (n, v) => `    private static final String ${n} = "${v}";`],
  ['php', (n, v) => `    '${n.toLowerCase()}' => '${v}',`],
  ['python', (n, v) => `${n.toLowerCase()} = "${v}"`],
  ['ts', (n, v) => `const ${camel(n)}: string = \`${v}\`;`],
];

/** Where a prefixed token turns up: code, config, prose. */
export const BARE_SYNTAXES: ReadonlyArray<[string, (value: string) => string]> = [
  ['js', (v) => `const client = new Client("${v}");`],
  ['yaml', (v) => `token: ${v}`],
  ['json', (v) => `{"credential": "${v}"}`],
  ['prose', (v) => `Log in with ${v} and rotate it afterwards.`],
  ['xml', (v) => `<value>${v}</value>`],
  ['shell', (v) => `export CI_CRED='${v}'`],
  ['python', (v) => `client = Client(api="${v}")`],
];

/** The first true positive for a sample in its first syntax: what the per-rule tests use. */
export function sampleText(sample: CredentialSample, secret: string, pick: Pick, syntax = 0): string {
  if (sample.text) return sample.text(secret, pick);
  if (sample.name) return KEYED_SYNTAXES[syntax % KEYED_SYNTAXES.length]![1](sample.name, secret);
  return BARE_SYNTAXES[syntax % BARE_SYNTAXES.length]![1](secret);
}

/**
 * Look-alikes of a sample, which no rule may report: the same text with the random part
 * replaced by a placeholder run, a reference to a variable, and (for prefixed formats) a
 * sentence that only names the prefix.
 */
export function lookalikes(sample: CredentialSample, secret: string, pick: Pick): string[] {
  const prefix = sample.prefix ?? '';
  const placeholder = prefix + secret.slice(prefix.length).replace(/[A-Za-z0-9]/g, 'x');
  const out = [sampleText(sample, placeholder, pick)];
  if (sample.name) {
    out.push(
      sampleText(sample, `\${${sample.name}}`, pick),
      `${sample.name.toLowerCase()} = process.env.${sample.name}`,
    );
  }
  if (prefix.length >= 3) out.push(`// ${sample.ruleId} values start with "${prefix}"`);
  return out;
}
