import path from 'node:path';
import type { Operation } from '@pullwright/core';
import { DEMO_REPO, DEMO_REQUEST, type Runtime } from '@pullwright/pipeline';
import { DEMO_DIR } from './embedded-defaults.ts';

/**
 * The first-run demo: a sample repository with a failing test in the local forge and one
 * /debug operation played by the bundled transcript. Idempotent: a restart finds both.
 */
export async function seedDemo(runtime: Runtime): Promise<Operation> {
  const forge = runtime.localForge;
  if (!forge) throw new Error('the demo needs the local forge');
  if (!forge.hasRepository(DEMO_REPO)) {
    await forge.createRepository(DEMO_REPO, {}, { fromDir: path.join(DEMO_DIR, 'sample-repo') });
  }
  // Straight to the store: in demo mode the request path refuses every new request but this one.
  const { op } = await runtime.store.createOnce('demo-sample-debug', DEMO_REQUEST);
  await runtime.queue.add('run', { opId: op.id });
  return op;
}
