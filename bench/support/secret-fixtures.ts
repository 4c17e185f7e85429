/**
 * The shared corpus of other secret scanners' published test cases
 * (`../shared/corpora/secret-fixtures.jsonl.gz`, described by the README beside it): read in
 * place, never copied into this repository. Each line is one example: the text a source's
 * detector for `family` must flag (`tp`) or must leave alone (`fp`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

export const SECRET_FIXTURES = path.resolve(import.meta.dirname, '../../../shared/corpora/secret-fixtures.jsonl.gz');

const FixtureLine = z.object({
  source: z.enum(['trufflehog', 'secretlint', 'detect-secrets']),
  family: z.string().min(1),
  kind: z.enum(['tp', 'fp']),
  text: z.string(),
  origin: z.string(),
});
export type SecretFixture = z.infer<typeof FixtureLine>;
export const FIXTURE_SOURCES: readonly SecretFixture['source'][] = FixtureLine.shape.source.options;

/** The corpus, or undefined when `../shared` is not there (a checkout outside the workspace, CI). */
export function loadSecretFixtures(file = SECRET_FIXTURES): SecretFixture[] | undefined {
  if (!existsSync(file)) return undefined;
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  return lines
    .filter((l) => l !== '')
    .map((l, i) => {
      const parsed = FixtureLine.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`${path.basename(file)} line ${i + 1}: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });
}

/**
 * The file name an example is scanned under, as `pullwright scan` would see it: secretlint's
 * fixtures are files whose name some rules read (its GCP rule only reads `.json`, its
 * Kubernetes rule `.yaml`), the other sources' examples are text a test feeds a detector.
 */
export function fixtureFileName(f: SecretFixture): string {
  return f.source === 'secretlint' ? path.posix.basename(f.origin) : 'fixture.txt';
}

/**
 * The high-value families (cloud, forge, chat, payment, model providers, private
 * keys, JWTs, generic API keys), by the family names the sources use. Matched against the
 * family with its source prefix (`@secretlint/secretlint-rule-`) and version suffix removed.
 */
const HIGH_VALUE: ReadonlyArray<[category: string, family: RegExp]> = [
  [
    'model provider',
    /^(?:openai\w*|anthropic|huggingface|cohere|groq|mistral\w*|replicate|perplexity|xai|deepseek|(?:google)?gemini|azure_openai|openrouter)$/i,
  ],
  [
    'cloud',
    /^(?:aws\w*|aws\/.+|azure\w*|azure\w*\/.+|gcp\w*|google(?!gemini)\w*|alibaba|ibm\w*|softlayer\w*|digitalocean\w*|cloudflare\w*|scaleway\w*|vultr\w*|heroku)$/i,
  ],
  ['forge', /^(?:github\w*|gitlab\w*|bitbucket\w*|atlassiandatacenter\/bitbucketdatacenter)$/i],
  ['chat', /^(?:slack\w*|discord\w*|telegram\w*|microsoftteams\w*|mattermost\w*|webex\w*)$/i],
  ['payment', /^(?:stripe\w*|square|squareapp|squareoauth\w*|paypal\w*|braintree\w*|razorpay|plaid\w*)$/i],
  ['private key', /^(?:privatekey\w*|secp256k1-privatekey)$/i],
  ['jwt', /^(?:jwt\w*)$/i],
  ['generic api key', /^(?:generic|keyword)$/i],
];

export function highValueCategory(f: Pick<SecretFixture, 'family'>): string | undefined {
  const family = f.family
    .replace(/^@secretlint\/secretlint-rule-/, '')
    .replace(/\/v\d+$/, '')
    .replace(/Detector$/, '');
  return HIGH_VALUE.find(([, re]) => re.test(family))?.[0];
}
