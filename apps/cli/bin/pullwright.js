#!/usr/bin/env node
// Runs the compiled CLI (apps/cli/dist, built by `npm run build`; `npm ci` runs it as `prepare`).
// `scan` has its own self-contained bundle: it needs none of the server's dependencies; and
// help is answered from the usage texts alone, before the server's modules load.
import { existsSync, readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv[0] === '--version' || argv[0] === '-v') {
  // The package's own manifest: the repository root, or the installed package's root.
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${manifest.version}\n`);
  process.exit(0);
}
const helpEntry = new URL('../dist/help.js', import.meta.url);
if (argv[0] !== 'scan' && existsSync(helpEntry)) {
  const help = (await import(helpEntry.href)).helpFor(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
}
const entry = new URL(argv[0] === 'scan' ? '../dist/scan.js' : '../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('pullwright: the CLI is not built; run `npm run build` (npm ci runs it as prepare)\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(argv[0] === 'scan' ? argv.slice(1) : argv);
