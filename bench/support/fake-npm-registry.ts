import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How many packages, and how much each weighs: a dev toolchain is ~200 packages (mocha + eslint: ~230). */
interface RegistryShape {
  packages: number;
  /** Source files in each package, beside its index.js. */
  filesPerPackage: number;
  bytesPerFile: number;
}

export const DEV_TOOLCHAIN: RegistryShape = { packages: 220, filesPerPackage: 12, bytesPerFile: 2048 };

/** The name of package `i`: `bench-dev-0` is the root of the tree; `i` depends on `2i+1` and `2i+2`. */
export const packageName = (i: number) => `bench-dev-${i}`;

interface Published {
  packument: string;
  tarball: Buffer;
}

interface FakeNpmRegistry {
  url: string;
  close(): Promise<void>;
}

/**
 * A local npm registry for the benchmarks (no network): packuments and tarballs of a generated
 * dependency tree, made in the bench's setup with `tar`. npm talks to it as to any registry —
 * resolving into a lock file, `npm ci` from the lock file's `resolved` URLs with its integrity.
 */
export async function startFakeNpmRegistry(root: string, shape: RegistryShape): Promise<FakeNpmRegistry> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const published = new Map<string, Published>();
  const names = Array.from({ length: shape.packages }, (_, i) => i);
  // A few at a time: 2 cores, shared.
  for (let start = 0; start < names.length; start += 8)
    await Promise.all(
      names.slice(start, start + 8).map(async (i) => published.set(packageName(i), await pack(root, url, i, shape))),
    );
  server.on('request', (req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
    const tgz = name.match(/^([^/]+)\/-\/[^/]+\.tgz$/);
    const entry = published.get(tgz ? tgz[1]! : name);
    if (!entry) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    if (tgz) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(entry.tarball);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(entry.packument);
  });
  return {
    url,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function pack(root: string, url: string, i: number, shape: RegistryShape): Promise<Published> {
  const name = packageName(i);
  const children = [2 * i + 1, 2 * i + 2].filter((c) => c < shape.packages).map(packageName);
  const dependencies = Object.fromEntries(children.map((c) => [c, '^1.0.0']));
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'package', 'lib'), { recursive: true });
  const manifest = { name, version: '1.0.0', type: 'module', main: 'index.js', dependencies };
  await writeFile(path.join(dir, 'package', 'package.json'), JSON.stringify(manifest, null, 2));
  await writeFile(
    path.join(dir, 'package', 'index.js'),
    [...children.map((c, k) => `import * as child${k} from '${c}';`), `export const name = '${name}';`, ''].join('\n'),
  );
  const filler = `export const part = '${name}';\n${'// generated filler of a dev-tool source file\n'.repeat(Math.ceil(shape.bytesPerFile / 46))}`;
  for (let f = 0; f < shape.filesPerPackage; f++)
    await writeFile(path.join(dir, 'package', 'lib', `part-${f}.js`), filler);
  const file = path.join(dir, `${name}-1.0.0.tgz`);
  await run('tar', ['-czf', file, '-C', dir, 'package']);
  const tarball = await readFile(file);
  await rm(dir, { recursive: true, force: true });
  const version = {
    ...manifest,
    dist: {
      tarball: `${url}/${name}/-/${name}-1.0.0.tgz`,
      shasum: createHash('sha1').update(tarball).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    },
  };
  const packument = JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } });
  return { packument, tarball };
}
