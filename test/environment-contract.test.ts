import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENV_VARIABLES, type EnvVariable, type ProcessRole, TRANSITIONS } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type ComposeService, dockerfileEnv, readCompose } from './support/compose-environment.ts';
import {
  type ComposeVariable,
  renderConfigurationDoc,
  renderEnvExample,
  renderProcessContract,
  withSection,
} from './support/environment-docs.ts';

/**
 * One environment contract per process, derived from the variables' declarations: the
 * configuration reference, README's per-process table and .env.example are generated from it
 * (`-u` rewrites them), and docker-compose.yml is checked against it.
 */
const root = path.resolve(import.meta.dirname, '..');
const README = path.join(root, 'README.md');
const compose = readCompose();
/** The compose services that run a Pullwright process, and which. */
const SERVICE_ROLE: Record<string, ProcessRole> = { api: 'api', worker: 'worker' };
/** Node's own, set by the images. */
const NOT_OURS = new Set(['NODE_ENV']);

const declared = (name: string): EnvVariable | undefined => ENV_VARIABLES[name];

/** `API_TOKEN_FILE` → `API_TOKEN`: a secret given as a file is the secret. */
function variableOf(key: string): string {
  const base = key.replace(/_FILE$/, '');
  return key.endsWith('_FILE') && declared(base)?.secret ? base : key;
}

/** What the service's process gets: the image's ENV, then compose's `environment`. */
function environmentOf(service: ComposeService): Record<string, string> {
  return { ...(service.build ? dockerfileEnv(service.build.dockerfile) : {}), ...service.environment };
}

const isSet = (env: Record<string, string>, name: string) =>
  name in env || (declared(name)?.secret !== false && `${name}_FILE` in env);

/** The variables compose reads from .env (`${NAME:-default}`), in file order, with who gets them. */
function composeVariables(): ComposeVariable[] {
  const found = new Map<string, ComposeVariable>();
  for (const [service, definition] of Object.entries(compose.services)) {
    for (const value of Object.values(definition.environment ?? {})) {
      for (const [, name = '', fallback = ''] of String(value).matchAll(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g)) {
        const entry = found.get(name) ?? { name, composeDefault: fallback, services: [] };
        if (!entry.services.includes(service)) entry.services.push(service);
        found.set(name, entry);
      }
    }
  }
  return [...found.values()];
}

/**
 * What compose itself reads from .env outside the services' environments — build arguments,
 * build secrets, published ports, resource limits — with compose's default.
 */
function composeSettings(): ComposeVariable[] {
  const passedOn = new Set(composeVariables().map((v) => v.name));
  const found = new Map<string, ComposeVariable>();
  for (const [, name = '', fallback = ''] of readFileSync(path.join(root, 'docker-compose.yml'), 'utf8').matchAll(
    /\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g,
  )) {
    if (!passedOn.has(name) && !found.has(name)) found.set(name, { name, composeDefault: fallback, services: [] });
  }
  return [...found.values()];
}

describe('documents generated from the variables’ declarations', () => {
  it('docs/configuration.md: every variable, its default and meaning, and which process reads or needs it', async () => {
    await expect(renderConfigurationDoc()).toMatchFileSnapshot(path.join(root, 'docs/configuration.md'));
  });

  it('README: the per-process table', async () => {
    const readme = readFileSync(README, 'utf8');
    await expect(withSection(readme, 'process-contract', renderProcessContract())).toMatchFileSnapshot(README);
  });

  it('.env.example: each variable compose passes on, with its meaning and compose’s default', async () => {
    await expect(renderEnvExample(composeVariables(), composeSettings(), ENV_VARIABLES)).toMatchFileSnapshot(
      path.join(root, '.env.example'),
    );
  });
});

describe.each(Object.entries(SERVICE_ROLE))('docker-compose.yml: the %s service', (service, role) => {
  const env = environmentOf(compose.services[service]!);

  it('passes only variables its process reads: nothing another process needs, no secret out of its reach', () => {
    const unread = Object.keys(env)
      .filter((key) => !NOT_OURS.has(key))
      .filter((key) => !declared(variableOf(key))?.readBy.includes(role));
    expect(unread).toEqual([]);
  });

  it('passes every variable its process requires or would warn about, and every secret it reads', () => {
    const missing = Object.entries(ENV_VARIABLES)
      .filter(([, v]) => v.needs[role] !== undefined || (v.secret && v.readBy.includes(role)))
      .filter(([name, v]) => !isSet(env, name) && !(v.needs[role]?.orElse && isSet(env, v.needs[role].orElse)))
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('mounts no secret file of a variable its process never reads', () => {
    const targets = (compose.services[service]!.volumes ?? []).map((v) => v.split(':')[1]!);
    const files = Object.values(compose.services).flatMap((s) =>
      Object.entries(s.environment ?? {}).filter(([key]) => key.endsWith('_FILE') && variableOf(key) !== key),
    );
    const reachable = files
      .filter(([key]) => !declared(variableOf(key))!.readBy.includes(role))
      .filter(([, file]) => targets.some((t) => file === t || file.startsWith(`${t}/`)))
      .map(([key]) => key);
    expect(reachable).toEqual([]);
  });
});

describe('README: the statuses an operation may take', () => {
  it('lists every transition of the state machine, generated from TRANSITIONS', async () => {
    const why: Partial<Record<string, string>> = {
      'running→evaluated': 'an evaluation attempt, graded and never published',
      'awaiting_approval→running': 'a revision',
      'approved→awaiting_approval': 'a push after approval',
      'merging→running': 'a merge conflict, revised',
    };
    const rows = Object.entries(TRANSITIONS)
      .filter(([, to]) => to.length > 0)
      .map(([from, to]) => {
        const targets = to.map((t) => (why[`${from}→${t}`] ? `${t} (${why[`${from}→${t}`]})` : t));
        return `| \`${from}\` | ${targets.join(', ')} |`;
      });
    const finals = Object.entries(TRANSITIONS)
      .filter(([, to]) => to.length === 0)
      .map(([s]) => `\`${s}\``);
    const body = ['| from | to |', '| --- | --- |', ...rows, '', `Final: ${finals.join(', ')}.`].join('\n');
    const readme = readFileSync(README, 'utf8');
    await expect(withSection(readme, 'status-transitions', body)).toMatchFileSnapshot(README);
  });
});
