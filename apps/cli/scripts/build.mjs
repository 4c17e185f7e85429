// Compiles the CLI to plain JavaScript (esbuild's JS API), so `pullwright` runs on Node with
// no TypeScript loader. Run by the root `prepare` script: `npm ci` / `npm install` build it.
//
//   dist/scan.js   `pullwright scan`: self-contained (every dependency bundled), so it runs
//                  from an installed package (`npx pullwright scan`) that has no node_modules
//                  of its own beyond this one.
//   dist/help.js   `pullwright [<command>] --help`: the usage texts alone, so help is instant.
//   dist/main.js   every command (start, api, worker, demo, scan…): @pullwright/* packages
//                  bundled, third-party packages left to node_modules (native add-ons and
//                  optional requires in ioredis, dockerode, pino do not bundle cleanly).
//                  Split: what a command imports with import() is a chunk loaded only then,
//                  so the configuration is checked before the server's modules load.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(cliDir, 'dist');

/**
 * Modules find their assets (Lua scripts, the rules TOML, the dashboard, the demo repo)
 * next to themselves with `import.meta.url`. In a bundle that would name the bundle, so each
 * module's `import.meta.url` becomes its source file's URL, computed relative to the bundle
 * at run time: the assets are read from the sources, and a moved checkout still works.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const relative = path.relative(outdir, args.path).split(path.sep).join('/');
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
        loader: 'ts',
      };
    });
  },
};

/** Third-party packages stay imports (resolved from node_modules at run time). */
const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@pullwright/') || args.path.startsWith('node:')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir,
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require(); ESM output needs one in scope.
  banner: {
    js: "import { createRequire as __pwRequire } from 'node:module'; const require = __pwRequire(import.meta.url);",
  },
};

// Chunk names carry a hash: a rebuild must not leave the last build's chunks beside the new ones.
await rm(outdir, { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: { scan: path.join(cliDir, 'src/scan-entry.ts') }, plugins: [sourceUrls] }),
  build({ ...common, entryPoints: { help: path.join(cliDir, 'src/help.ts') } }),
  build({
    ...common,
    entryPoints: { main: path.join(cliDir, 'src/main.ts') },
    splitting: true,
    // Beside main.js: the source-URL rewrite above is relative to this directory.
    chunkNames: 'chunk-[hash]',
    plugins: [sourceUrls, externalThirdParty],
  }),
]);
