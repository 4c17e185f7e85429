import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Tests that spawn `bin/pullwright.js` run the compiled CLI: build it from the current
 * sources first (esbuild, under a second), so a test never runs a stale dist/.
 */
export default function setup() {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, '../apps/cli/scripts/build.mjs')], {
    stdio: 'inherit',
  });
}
