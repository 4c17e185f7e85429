/**
 * Recall and look-alikes left alone, first on data we did not write: the shared corpus of
 * three other secret scanners' published test cases (bench/support/secret-fixtures.ts; read
 * in place from ../shared, skipped with a line saying so where it is absent), per source,
 * for the high-value families, and per family; then, for comparison, on the corpus we
 * generate ourselves.
 *
 * Our own corpus: recall and false-positive rate of the default rules on a held-out set:
 * every rule's documented format (credential-samples.ts) drawn from a seed the per-rule
 * tests do not use, in every syntax (env, YAML, JSON, XML, TOML, shell, Makefile, Go, Java,
 * PHP, Python, TS; code, config and prose for prefixed tokens) and six more the tests never
 * use (escaped JSON, nested YAML, .NET config, query strings…), plus each one base64- and
 * hex-encoded and split over two concatenated lines (found through deepScan, as the publish
 * gate and the CLI scan). Look-alikes: each format with its random part replaced by a
 * placeholder, as a variable reference, its prefix alone, and a set of everyday near misses
 * (documented example keys, digests, UUIDs, truncated tokens, code that names a secret).
 */
import path from 'node:path';
import { DEFAULT_RULES, deepScan, SecretScanner } from '@pullwright/security';
import {
  ALNUM,
  BARE_SYNTAXES,
  CREDENTIAL_SAMPLES,
  HEX,
  KEYED_SYNTAXES,
  lookalikes,
  type Pick,
  sampleText,
  seededPick,
} from '@pullwright/security/credential-samples';
import type { BenchResult } from './run.ts';
import {
  FIXTURE_SOURCES,
  fixtureFileName,
  highValueCategory,
  loadSecretFixtures,
  SECRET_FIXTURES,
  type SecretFixture,
} from './support/secret-fixtures.ts';

interface Case {
  family: string;
  text: string;
  file: string;
}

const camel = (n: string): string => n.toLowerCase().replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Syntaxes the per-rule tests never use: escaped JSON, nested YAML, .NET config, query strings. */
const MORE_KEYED: Array<(name: string, value: string) => string> = [
  (n, v) => `body = "{\\"${camel(n)}\\":\\"${v}\\"}"`,
  (n, v) => `${n.split('_')[0]!.toLowerCase()}:\n  ${n.split('_').slice(1).join('_').toLowerCase() || 'token'}: ${v}`,
  (n, v) => `os.Setenv("${n}", "${v}")`,
  (n, v) => `${n.toLowerCase().replace(/_/g, '.')}=${v}`,
  (n, v) => `<add key="${camel(n)}" value="${v}" />`,
  (n, v) => `https://api.internal/v1?${n.toLowerCase()}=${v}&page=1`,
];
const MORE_BARE: Array<(name: string, value: string) => string> = [
  (_, v) => `Authorization: token ${v}`,
  (_, v) => `https://api.internal/v1?access_token=${v}&page=1`,
  (_, v) => `body = "{\\"token\\":\\"${v}\\"}"`,
  (_, v) => `tokens = [${v}]`,
  (_, v) => `    '${v}',`,
  (_, v) => `# rotated: ${v}`,
];

function positives(pick: Pick): Case[] {
  const out: Case[] = [];
  for (const sample of CREDENTIAL_SAMPLES) {
    const file = sample.file ?? 'src/settings.txt';
    const syntaxes = sample.text ? 1 : sample.name ? KEYED_SYNTAXES.length : BARE_SYNTAXES.length;
    for (let i = 0; i < syntaxes; i++) {
      out.push({ family: sample.family, file, text: sampleText(sample, sample.secret(pick), pick, i) });
    }
    if (!sample.text) {
      for (const make of sample.name ? MORE_KEYED : MORE_BARE) {
        out.push({ family: sample.family, file, text: make(sample.name ?? '', sample.secret(pick)) });
      }
    }
    const secret = sample.secret(pick);
    const plain = sampleText(sample, secret, pick);
    out.push({ family: sample.family, file, text: `blob: "${Buffer.from(plain).toString('base64')}"` });
    out.push({ family: sample.family, file, text: `data = '${Buffer.from(plain).toString('hex')}'` });
    if (!sample.text) {
      const half = Math.floor(secret.length / 2);
      const split = `"${secret.slice(0, half)}" +\n  "${secret.slice(half)}"`;
      out.push({
        family: sample.family,
        file,
        text: sample.name ? `${sample.name} = ${split}` : `const v = ${split};`,
      });
    }
  }
  return out;
}

/** Things that look like credentials and are not. */
function nearMisses(pick: Pick): Case[] {
  const uuid = () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
  const texts: Array<[string, string]> = [
    ['documented-example', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
    ['documented-example', `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLEKEY'}`],
    ['documented-example', 'STRIPE_SECRET_KEY=sk_test_your_key_here'],
    ['placeholder', 'OPENAI_API_KEY=<your-openai-api-key>'],
    ['placeholder', 'api_key: "YOUR_API_KEY_HERE"'],
    ['placeholder', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['placeholder', 'password: "********"'],
    ['placeholder', 'SLACK_BOT_TOKEN=xoxb-your-bot-token'],
    ['reference', 'const apiKey = process.env.OPENAI_API_KEY;'],
    ['reference', 'token = os.environ["GITHUB_TOKEN"]'],
    ['reference', `password: \${{ secrets.DB_PASSWORD }}`],
    ['reference', 'SENTRY_AUTH_TOKEN: "{{ .Values.sentry.token }}"'],
    ['reference', 'export NPM_TOKEN=$(cat ~/.npm-token-path)'],
    ['reference', `DATABASE_URL=postgres://app:\${DB_PASSWORD}@db:5432/app`],
    ['digest', `"integrity": "sha512-${Buffer.from(pick(ALNUM, 64)).toString('base64')}"`],
    ['digest', `commit ${pick(HEX, 40)}`],
    ['digest', `checksum: sha256:${pick(HEX, 64)}`],
    ['digest', `ETag: "${pick(HEX, 32)}"`],
    ['identifier', `request_id: ${uuid()}`],
    ['identifier', `<li key="${uuid()}">`],
    ['identifier', `"correlationKey": "${uuid()}"`],
    ['identifier', 'tokenizer_config_name = "bert_base_uncased_v2"'],
    ['identifier', 'apiVersion: "2023-10-16.acacia"'],
    ['identifier', 'const secretaryName = "Jane Doe";'],
    ['truncated', `const t = "ghp_${pick(ALNUM, 20)}";`],
    ['truncated', `const k = "AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 8)}";`],
    ['truncated', 'const prefix = "sk-proj-";'],
    ['code', 'password = hash(password, salt)'],
    ['code', 'const token = await getToken(scope);'],
    ['code', 'interface Props { apiKey: string; }'],
    ['code', 'if (!secret) throw new Error("missing secret");'],
    ['code', 'curl -u "$USER:$PASSWORD" https://ci.internal/api'],
    ['code', 'curl -H "Authorization: Bearer $TOKEN" https://api.internal/v1'],
    ['code', 'Anthropic.CMEKKeyDisabledError = shared_1.CMEKKeyDisabledError;'],
    ['code', 'export type OAuth2Client = OldOAuth2Client | CurrentOAuth2Client;'],
    ['code', 'error(accessExpression, Diagnostics.Type_0_cannot_be_used_to_index_type_1);'],
    ['code', 'this.socks5ChosenAuthType = constants_1.Socks5Auth.UserPass;'],
    ['code', "PWD: '/Users/maciej',"],
    ['code', 'node app.js | pino-http-send -u http://localhost:8080/logs'],
    ['data', `background: #${pick(HEX, 6)}; color: #${pick(HEX, 6)};`],
    [
      'data',
      `<img src="data:image/png;base64,${Buffer.from(Array.from({ length: 96 }, (_, i) => (i * 53) % 256)).toString('base64')}">`,
    ],
    ['url', 'see https://docs.example.com/auth/tokens#rotate'],
    ['url', 'git clone https://git@github.com/acme/app.git'],
  ];
  return texts.map(([family, text]) => ({ family: `near-miss: ${family}`, text, file: 'src/app.ts' }));
}

const pct = (hit: number, total: number): number => (total === 0 ? 100 : Number(((100 * hit) / total).toFixed(1)));

/** Hits and totals. */
interface Tally {
  tp: number;
  caught: number;
  fp: number;
  leftAlone: number;
}
const emptyTally = (): Tally => ({ tp: 0, caught: 0, fp: 0, leftAlone: 0 });
function countFixture(t: Tally, f: SecretFixture, flagged: boolean): void {
  if (f.kind === 'tp') {
    t.tp++;
    if (flagged) t.caught++;
  } else {
    t.fp++;
    if (!flagged) t.leftAlone++;
  }
}

/**
 * The shared corpus, scanned as `pullwright scan` scans one file per example (deepScan):
 * per source, recall, recall on the high-value families, look-alikes left alone; then every
 * family that is not all right, by source.
 */
function sharedCorpus(scanner: SecretScanner, smoke: boolean): BenchResult[] {
  const all = loadSecretFixtures();
  if (!all) {
    const where = path.relative(process.cwd(), SECRET_FIXTURES);
    return [
      {
        name: `shared corpus: skipped, ${where} is not there (it lives beside the repository)`,
        value: 0,
        unit: 'cases',
      },
    ];
  }
  // Smoke: every eighth case, still every source.
  const cases = smoke ? all.filter((_, i) => i % 8 === 0) : all;
  const bySource = new Map<string, Tally>();
  const highValue = new Map<string, Tally>();
  const byFamily = new Map<string, Tally>();
  const byCategory = new Map<string, Tally>();
  for (const f of cases) {
    const flagged = deepScan(scanner, f.text, fixtureFileName(f)).length > 0;
    const category = highValueCategory(f);
    const get = (m: Map<string, Tally>, k: string): Tally => m.get(k) ?? m.set(k, emptyTally()).get(k)!;
    countFixture(get(bySource, f.source), f, flagged);
    countFixture(get(byFamily, `${f.source} ${f.family}`), f, flagged);
    if (category) {
      countFixture(get(highValue, f.source), f, flagged);
      countFixture(get(byCategory, `${f.source} ${category}`), f, flagged);
    }
  }
  const rows: BenchResult[] = [
    { name: `shared corpus: ${cases.length} cases${smoke ? ' (every 8th)' : ''}`, value: cases.length, unit: 'cases' },
  ];
  for (const source of FIXTURE_SOURCES) {
    const t = bySource.get(source) ?? emptyTally();
    const hv = highValue.get(source) ?? emptyTally();
    rows.push(
      { name: `${source}: recall (${t.caught}/${t.tp})`, value: pct(t.caught, t.tp), unit: '%', target: '>= 95 %' },
      {
        name: `${source}: high-value recall (${hv.caught}/${hv.tp})`,
        value: pct(hv.caught, hv.tp),
        unit: '%',
        target: '100 %',
      },
      {
        name: `${source}: look-alikes left alone (${t.leftAlone}/${t.fp})`,
        value: pct(t.leftAlone, t.fp),
        unit: '%',
        target: '>= 95 %',
      },
    );
  }
  rows.push(...labelsAndRules(cases, scanner));
  for (const [key, t] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    rows.push({ name: `  high-value ${key}: recall (${t.caught}/${t.tp})`, value: pct(t.caught, t.tp), unit: '%' });
  }
  const imperfect = [...byFamily].filter(([, t]) => t.caught < t.tp || t.leftAlone < t.fp);
  for (const [key, t] of imperfect.sort(([a], [b]) => a.localeCompare(b))) {
    rows.push({
      name: `  family ${key}: caught ${t.caught}/${t.tp}, left alone ${t.leftAlone}/${t.fp}`,
      value: pct(t.caught + t.leftAlone, t.tp + t.fp),
      unit: '% right',
    });
  }
  rows.push({
    name: `families all right (of ${byFamily.size})`,
    value: byFamily.size - imperfect.length,
    unit: 'families',
  });
  return rows;
}

/**
 * Where the sources' labels and our rules meet, per source: which rules catch the true cases
 * (a provider's rule, or only a generic key-assignment rule), which rules flag the
 * look-alikes, and both goals with the generic rules left out. The labels are per detector
 * (the corpus README): a value a provider detector rejects by its own length table, or
 * accepts only beside a companion ID, is "leave alone" there, and to a scanner without that
 * table it is the same `API_KEY=<random>` it must flag elsewhere. So for each look-alike only
 * a generic rule flags, the value is compared with the values the same family's true cases
 * hold: the very same value, or one of its length and alphabet.
 */
function labelsAndRules(cases: SecretFixture[], scanner: SecretScanner): BenchResult[] {
  const specific = scanner.specific();
  const valuesOf = (f: SecretFixture): string[] =>
    scanner.spans(f.text, fixtureFileName(f)).map((s) => f.text.slice(s.start, s.end));
  const alphabet = (v: string): string =>
    [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].map((re) => (re.test(v) ? '1' : '0')).join('');
  const rows: BenchResult[] = [];
  for (const source of FIXTURE_SOURCES) {
    const t = { tp: 0, provider: 0, genericOnly: 0, missed: 0, fp: 0, fpProvider: 0, fpGenericOnly: 0 };
    const trueValues = new Map<string, Set<string>>();
    const genericLookalikes: SecretFixture[] = [];
    for (const f of cases.filter((c) => c.source === source)) {
      const file = fixtureFileName(f);
      const flagged = deepScan(scanner, f.text, file).length > 0;
      const byProvider = flagged && deepScan(specific, f.text, file).length > 0;
      if (f.kind === 'tp') {
        t.tp++;
        if (byProvider) t.provider++;
        else if (flagged) t.genericOnly++;
        else t.missed++;
        const values = trueValues.get(f.family) ?? trueValues.set(f.family, new Set()).get(f.family)!;
        for (const v of valuesOf(f)) values.add(v);
      } else {
        t.fp++;
        if (byProvider) t.fpProvider++;
        else if (flagged) genericLookalikes.push(f);
      }
    }
    t.fpGenericOnly = genericLookalikes.length;
    let sameValue = 0;
    let sameShape = 0;
    for (const f of genericLookalikes) {
      const truths = [...(trueValues.get(f.family) ?? [])];
      const values = valuesOf(f);
      if (values.some((v) => truths.includes(v))) sameValue++;
      else if (values.some((v) => truths.some((w) => w.length === v.length && alphabet(w) === alphabet(v))))
        sameShape++;
    }
    rows.push(
      {
        name: `  ${source}: true cases caught by a provider rule ${t.provider}, only by a generic rule ${t.genericOnly}, missed ${t.missed}`,
        value: t.tp,
        unit: 'cases',
      },
      {
        name: `  ${source}: look-alikes flagged by a provider rule ${t.fpProvider}, only by a generic rule ${t.fpGenericOnly} (value also a true case's of that family ${sameValue}, of a true value's length and alphabet ${sameShape})`,
        value: t.fp,
        unit: 'cases',
      },
      {
        name: `  ${source}: without the generic rules, recall ${pct(t.provider, t.tp)} % and look-alikes left alone ${pct(t.fp - t.fpProvider, t.fp)} %`,
        value: pct(t.provider, t.tp),
        unit: '%',
      },
    );
  }
  return rows;
}

export default async function scannerRecallBench(opts: { smoke: boolean }) {
  const pick = seededPick(90_210);
  const scanner = new SecretScanner();
  const shared = sharedCorpus(scanner, opts.smoke);
  const tally = new Map<string, { hit: number; total: number }>();
  const count = (key: string, hit: boolean) => {
    const t = tally.get(key) ?? { hit: 0, total: 0 };
    t.total++;
    if (hit) t.hit++;
    tally.set(key, t);
  };
  let caught = 0;
  const pos = positives(pick);
  for (const c of pos) {
    const hit = deepScan(scanner, c.text, c.file).length > 0;
    if (hit) caught++;
    count(`recall: ${c.family}`, hit);
  }
  const neg: Case[] = [...nearMisses(pick)];
  for (const sample of CREDENTIAL_SAMPLES) {
    for (const text of lookalikes(sample, sample.secret(pick), pick)) {
      neg.push({ family: sample.family, text, file: sample.file ?? 'src/settings.txt' });
    }
  }
  let leftAlone = 0;
  for (const c of neg) {
    const clean = deepScan(scanner, c.text, c.file).length === 0;
    if (clean) leftAlone++;
    count(`look-alikes left alone: ${c.family.startsWith('near-miss') ? c.family : 'placeholders'}`, clean);
  }
  const families = new Set(CREDENTIAL_SAMPLES.map((s) => s.family));
  const rows = [...tally.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, t]) => ({
      name: `${name} (${t.hit}/${t.total})`,
      value: Number(((100 * t.hit) / t.total).toFixed(1)),
      unit: '%',
    }));
  return [
    ...shared,
    ...rows,
    {
      name: 'rules / provider families covered',
      value: DEFAULT_RULES.rules.length,
      unit: `rules, ${families.size} families`,
    },
    {
      name: `generator: credentials caught (${caught}/${pos.length})`,
      value: Number(((100 * caught) / pos.length).toFixed(2)),
      unit: '%',
      target: '>= 98 %',
    },
    {
      name: `generator: look-alikes left alone (${leftAlone}/${neg.length})`,
      value: Number(((100 * leftAlone) / neg.length).toFixed(2)),
      unit: '%',
      target: '>= 90 %',
    },
  ];
}
