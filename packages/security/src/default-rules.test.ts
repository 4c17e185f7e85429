import { describe, expect, it } from 'vitest';
import { CREDENTIAL_SAMPLES, lookalikes, sampleText, seededPick } from './credential-samples.ts';
import { DEFAULT_RULES } from './default-rules.ts';
import { SecretScanner } from './secret-scanner.ts';
import { crc32Base62Suffix, verifiesChecksum } from './token-checksum.ts';

/**
 * One true positive and its look-alikes per default rule, generated at run time from
 * credential-samples.ts (documented formats, random parts from a fixed seed). The held-out
 * recall corpus (other seed, every syntax, encodings) is bench/scanner-recall.bench.ts.
 */
const pick = seededPick(20251124);
const HEX = '0123456789abcdef';
const URLSAFE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
const rows = CREDENTIAL_SAMPLES.map((sample) => {
  const secret = sample.secret(pick);
  return {
    ruleId: sample.ruleId,
    file: sample.file ?? 'src/settings.txt',
    text: sampleText(sample, secret, pick),
    secret,
    lookalikes: lookalikes(sample, sample.secret(pick), pick),
  };
});

describe('default rules', () => {
  const scanner = new SecretScanner();

  it('has a sample for every rule', () => {
    const sampled = new Set(rows.map((r) => r.ruleId));
    expect(DEFAULT_RULES.rules.map((r) => r.id).filter((id) => !sampled.has(id))).toEqual([]);
    expect(DEFAULT_RULES.rules.length).toBeGreaterThanOrEqual(200);
  });

  it.each(rows)('$ruleId finds its format', ({ ruleId, file, text, secret }) => {
    const findings = scanner.scanText(text, file);
    expect(findings.map((f) => f.ruleId)).toContain(ruleId);
    // The report never holds the secret, only at most its first 4 characters.
    expect(JSON.stringify(findings)).not.toContain(secret.slice(4, 14));
  });

  it.each(rows)('$ruleId leaves its look-alikes alone', ({ file, lookalikes: texts }) => {
    for (const text of texts) expect(scanner.scanText(text, file), text).toEqual([]);
  });

  it('reports a checksummed token even where an allowlist would drop it', () => {
    const random = pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 30);
    const valid = `ghp_${random}${crc32Base62Suffix(random)}`;
    const broken = `ghp_${random}${crc32Base62Suffix(random).split('').reverse().join('')}`;
    expect(verifiesChecksum('crc32-base62', valid)).toBe(true);
    expect(verifiesChecksum('crc32-base62', broken)).toBe(false);
    const fixtures = new SecretScanner({
      rules: {
        rules: DEFAULT_RULES.rules,
        allowlists: [
          ...DEFAULT_RULES.allowlists,
          { condition: 'OR', paths: [/^test\/fixtures\//], regexes: [], regexTarget: 'secret', stopwords: [] },
        ],
      },
    });
    expect(fixtures.scanText(`token = "${valid}"`, 'test/fixtures/a.txt').map((f) => f.ruleId)).toEqual(['github-pat']);
    expect(fixtures.scanText(`token = "${broken}"`, 'test/fixtures/a.txt')).toEqual([]);
    // Outside the allowlist, a token with a broken checksum is still reported, as gitleaks does.
    expect(scanner.scanText(`token = "${broken}"`, 'src/a.txt').map((f) => f.ruleId)).toEqual(['github-pat']);
  });

  it.each([
    ['documented AWS example key', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
    [
      'jwt.io example token',
      `Authorization: Bearer ${['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ', 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'].join('.')}`,
    ],
    [
      'Stripe API reference test key',
      `Stripe(${JSON.stringify(['sk', 'test', '4eC39HqLyjWDarjtT1zdp7dc'].join('_'))})`,
    ],
    ['angle-bracket placeholder', 'SENTRY_AUTH_TOKEN=<your-token>'],
    ['template reference', 'password: "{{ .Values.db.password }}"'],
    ['environment lookup', 'const apiKey = process.env.STRIPE_SECRET_KEY2;'],
    [
      'lock-file integrity hash',
      '"integrity": "sha512-Ab3dEf9hIjKlMnOpQrStUvWxYz0123456789+/AbCdEfGhIjKlMnOpQrStUvWxYz01234567890AbCdEfGhIjKl=="',
    ],
    ['React list key', '<Row key="3f2c1a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69" />'],
    ['request id', 'request_id: 3f2c1a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69'],
    ['git commit sha', 'commit 5e2f7c1a9b3d8e6f0a4c2b7d9e1f3a5c7b9d0e2f'],
    ['type annotation', 'password: string;'],
    ['function call', 'password = getPasswordFromVault(name)'],
    ['curl with a variable', 'curl -u "deploy:$DEPLOY_PASSWORD" https://ci.internal/api'],
    ['curl with a placeholder header', 'curl -H "Authorization: Bearer <token>" https://api.example.com'],
    // Found by scanning real packages (node_modules) for false positives:
    ['re-exported class', 'Anthropic.CMEKKeyDisabledError = shared_1.CMEKKeyDisabledError;'],
    ['type union', 'export type OAuth2Client = OldOAuth2Client | CurrentOAuth2Client;'],
    ['diagnostic constant', 'error(accessExpression, Diagnostics.Type_0_cannot_be_used_to_index_type_1);'],
    ['constant alias', 'exports2.SOCKS5_NO_ACCEPTABLE_AUTH = SOCKS5_NO_ACCEPTABLE_AUTH;'],
    ['working directory variable', "PWD: '/Users/maciej',"],
    ['command whose name contains http', 'node app.js | pino-http-send -u http://localhost:8080/logs'],
    ['documentation URL with a password', "const u = new URL('https://abc:xyz@example.com');"],
    [
      'next JSON entry after a comma',
      '"Do_not_report_errors_4": "Ne pas accéder au code.",\n  "Add_a_type_to_parameter_of_the_set_accessor_9033": "x"',
    ],
    [
      'slice of a base64 blob',
      `src: url(data:font/woff2;base64,d09GMgABAAAAA/EAA${'q7Zk2Lm9Xv4Tn8Wp1Rs6'.repeat(6)}+AKCp${'Hb3Jd5Kf7Lg9Mh2Nj4'.repeat(5)}/gQ==)`,
    ],
    ['file path in a flow list', 'instructions: [/etc/passwd, ../outside.md]'],
    [
      'JSON field name with a digit-bearing word, after a URL ending in /token',
      '{"token_uri": "https://idp.internal/oauth/token","signing_cert_x509_pem_url": "https://idp.internal/certs"}',
    ],
    ['README token stand-in', `createTokenAuth("${['ghp', 'PersonalAccessToken01245678900000000'].join('_')}");`],
    ['host name under an auth name', 'auth_host = "eu4-tenant-7391.auth-gw.app"'],
    ['printf format under a secret name', 'signing_secret = "Zp4^%c-q8Rt2vLm9"'],
    ['value that says it is invalid', 'api_key = "rk-7q2x9invalid4kd8"'],
    ['value that spells out an account key', 'secret_key = "storageaccountkey01base64"'],
  ])('leaves a %s alone', (_what, text) => {
    expect(scanner.scanText(text, 'src/app.ts')).toEqual([]);
  });

  it('reads a comma as an assignment only after a quoted password name', () => {
    // A symbol in it, as passwords have: a word-shaped value is generic-api-key's as well.
    const value = `${pick('abcdefghijklmnopqrstuvwxyz0123456789', 12)}!${pick('abcdefghijklmnopqrstuvwxyz0123456789', 3)}`;
    expect(scanner.scanText(`setenv("DB_PASSWORD", "${value}")`, 'src/app.c').map((f) => f.ruleId)).toEqual([
      'generic-password',
    ]);
    expect(scanner.scanText(`files = [etc/passwd, ${value}]`, 'src/app.c')).toEqual([]);
  });

  it('reads a provider name followed by the credential word as the key name (`Telegram bot token: …`)', () => {
    const token = `${pick('123456789', 1)}${pick('0123456789', 8)}:${pick(URLSAFE, 35)}`;
    for (const text of [`Telegram token: ${token}`, `telegram_bot token = '${token}'`]) {
      expect(scanner.scanText(text, 'notes.md').map((f) => f.ruleId)).toContain('telegram-bot-token-assigned');
    }
  });

  it('finds an Azure account key (86 base64 characters and ==) under a key name or a flag', () => {
    const key = `${pick(`${URLSAFE.slice(0, 62)}+/`, 86)}==`;
    for (const text of [
      `AzureStorageCleanup.exe\n  -storagename acct\n  -storagekey ${key}\n  -container backup`,
      `export const key =\n  process.env.ACCOUNT_KEY ||\n  "${key}";`,
      `static const std::string AccountKey{\n    "${key}"};`,
      `cosmosKey: ${key}`,
    ]) {
      expect(scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId)).toEqual(['azure-storage-account-key']);
    }
    expect(scanner.scanText(`storage_key = "${key.slice(0, 60)}"`, 'src/app.ts')).toEqual([]);
  });

  it('reads a PEM private-key boundary with a short or damaged body as a key, not code that names one', () => {
    // DER: a SEQUENCE, so base64 `M…`.
    const body = `MIIEv${pick(URLSAFE.slice(0, 62), 40)}`;
    for (const text of [
      `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`,
      `"private_key": "-----BEGIN PRIVATE KEY-----\\n${body}...\\n-----END PRIVATE KEY-----\\n"`,
      `secret: "-----BEGIN RSA PRIVATE KEY----- ${body} -----END RSA PRIVATE KEY-----"`,
    ]) {
      expect(scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId)).toEqual(['generic-private-key-block']);
    }
    for (const text of [
      "if (pem.startsWith('-----BEGIN RSA PRIVATE KEY-----')) return 'rsa';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: code that builds a PEM from a template, scanned as text
      'const pem = `-----BEGIN PRIVATE KEY-----\\n${body}\\n-----END PRIVATE KEY-----`;',
      '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----',
      'key = "-----BEGIN EC PRIVATE KEY-----\\nmy-private-key\\n-----END EC PRIVATE KEY-----\\n"',
      `-----BEGIN PRIVATE KEY-----\n${Buffer.from('abcdefghijklmnopqrstuvwxyz').toString('base64')}\n-----END PRIVATE KEY-----`,
      '-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----',
    ]) {
      expect(scanner.scanText(text, 'src/app.ts'), text).toEqual([]);
    }
  });

  it('takes a 0x secp256k1 key beside a wallet or private-key word, not a hash, slot or constant of that shape', () => {
    const key = `0x${pick(HEX, 64)}`;
    for (const text of [
      `I pasted ${key} in here by accident!\nPlease don't fund that wallet.`,
      `# deployer wallet\nDEPLOYER=${key}`,
      `const signer = new Wallet("${key}", provider);`,
      `privKey: ${key}`,
    ]) {
      expect(
        scanner.scanText(text, 'notes.md').map((f) => f.ruleId),
        text,
      ).toContain('secp256k1-private-key-hex');
    }
    for (const text of [
      `bytes32 private constant _ADMIN_SLOT = ${key};`,
      `bytes32 private constant ROLE =\n    ${key};`,
      `const wallet = new Wallet(pk);\nconst txHash = "${key}";`,
      `expect(receipt.blockHash).toBe("${key}"); // wallet funded here`,
      `// wallet deployed at ${key.slice(0, 42)}`,
      `const root = "${key}";`,
      `checksum ${key} of the release`,
      `Wallet note ${key.slice(0, 60)} is cut short`,
      `wallet seed ${`0x${'0'.repeat(64)}`}`,
    ]) {
      expect(scanner.scanText(text, 'src/app.ts'), text).toEqual([]);
    }
  });

  it('reads a whole PEM private-key block flattened onto one line, not words or the base64 of text', () => {
    const B64 = `${URLSAFE.slice(0, 62)}+/`;
    // Not `M`: a body that starts as a DER SEQUENCE is generic-private-key-block's.
    const body = `${pick('ABCDEFGHIJKLNOPQRSTUVWXYZ', 1)}${pick(B64, 11)} ${pick(B64, 36)} ${pick(B64, 6)}`;
    for (const text of [
      `{"app_key": "-----BEGIN RSA PRIVATE KEY----- ${body} -----END RSA PRIVATE KEY-----"}`,
      `APP_KEY='-----BEGIN PRIVATE KEY-----\t${body}\t-----END PRIVATE KEY-----'`,
    ]) {
      expect(
        scanner.scanText(text, 'config/app.json').map((f) => f.ruleId),
        text,
      ).toEqual(['generic-private-key-one-line']);
    }
    const text = Buffer.from('the quick brown fox jumps over the lazy dog').toString('base64');
    for (const flat of [
      '-----BEGIN PRIVATE KEY----- your private key goes here -----END PRIVATE KEY-----',
      `-----BEGIN PRIVATE KEY----- ${text} -----END PRIVATE KEY-----`,
      `-----BEGIN PRIVATE KEY----- ${body.replace(/[A-Za-z0-9]/g, 'x')} -----END PRIVATE KEY-----`,
    ]) {
      expect(scanner.scanText(flat, 'config/app.json'), flat).toEqual([]);
    }
  });

  it('reads a password in a key=value; connection string at any strength, not a placeholder or a lone pair', () => {
    const pw = `${pick(URLSAFE.slice(0, 52), 3)}@${pick(HEX, 3)}!`;
    for (const text of [
      `"Default": "Server=sql.internal;Initial Catalog=orders;User ID=orders_app;Password=${pw};Encrypt=true"`,
      `ODBC="Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql.internal,1433;Uid=app;Pwd=${pw};"`,
      `url = jdbc:sqlserver://sql.internal:1433;databaseName=orders;user=app;password=${pw}`,
    ]) {
      expect(
        scanner.scanText(text, 'src/app.cs').map((f) => f.ruleId),
        text,
      ).toEqual(['connection-string-password']);
    }
    for (const text of [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference, scanned as text
      '"Server=sql.internal;User ID=app;Password=${DB_PASSWORD};"',
      '"Server=sql.internal;User ID=app;Password=<password>;"',
      '"Server=sql.internal;User ID=app;Pwd={0};"',
      '"Server=sql.internal;User ID=sa;Password=root;"',
      '"Server=sql.internal;User ID=sa;Password=********;"',
      `"Password=${pw};"`,
    ]) {
      expect(scanner.scanText(text, 'src/app.cs'), text).toEqual([]);
    }
  });

  it('reads a Jenkins credential element whose encrypted value runs to hundreds of characters', () => {
    const blob = `{${pick(`${URLSAFE.slice(0, 62)}+/`, 640)}=}`;
    const text = `<com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>\n  <secret>${blob}</secret>\n</com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>`;
    expect(scanner.scanText(text, 'credentials.xml').map((f) => f.ruleId)).toEqual(['generic-xml-secret-element']);
  });

  it('takes a FullStory key by its data-center prefix under a FullStory name, not another region word', () => {
    const key = pick(`${URLSAFE.slice(0, 62)}+/`, 64);
    for (const region of ['na1', 'eu1']) {
      expect(scanner.scanText(`"fullstory_api_key": "${region}.${key}"`, 'config.json').map((f) => f.ruleId)).toContain(
        'fullstory-api-key',
      );
    }
    expect(scanner.scanText(`fullstory:\n  api_key: na1.${key}\n`, 'config.yml').map((f) => f.ruleId)).toContain(
      'fullstory-api-key',
    );
    expect(scanner.scanText(`"fullstory_api_key": "us2.${key}"`, 'config.json').map((f) => f.ruleId)).not.toContain(
      'fullstory-api-key',
    );
  });

  it('takes a Cloudflare scannable token at its exact length only', () => {
    const token = `cfat_${pick(URLSAFE.slice(0, 62), 40)}${pick('0123456789abcdef', 8)}`;
    expect(scanner.scanText(`CLOUDFLARE = "${token}"`, 'src/app.ts').map((f) => f.ruleId)).toEqual([
      'cloudflare-scannable-token',
    ]);
    for (const mangled of [`${token.slice(0, -1)}!`, `${token}Z`, `x${token}`]) {
      expect(scanner.scanText(`value = "${mangled}"`, 'src/app.ts').map((f) => f.ruleId)).not.toContain(
        'cloudflare-scannable-token',
      );
    }
  });

  it('takes an AppRole secret_id, not the role_id or an Azure client secret id', () => {
    const id = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
    const ids = (text: string) => scanner.scanText(text, 'vault.hcl').map((f) => f.ruleId);
    expect(ids(`secret_id = '${id()}'`)).toEqual(['vault-approle-secret-id']);
    expect(ids(`role_id = '${id()}'`)).toEqual([]);
    expect(ids(`client_secret_id = '${id()}'`)).toEqual([]);
  });

  it('takes LangSmith keys in the issued shape only (32 and 10 hex digits)', () => {
    const key = `lsv2_sk_${pick(HEX, 32)}_${pick(HEX, 10)}`;
    expect(scanner.scanText(key, 'notes.md').map((f) => f.ruleId)).toEqual(['langsmith-api-key']);
    expect(scanner.scanText(`${key.slice(0, 20)}z${key.slice(21)}`, 'notes.md')).toEqual([]);
  });

  it('reads a credential name holding an Authorization value or a long token', () => {
    const ids = (text: string) => scanner.scanText(text, 'main.go').map((f) => f.ruleId);
    expect(ids(`apiToken := "Bearer ${pick(URLSAFE.slice(0, 62), 24)}"`)).toEqual(['generic-api-key']);
    // OAuth refresh tokens run to a thousand characters and more.
    expect(ids(`"refresh_token": "1.${pick(URLSAFE, 900)}"`)).toEqual(['generic-api-key']);
  });

  it('reads a password compared with a literal, under a name ending in pass, with symbols in it', () => {
    const value = `${pick('abcdefghijklmnopqrstuvwxyz', 4)}{${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 3)})p\${${pick(HEX, 4)}]`;
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    for (const text of [`if (db_pass !== "${value}") {`, `smtp.pass = "${value}"`, `password === '${value}'`]) {
      expect(ids(text), text).toEqual(['generic-password']);
    }
    for (const text of [
      `const bypass_cache = "${value}"`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, scanned as text
      'password: "${{ secrets.DB_PASSWORD }}"',
      'db_pass: "hashPassword(input)"',
    ]) {
      expect(ids(text), text).toEqual([]);
    }
  });

  it('takes OpenAI project, service-account and admin keys only with the T3BlbkFJ signature', () => {
    const side = () => pick(URLSAFE, 40);
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    for (const kind of ['proj', 'svcacct', 'admin']) {
      expect(ids(`OPENAI_KEY=sk-${kind}-${side()}${['T3Blbk', 'FJ'].join('')}${side()}`)).toContain('openai-api-key');
      // A near miss of the signature, or none at all, is not an OpenAI key.
      expect(ids(`OPENAI_KEY=sk-${kind}-${side()}${['T4Blbk', 'FJ'].join('')}${side()}`)).not.toContain(
        'openai-api-key',
      );
      expect(ids(`OPENAI_KEY=sk-${kind}-${side()}${side()}`)).not.toContain('openai-api-key');
    }
  });

  it('reads a JWT whose signature part is empty or left off (RFC 7519 unsecured JWTs)', () => {
    const b64url = (s: string) => Buffer.from(s).toString('base64url');
    const claims = `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(`{"sub":"${pick(HEX, 12)}","admin":true}`)}`;
    for (const text of [`token: ${claims}.`, `token: ${claims}`]) {
      expect(scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId)).toContain('jwt');
    }
  });

  it('reads a SoftLayer API key in the SOAP or REST endpoint path', () => {
    const key = pick(HEX, 64);
    for (const api of ['soap/v3', 'soap/v3.1', 'rest/v3.1']) {
      expect(
        scanner.scanText(`url = "https://api.softlayer.com/${api}/${key}"`, 'src/app.py').map((f) => f.ruleId),
      ).toEqual(['softlayer-api-key']);
    }
  });

  it('leaves a URL password of one repeated character alone', () => {
    expect(scanner.scanText('API=https://deploy:1111@ci.internal/api', 'src/app.ts')).toEqual([]);
    expect(
      scanner.scanText(`API=https://deploy:${pick(URLSAFE, 12)}@ci.internal/api`, 'src/app.ts').map((f) => f.ruleId),
    ).toEqual(['url-credentials']);
  });

  it("leaves a provider-prefixed value cut short of the provider's format to that provider's rule", () => {
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    const alnum = URLSAFE.slice(0, 62);
    const secret = pick(HEX, 64);
    expect(ids(`gitlab_client_secret: gloas-${secret}`)).toEqual(['gitlab-oauth-app-secret']);
    // The same prefix and half the documented 64 characters: a truncated value, not reported again as generic.
    expect(ids(`gitlab_client_secret: gloas-${secret.slice(0, 32)}`)).toEqual([]);
    // Past the documented 80 characters, or without a provider's prefix: still a generic finding.
    expect(ids(`XAI_API_KEY = "xai-${pick(alnum, 86)}"`)).toEqual(['generic-api-key']);
    expect(ids(`service_api_key = "${pick(alnum, 32)}"`)).toEqual(['generic-api-key']);
    // A file of very many such values gets its first ones checked; the rest stay reported.
    const many = Array.from({ length: 210 }, (_, i) => `client_secret_${i}: gloas-${pick(HEX, 32)}`).join('\n');
    expect(ids(many)).toHaveLength(10);
  });

  it('reads a dotted value as a host name only when it ends in a name of letters and a top-level domain', () => {
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    const random = (n: number) => pick('abcdefghijklmnopqrstuvwxyz0123456789', n);
    expect(ids(`api_key_domain: ${random(4)}-prod-${pick(HEX.slice(0, 10), 2)}.edge-relay.io`)).toEqual([]);
    // Random parts with digits after the last dots: a token, not a host.
    expect(ids(`auth_token = "${'k2m9x7q4'}.${'v3m8x1'}.hz"`)).toEqual(['generic-api-key']);
  });

  it('leaves a password of punctuation only (a mask, not a chosen password) alone', () => {
    expect(scanner.scanText(`password: ',.:-@*?!'`, 'src/app.rb')).toEqual([]);
    expect(scanner.scanText(`password: ',.:-@*?!${pick(HEX, 4)}'`, 'src/app.rb').map((f) => f.ruleId)).toEqual([
      'generic-password',
    ]);
  });

  it('reads a symbol-bearing literal under a secret name, not under a token name or as an interpolation', () => {
    const value = `${pick(URLSAFE.slice(0, 52), 5)}{${pick(HEX, 6)}}(${pick(URLSAFE.slice(0, 52), 5)}`;
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    for (const text of [`webhook_secret: '${value}'`, `if ("${value}" != secret) {`, `client_secret = \`${value}\``]) {
      expect(ids(text), text).toEqual(['generic-quoted-secret']);
    }
    // Issued tokens are URL-safe: a stray `?` in one is not a token of the provider's format.
    expect(ids(`npm_token = '${pick(URLSAFE.slice(0, 62), 12)}?${pick(URLSAFE.slice(0, 62), 20)}'`)).toEqual([]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an interpolation, scanned as text
    expect(ids('signing_secret = "prefix-${env.SIGNING}-v2"')).toEqual([]);
  });

  it('reads a symbol-bearing literal under a password, private-key or API-key name, from either side', () => {
    const value = `${pick(URLSAFE.slice(0, 52), 4)}[${pick(HEX, 5)}>$(${pick(URLSAFE.slice(0, 52), 4)}}`;
    const ids = (text: string) => scanner.scanText(text, 'src/app.ts').map((f) => f.ruleId);
    for (const text of [
      `api_key: \`${value}\``,
      `apiKeyBilling: "${value}"`,
      `if ("${value}" !== password) {`,
      `if ("${value}" === signing_private_key) {`,
      `if (apikey == "${value}") {`,
      `password "${value}";`,
    ]) {
      expect(ids(text), text).toEqual(['generic-quoted-secret']);
    }
    for (const text of [
      // A `?` or `^` is in no issued key: a key mangled on purpose, as test suites do.
      `vendor_api_key = '${pick(URLSAFE.slice(0, 62), 10)}?${pick(URLSAFE.slice(0, 62), 20)}'`,
      `password: "{password}"`,
      `api_key_url: "https://api.internal/v1/keys?scope=${pick(HEX, 8)}"`,
      `private_key "${pick(URLSAFE.slice(0, 52), 16)}';`,
    ]) {
      expect(ids(text), text).toEqual([]);
    }
  });

  it('takes a Tailscale key of a kind the key-prefix page does not list yet, not the bare prefix', () => {
    const ids = (text: string) => scanner.scanText(text, 'notes.md').map((f) => f.ruleId);
    expect(ids(`TS_KEY=tskey-device-${pick(URLSAFE.slice(0, 62), 12)}-${pick(URLSAFE.slice(0, 62), 24)}`)).toEqual([
      'tailscale-key',
    ]);
    expect(ids('a string like tskey-device is not a key')).toEqual([]);
  });

  it('takes a PyPI token only as long as a macaroon with its signature', () => {
    const token = `pypi-AgEIcHlwaS5vcmc${pick(URLSAFE, 160)}`;
    expect(scanner.scanText(token, 'notes.md').map((f) => f.ruleId)).toEqual(['pypi-upload-token']);
    // Cut off before the 32-byte signature field: not a token PyPI accepts.
    expect(scanner.scanText(token.slice(0, 90), 'notes.md').map((f) => f.ruleId)).not.toContain('pypi-upload-token');
  });

  it('reads a long token with zero-byte runs (base64 AAAAAA), not a short value made of them', () => {
    const token = `0.${pick(URLSAFE, 40)}.AgABAAAAAAD--${pick(URLSAFE, 200)}`;
    expect(scanner.scanText(`"refresh_token": "${token}"`, 'src/app.json').map((f) => f.ruleId)).toContain(
      'generic-api-key',
    );
    expect(scanner.scanText('"refresh_token": "rt_aaaaaaaaaaaaaaaa"', 'src/app.json')).toEqual([]);
  });

  it("reads `name - 'value'` (notes, logs, chat) as an assignment only before a quoted value", () => {
    const value = pick(URLSAFE.slice(0, 62), 32);
    const ids = (text: string) => scanner.scanText(text, 'notes.md').map((f) => f.ruleId);
    expect(ids(`billing api token - '${value}'`)).toEqual(['generic-api-key']);
    expect(ids(`the access token - a value the server issues - expires after ${value.length} minutes`)).toEqual([]);
  });

  it('takes a Teams incoming-webhook URL whatever the case of its ids, not one cut short', () => {
    const guid = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 12)}`;
    const url = `https://acme.webhook.office.com/webhookb2/${guid()}@${guid()}/IncomingWebhook/${pick(HEX, 32)}/${guid()}`;
    const ids = (text: string) => scanner.scanText(text, 'src/notify.ts').map((f) => f.ruleId);
    expect(ids(`const hook = "${url}";`)).toEqual(['microsoft-teams-webhook']);
    expect(ids(`const hook = "${url.toUpperCase().replace('HTTPS', 'https')}";`)).toEqual(['microsoft-teams-webhook']);
    expect(ids(`const hook = "${url.slice(0, url.lastIndexOf('/'))}";`)).not.toContain('microsoft-teams-webhook');
  });

  it('reads a Mattermost token quoted right after the name, not prose after the name', () => {
    const token = pick('abcdefghijklmnopqrstuvwxyz0123456789', 26);
    const ids = (text: string) => scanner.scanText(text, 'notes.md').map((f) => f.ruleId);
    expect(ids(`mattermost '${token}'`)).toEqual(['mattermost-access-token']);
    expect(ids(`mattermost token "${token}"`)).toEqual(['mattermost-access-token']);
    expect(ids(`the mattermost plugin reads '${token}' from its settings`)).toEqual([]);
  });

  it('takes an Entra ID refresh token by its shape, without a name, and not the shape cut down', () => {
    const token = `1.A${pick(URLSAFE, 54)}.1.AgABAwEAAAA${pick(URLSAFE, 700)}`;
    const ids = (text: string) => scanner.scanText(text, 'README.md').map((f) => f.ruleId);
    expect(ids(`| AADRefreshToken | Refresh token of the app | ${token} |`)).toEqual(['azure-entra-refresh-token']);
    expect(ids(`body: grant_type=refresh_token&refresh_token=${token}&scope=openid`)).toContain(
      'azure-entra-refresh-token',
    );
    // The client-info part alone, or a body too short to be an encrypted token.
    expect(ids(`| cached | ${token.slice(0, 60)} |`)).toEqual([]);
    expect(ids(`| cached | ${token.slice(0, 120)} |`)).toEqual([]);
  });

  it('takes a GitHub client secret given as the second of a quoted pair after the client ID', () => {
    const secret = pick(HEX, 40);
    const ids = (text: string) => scanner.scanText(text, 'src/auth.py').map((f) => f.ruleId);
    expect(ids(`github = 'Ov23li${pick(URLSAFE.slice(0, 62), 14)}', '${secret}'`)).toEqual([
      'github-oauth-client-pair',
    ]);
    expect(ids(`auth = GitHub("${pick(HEX, 20)}", "${secret}")`)).toEqual(['github-oauth-client-pair']);
    // A commit pair (40 hex after a word that is no client ID) is not one.
    expect(ids(`github = 'compare', '${secret}'`)).toEqual([]);
  });

  it('takes Deno Deploy, Pinecone and Tines credentials by their issued shape, not the shape cut down', () => {
    const alnum = URLSAFE.slice(0, 62);
    const lower = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const ids = (text: string) => scanner.scanText(text, 'deno.json').map((f) => f.ruleId);
    const deno = `ddo_${pick(alnum, 36)}`;
    expect(ids(`"deploy": "deployctl deploy --project=app main.ts --token ${deno}"`)).toEqual(['deno-deploy-token']);
    expect(ids(`"deploy": "deployctl deploy --token ${deno.slice(0, 20)}"`)).toEqual([]);
    const pinecone = `pcsk_${pick(alnum, 6)}_${pick(alnum, 63)}`;
    expect(ids(`primary=${pinecone} secondary=none`)).toEqual(['pinecone-api-key']);
    expect(ids(`prefix=${pinecone.slice(0, 20)}`)).toEqual([]);
    const tines = `https://Acme.tines.com/webhook/${pick(lower, 32)}/${pick(lower, 32)}`;
    expect(ids(`hook: '${tines}'`)).toEqual(['tines-webhook-url']);
    expect(ids(`hook: '${tines.slice(0, tines.lastIndexOf('/'))}'`)).toEqual([]);
  });

  it('takes a Jira or Confluence Data Center token by its encoded id and colon, not any 44 characters', () => {
    const token = Buffer.concat([Buffer.from(`${pick('0123456789', 12)}:`), Buffer.from(pick(HEX, 40), 'hex')]);
    const ids = (text: string) => scanner.scanText(text, 'notes.txt').map((f) => f.ruleId);
    expect(ids(`confluence_prod=${token.toString('base64')}`)).toEqual(['atlassian-data-center-pat']);
    // The same length of base64 whose head is not a numeric id and a colon.
    const other = Buffer.from(pick(HEX, 66), 'hex').toString('base64');
    expect(ids(`confluence_prod=${other}`)).not.toContain('atlassian-data-center-pat');
  });

  it('takes a Langfuse secret key, not its public key or the nil-UUID stand-in', () => {
    const uuid = `${pick(HEX, 8)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 12)}`;
    const ids = (text: string) => scanner.scanText(text, '.env').map((f) => f.ruleId);
    expect(ids(`LANGFUSE_SECRET_KEY=sk-lf-${uuid}`)).toContain('langfuse-secret-key');
    expect(ids(`LANGFUSE_PUBLIC_KEY=pk-lf-${uuid}`)).not.toContain('langfuse-secret-key');
    expect(ids('LANGFUSE_SECRET_KEY=sk-lf-00000000-0000-0000-0000-000000000000')).toEqual([]);
  });

  it('takes CircleCI personal and project tokens in the prefixed format, not the prefix with a short tail', () => {
    const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    const ids = (text: string) => scanner.scanText(text, '.circleci/config.yml').map((f) => f.ruleId);
    for (const prefix of ['CCIPAT_', 'CCIPRJ_']) {
      expect(ids(`token: "${prefix}${pick(base58, 22)}_${pick(HEX, 40)}"`)).toContain('circleci-api-token');
    }
    expect(ids(`token: "CCIPAT_${pick(base58, 22)}_${pick(HEX, 12)}"`)).not.toContain('circleci-api-token');
  });

  it('ignores lock files for the generic rule', () => {
    const text = `"resolved_auth_token": "${pick('abcdefghijklmnopqrstuvwxyz0123456789', 32)}"`;
    expect(scanner.scanText(text, 'web/package-lock.json')).toEqual([]);
    expect(scanner.scanText(text, 'web/config.json').map((f) => f.ruleId)).toEqual(['generic-api-key']);
  });
});
