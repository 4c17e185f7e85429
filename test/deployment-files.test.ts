import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { interpolate, readCompose } from './support/compose-environment.ts';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('deployment files', () => {
  const compose = readCompose();

  it('docker-compose.yml runs secrets, redis (password, AOF, noeviction), the api and two workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'redis', 'secrets', 'worker']);
    const redisConf = read('docker/redis.conf');
    expect(redisConf).toMatch(/^appendonly yes$/m);
    expect(redisConf).toMatch(/^maxmemory-policy noeviction$/m);
    // The password comes from the secrets volume; the health check has to use it too.
    expect(compose.services.redis!.command).toEqual(
      expect.arrayContaining(['--include', '/run/pullwright/redis.conf']),
    );
    expect(compose.services.redis!.healthcheck!.test.join(' ')).toContain('/run/pullwright/redis-password');
    expect(compose.services.worker).toMatchObject({
      deploy: { replicas: 2 },
      build: { dockerfile: 'Dockerfile.code-worker' },
    });
    expect(compose.services.api).toMatchObject({ build: { dockerfile: 'Dockerfile' } });
    for (const name of ['api', 'worker']) {
      expect(compose.services[name]!.healthcheck!.test.join(' ')).toMatch(/\/readyz/);
    }
  });

  it('the worker runs bubblewrap with a narrowed seccomp profile, no capabilities, and fails closed', () => {
    const worker = compose.services.worker!;
    expect(worker.cap_drop).toEqual(['ALL']);
    expect(worker.security_opt).toEqual([
      'no-new-privileges:true',
      'seccomp=./docker/seccomp-bwrap.json',
      'apparmor=unconfined',
      'systempaths=unconfined',
    ]);
    expect(interpolate(worker.environment!.SANDBOX!, {})).toBe('bubblewrap');
    const profile = JSON.parse(read('docker/seccomp-bwrap.json')) as {
      defaultAction: string;
      syscalls: { names: string[]; action: string }[];
    };
    const refused = profile.syscalls.filter((s) => s.action === 'SCMP_ACT_ERRNO').flatMap((s) => s.names);
    // What bubblewrap needs stays allowed; kernel-wide calls are refused.
    for (const needed of ['clone', 'clone3', 'unshare', 'mount', 'umount2', 'pivot_root', 'setns']) {
      expect(refused).not.toContain(needed);
    }
    for (const dangerous of [
      'init_module',
      'kexec_load',
      'bpf',
      'keyctl',
      'ptrace',
      'perf_event_open',
      'io_uring_setup',
    ]) {
      expect(refused).toContain(dangerous);
    }
  });

  it('the worker image runs as uid 1001 under an init, with git and bubblewrap', () => {
    const dockerfile = read('Dockerfile.code-worker');
    expect(dockerfile).toMatch(/^USER 1001:1001$/m);
    expect(dockerfile).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/);
    expect(dockerfile).toMatch(/apt-get install[^\n]*\bgit\b[^\n]*\bbubblewrap\b/);
    expect(dockerfile).toMatch(/chmod -R a-w \/app/);
    expect(dockerfile).toMatch(/CMD \[[^\]]*"worker"\]/);
    expect(dockerfile).toMatch(/^EXPOSE 3001$/m);
  });

  it('the API image runs the api role as a non-root user, with git for the local forge diffs', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER 1001:1001$/m);
    expect(dockerfile).toMatch(/CMD \[[^\]]*"api"\]/);
    expect(dockerfile).toMatch(/apt-get install[^\n]*\bgit\b/);
  });

  it('railway.toml builds from Dockerfiles and checks readiness', () => {
    const railway = read('railway.toml');
    expect(railway).toMatch(/builder = "DOCKERFILE"/);
    expect(railway).toMatch(/healthcheckPath = "\/readyz"/);
  });

  it('bounds each worker replica, with the same memory ceiling in compose and on Railway', () => {
    const limits = compose.services.worker!.deploy?.resources?.limits ?? {};
    expect(Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, interpolate(String(v), {})]))).toEqual({
      memory: '4g',
      pids: '1024',
      cpus: '2',
    });
    const railway = read('railway.toml').split('[deploy.limitOverride.containers]')[1] ?? '';
    expect(railway).toMatch(new RegExp(`^memoryBytes = ${4 * 1024 ** 3}$`, 'm'));
    // The worker is reached through Redis only: no port of its own on the host.
    expect(compose.services.worker!.ports).toBeUndefined();
    const [published] = compose.services.api!.ports ?? [];
    expect(interpolate(published!, {})).toBe('0.0.0.0:3000:3000');
    expect(interpolate(published!, { API_BIND: '127.0.0.1', API_PORT: '8080' })).toBe('127.0.0.1:8080:3000');
  });

  it('builds both images from one base image, named alike in the Dockerfiles and compose', () => {
    for (const dockerfile of ['Dockerfile', 'Dockerfile.code-worker']) {
      const text = read(dockerfile);
      expect(text, dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
      expect(text.match(/^FROM .*/gm)?.every((line) => /^FROM (\$\{NODE_IMAGE\}|deps)( AS \w+)?$/.test(line))).toBe(
        true,
      );
      // The extra CA is a build secret: mounted for the npm steps, written into no layer.
      expect(text).not.toMatch(/^(COPY|ADD|ENV|ARG) .*(extra_ca|\.crt|\.pem|_CERTS?\b)/im);
      expect(text.match(/--mount=type=secret,id=extra_ca/g)).toHaveLength(2);
    }
    for (const name of ['secrets', 'api', 'worker']) {
      const build = compose.services[name]!.build!;
      expect(interpolate(build.args!.NODE_IMAGE!, {}), name).toBe('node:22-bookworm-slim');
      expect(build.secrets, name).toEqual(['extra_ca']);
    }
    expect(compose.services.redis!.image).toBe('redis:7-bookworm');
  });

  it('.env.example lists every variable the compose file reads from .env', () => {
    const example = read('.env.example');
    const used = new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!));
    for (const name of used) expect(example, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
