#!/usr/bin/env node
// Runs the compiled CLI (apps/cli/dist, built by `npm run build`; `npm ci` runs it as `prepare`).
// `scan` has its own self-contained bundle: it needs none of the server's dependencies.
import { existsSync } from 'node:fs';

const argv = process.argv.slice(2);
const entry = new URL(argv[0] === 'scan' ? '../dist/scan.js' : '../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('pullwright: the CLI is not built; run `npm run build` (npm ci runs it as prepare)\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(argv[0] === 'scan' ? argv.slice(1) : argv);
