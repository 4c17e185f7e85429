import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ComposeService {
  build?: { dockerfile: string; args?: Record<string, string>; secrets?: string[] };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number; resources?: { limits?: Record<string, string> } };
  security_opt?: string[];
  cap_drop?: string[];
  healthcheck?: { test: string[] };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

export function readCompose(): ComposeFile {
  // Merge keys (`<<: *shared-env`) as compose reads them.
  return parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

/** `ENV A=1 B=2` lines of a Dockerfile: the image's environment, under the service's. */
export function dockerfileEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path.join(ROOT, dockerfile), 'utf8').split('\n')) {
    if (!line.startsWith('ENV ')) continue;
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/** Compose interpolation: `${X}`, `${X:-default}`, `${X:?message}` from `vars` (the .env). */
export function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const set = vars[name];
    if (set) return set;
    if (op === '?') throw new Error(`compose needs ${name}: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

/**
 * What changes when a container becomes a local process, and nothing else: service host
 * names become loopback addresses, container paths become directories (named volumes shared
 * between services, everything else private to the instance, the image's /app the checkout),
 * and the listen address is loopback.
 */
export interface Translation {
  hosts: Record<string, string>;
  /** Named volume → its directory on this machine. */
  volumes: Record<string, string>;
  /** This instance's private root: container paths not on a named volume land under it. */
  instanceRoot: string;
}

function mountsOf(service: ComposeService, t: Translation): [target: string, dir: string][] {
  const mounts: [string, string][] = [['/app', ROOT]];
  for (const volume of service.volumes ?? []) {
    const [source = '', target = ''] = volume.split(':');
    const dir = source.startsWith('./') ? path.join(ROOT, source) : t.volumes[source];
    if (!dir) throw new Error(`volume ${source} is not declared`);
    mounts.push([target, dir]);
  }
  return mounts.sort((a, b) => b[0].length - a[0].length);
}

export function localPath(containerPath: string, service: ComposeService, t: Translation): string {
  for (const [target, dir] of mountsOf(service, t)) {
    if (containerPath === target || containerPath.startsWith(`${target}/`)) {
      return path.join(dir, containerPath.slice(target.length));
    }
  }
  const dir = path.join(t.instanceRoot, containerPath);
  mkdirSync(path.dirname(dir), { recursive: true });
  return dir;
}

/** The service's environment (image ENV, then compose `environment`) as a local process gets it. */
export function serviceEnv(
  service: ComposeService,
  vars: Record<string, string>,
  t: Translation,
): Record<string, string> {
  const image = service.build ? dockerfileEnv(service.build.dockerfile) : {};
  const env: Record<string, string> = {};
  for (const [name, raw] of Object.entries({ ...image, ...service.environment })) {
    let value = interpolate(String(raw), vars);
    for (const [host, address] of Object.entries(t.hosts)) {
      value = value.replace(new RegExp(`(//|^)${host}:\\d+`), `$1${address}`);
    }
    if (value.startsWith('/')) value = localPath(value, service, t);
    if (name === 'HOST' && value === '0.0.0.0') value = '127.0.0.1';
    env[name] = value;
  }
  return env;
}

/** The service's command with container paths translated (the one-shot `secrets` service). */
export function serviceCommand(service: ComposeService, t: Translation): string[] {
  return (service.command ?? []).map((arg) => (arg.startsWith('/') ? localPath(arg, service, t) : arg));
}
