import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('deployment files', () => {
  it('docker-compose.yml parses and runs redis (AOF, noeviction), the api and two workers', () => {
    const compose = parse(read('docker-compose.yml')) as { services: Record<string, Record<string, unknown>> };
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'redis', 'worker']);
    const redisConf = read('docker/redis.conf');
    expect(redisConf).toMatch(/^appendonly yes$/m);
    expect(redisConf).toMatch(/^maxmemory-policy noeviction$/m);
    expect(compose.services.worker).toMatchObject({
      deploy: { replicas: 2 },
      build: { dockerfile: 'Dockerfile.code-worker' },
    });
    expect(compose.services.api).toMatchObject({ build: { dockerfile: 'Dockerfile' } });
    const workerEnv = compose.services.worker!.environment as Record<string, string>;
    // The worker never gets the API token or the Slack and webhook secrets.
    expect(Object.keys(workerEnv)).not.toEqual(expect.arrayContaining(['API_TOKEN']));
    expect(Object.keys(workerEnv).filter((k) => k.startsWith('SLACK') || k.includes('WEBHOOK'))).toEqual([]);
  });

  it('the worker image runs as uid 1001 under an init, with git and bubblewrap', () => {
    const dockerfile = read('Dockerfile.code-worker');
    expect(dockerfile).toMatch(/^USER 1001:1001$/m);
    expect(dockerfile).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/);
    expect(dockerfile).toMatch(/apt-get install[^\n]*\bgit\b[^\n]*\bbubblewrap\b/);
    expect(dockerfile).toMatch(/chmod -R a-w \/app/);
    expect(dockerfile).toMatch(/CMD \[[^\]]*"worker"\]/);
  });

  it('the API image runs the api role as a non-root user', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER 1001:1001$/m);
    expect(dockerfile).toMatch(/CMD \[[^\]]*"api"\]/);
  });

  it('railway.toml builds from Dockerfiles', () => {
    expect(read('railway.toml')).toMatch(/builder = "DOCKERFILE"/);
  });
});
