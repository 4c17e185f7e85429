import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The unprivileged user every sandboxed command runs as (the `node` user of the official images). */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;

/**
 * The only entries of the host's /etc a check sees, read-only: what the dynamic linker, name
 * resolution, TLS to a registry, MIME and time zone lookups and Debian's /usr/bin symlinks
 * (`alternatives`) need. Everything else stays out — `shadow`, `gshadow`, `ssh/`,
 * `ssl/private`, credential stores, service configs, `npmrc`/`pip.conf` (tokens live there).
 * A denylist would miss the next secret a host adds; this list can only miss a convenience.
 */
const ETC_ALLOWED: readonly string[] = [
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'gai.conf',
  'host.conf',
  'hosts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'magic',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'protocols',
  'services',
  'ssl/certs',
  'ssl/openssl.cnf',
  'terminfo',
  'timezone',
];

let generated: string | undefined;

/**
 * A passwd and group that name only root, the sandbox user and nobody, so `id`, `whoami` and
 * npm's user lookup work without the host's account list. Written once per process, and
 * removed when it exits: a process must not leave a directory in /tmp per start.
 */
function generatedDir(): string {
  if (generated && existsSync(generated)) return generated;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pw-sandbox-etc-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    path.join(dir, 'passwd'),
    `root:x:0:0:root:/nonexistent:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_GID}:sandbox:/tmp/home:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  writeFileSync(path.join(dir, 'group'), `root:x:0:\nsandbox:x:${SANDBOX_GID}:\nnogroup:x:65534:\n`);
  generated = dir;
  return dir;
}

/**
 * bwrap arguments that build the sandbox's /etc. No `resolv.conf`, even for the install step:
 * its names are resolved by the worker's egress proxy, which checks the addresses they give.
 */
export function sandboxEtcArgs(): string[] {
  const args: string[] = [];
  for (const name of ETC_ALLOWED) {
    const host = path.join('/etc', name);
    if (!existsSync(host)) continue;
    args.push('--ro-bind', realpathSync(host), host);
  }
  const dir = generatedDir();
  args.push('--ro-bind', path.join(dir, 'passwd'), '/etc/passwd', '--ro-bind', path.join(dir, 'group'), '/etc/group');
  return args;
}
