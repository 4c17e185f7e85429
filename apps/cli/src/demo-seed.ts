import path from 'node:path';
import type { Operation } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { DEMO_DIR } from './embedded-defaults.ts';

const DEMO_REPO = 'demo/sample-slugify';

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
  const { op } = await runtime.store.createOnce('demo-sample-debug', {
    type: 'debug',
    repo: DEMO_REPO,
    baseBranch: 'main',
    description: 'slugify keeps spaces: "Hello Big World" becomes "hello-big world"',
    context: {
      errorText:
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n+ actual - expected\n\n+ 'hello-big world'\n- 'hello-big-world'",
    },
    requester: { source: 'api', user: 'demo' },
  });
  await runtime.queue.add('run', { opId: op.id });
  return op;
}
