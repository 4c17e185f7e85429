import path from 'node:path';
import type { LocalForge } from '@pullwright/forge';

export const SAMPLE_DIR = path.resolve(import.meta.dirname, '../../apps/cli/demo/sample-repo');

/** The demo's sample repository (slugify with a failing test), created in a test's local forge. */
export async function createSampleRepo(
  forge: LocalForge,
  repo = 'acme/slugify',
  extra: Record<string, string> = {},
): Promise<string> {
  await forge.createRepository(repo, extra, { fromDir: SAMPLE_DIR });
  return repo;
}
