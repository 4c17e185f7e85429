import { CONFIG_SECTIONS, type EnvVariable, type ProcessRole } from '@pullwright/core';

/**
 * The documents derived from the variables' declarations (packages/core/src/config/):
 * docs/configuration.md, README's per-process table and .env.example. Rendered here and
 * compared with the files by test/environment-contract.test.ts (`-u` rewrites them).
 */

const ROLES: readonly ProcessRole[] = ['api', 'worker', 'all'];
const ROLE_TITLE: Record<ProcessRole, string> = { api: 'api', worker: 'worker', all: 'all-in-one (`npm start`)' };

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** What one process does with the variable: required, recommended, read, or — (never read). */
function roleCell(variable: EnvVariable, role: ProcessRole): string {
  const need = variable.needs[role];
  if (need) return need.orElse ? `${need.level} (or \`${need.orElse}\`)` : need.level;
  return variable.readBy.includes(role) ? 'read' : '—';
}

const nameCell = (name: string, variable: EnvVariable) => `\`${name}\`${variable.secret ? ' (secret)' : ''}`;

function defaultCell(variable: EnvVariable): string {
  if (variable.default !== undefined) return `\`${variable.default}\``;
  return variable.defaultDoc ?? '—';
}

function processTable(rows: [string, EnvVariable][]): string {
  const lines = [
    `| Variable | ${ROLES.map((r) => ROLE_TITLE[r]).join(' | ')} |`,
    `| --- | ${ROLES.map(() => '---').join(' | ')} |`,
    ...rows.map(([name, v]) => `| ${nameCell(name, v)} | ${ROLES.map((r) => roleCell(v, r)).join(' | ')} |`),
  ];
  return lines.join('\n');
}

const allVariables = (): [string, EnvVariable][] =>
  CONFIG_SECTIONS.flatMap((section) => Object.entries(section.variables) as [string, EnvVariable][]);

const HOW_TO_UPDATE =
  '<!-- Generated from the declarations in packages/core/src/config/ by test/environment-contract.test.ts: edit a declaration, then run `npx vitest run test/environment-contract.test.ts -u`. -->';

/** docs/configuration.md: every variable, which process reads or needs it, its default and meaning. */
export function renderConfigurationDoc(): string {
  const sections = CONFIG_SECTIONS.map((section) => {
    const rows = (Object.entries(section.variables) as [string, EnvVariable][]).map(
      ([name, v]) => `| ${nameCell(name, v)} | ${cell(defaultCell(v))} | ${cell(v.doc)} |`,
    );
    return [`## ${section.title}`, '', '| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
  });
  return `# Configuration

${HOW_TO_UPDATE}

Every variable is read once at start-up: a bad value stops the process with every problem
listed at once, and an empty value counts as unset. A **secret** may be given as a file
instead, \`<NAME>_FILE=/run/secrets/…\` (Docker and compose secrets); its value is masked in
every log line, transcript, PR body and message, and the sandbox hides the file.

## Which process reads what

\`api\` is \`pullwright api\` (\`npm run start:api\`), \`worker\` is \`pullwright worker\`
(\`npm run start:worker\`), and the all-in-one is \`npm start\`, which generates what it lacks.
**required**: the process refuses to start without it, naming it; **recommended**: it starts
and warns; **read**: used when set; **—**: never read (a secret given to a process that never
reads it is warned about at start: it should not hold it).

${processTable(allVariables())}

${sections.join('\n\n')}
`;
}

/** README's table: the variables some process needs, and every secret (who gets which). */
export function renderProcessContract(): string {
  const rows = allVariables().filter(([, v]) => v.secret || Object.keys(v.needs).length > 0);
  return `${HOW_TO_UPDATE}\n\n${processTable(rows)}`;
}

/** Replaces what stands between `<!-- <marker>:start -->` and `<!-- <marker>:end -->`. */
export function withSection(text: string, marker: string, body: string): string {
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no ${start} … ${end} section`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

function comment(text: string, width = 98): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** A variable compose passes on from .env: its name, default there, and the services that get it. */
export interface ComposeVariable {
  name: string;
  composeDefault: string;
  services: string[];
}

/**
 * The meaning of each setting compose itself reads (not passed to a process, so no section
 * declares it): the build, the published port, each worker replica's ceilings.
 */
const COMPOSE_SETTINGS: Record<string, string> = {
  NODE_IMAGE:
    'The base image of both Dockerfiles: a registry mirror, or one `docker/base-images.sh` built (docs/deploying.md).',
  EXTRA_CA_CERT:
    'A CA certificate file npm must trust during the build (a TLS-intercepting proxy); empty: none. A build secret: it stays out of every image.',
  API_BIND: 'The host address the API is published on (`127.0.0.1`: this host only, behind a reverse proxy).',
  API_PORT: 'The host port the API is published on.',
  WORKER_MEMORY: 'Memory ceiling of each worker replica, for the worker and every check it runs (docs/deploying.md).',
  WORKER_PIDS: 'Process ceiling of each worker replica: a fork bomb in a check stops here.',
  WORKER_CPUS: 'CPUs each worker replica may use.',
};

/** .env.example: each variable docker-compose.yml reads from .env, with its meaning, by who gets it. */
export function renderEnvExample(
  variables: ComposeVariable[],
  settings: ComposeVariable[],
  declared: Record<string, EnvVariable>,
): string {
  const groups: [string, (services: string[]) => boolean][] = [
    ['API and workers', (s) => s.includes('api') && s.includes('worker')],
    ['Workers only', (s) => !s.includes('api') && s.includes('worker')],
    ['API only', (s) => s.includes('api') && !s.includes('worker')],
  ];
  const blocks = groups.map(([title, member]) => {
    const lines = [`# --- ${title} ---`];
    for (const v of variables.filter((c) => member(c.services))) {
      const declaration = declared[v.name];
      if (!declaration) throw new Error(`docker-compose.yml passes ${v.name}, which no section declares`);
      lines.push(...comment(declaration.doc), `${v.name}=${v.composeDefault}`);
    }
    return lines.join('\n');
  });
  const own = ['# --- docker compose itself (build, published port, limits) ---'];
  for (const v of settings) {
    const doc = COMPOSE_SETTINGS[v.name];
    if (!doc) throw new Error(`docker-compose.yml reads ${v.name}, which COMPOSE_SETTINGS does not describe`);
    own.push(...comment(doc), `${v.name}=${v.composeDefault}`);
  }
  blocks.push(own.join('\n'));
  return `# docker compose reads this file as .env (cp .env.example .env). Everything is optional:
# with nothing set, the workers replay the bundled demo transcript against the local forge.
# The verification key, Redis password, worker token and API token are generated into the
# \`secrets\` and \`api-secrets\` volumes on first start (docker compose exec api cat
# /run/pullwright-api/api-token). A model key and the GitHub App key go to the API only.
# Generated from docker-compose.yml and the variables' declarations by
# test/environment-contract.test.ts (npx vitest run test/environment-contract.test.ts -u).

${blocks.join('\n\n')}
`;
}
