import { startRedisServer } from '@pullwright/queue';
import { afterEach, describe, expect, it } from 'vitest';
import { createSampleRepo } from './support/sample-repo.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';

describe('Redis outage', () => {
  let sys: TestSystem | undefined;
  afterEach(async () => {
    await sys?.stop().catch(() => undefined);
  });

  it('answers 503 quickly on /readyz and on writes while Redis is down', async () => {
    // A Redis of this test's own: it is stopped mid-test.
    const redis = await startRedisServer();
    sys = await startTestSystem({ env: { REDIS_URL: redis.url }, worker: false });
    const repo = await createSampleRepo(sys.runtime.localForge!);
    expect((await fetch(`${sys.api.url}/readyz`)).status).toBe(200);
    await redis.stop();

    const started = Date.now();
    const ready = await fetch(`${sys.api.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await ready.json()).toMatchObject({ error: { code: 'unavailable', redis: 'down' } });

    const write = await sys.request('POST', '/v1/operations', { type: 'debug', repo, description: 'y' });
    expect(write.status).toBe(503);
    expect(await write.text()).not.toContain('ECONNREFUSED');
  });
});
