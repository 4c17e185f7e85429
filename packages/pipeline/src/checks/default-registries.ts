import type { RepoFileReader } from './repo-checks.ts';

const PYPI = ['pypi.org', 'files.pythonhosted.org'];

/**
 * The package registries of each ecosystem, by the manifest that says a repository uses it:
 * what the install step may reach when `.pullwright.yml` has no `network.allow`.
 */
const REGISTRIES: readonly (readonly [manifest: string, hosts: readonly string[]])[] = [
  ['package.json', ['registry.npmjs.org', 'registry.yarnpkg.com']],
  ['requirements.txt', PYPI],
  ['pyproject.toml', PYPI],
  ['Pipfile', PYPI],
  ['go.mod', ['proxy.golang.org', 'sum.golang.org']],
  ['Cargo.toml', ['index.crates.io', 'static.crates.io']],
  ['Gemfile', ['rubygems.org', 'index.rubygems.org']],
  ['composer.json', ['repo.packagist.org']],
];

/** The registries of the ecosystems whose manifests the repository has (read from the base commit). */
export async function defaultRegistries(read: RepoFileReader): Promise<string[]> {
  const hosts = new Set<string>();
  for (const [manifest, registries] of REGISTRIES)
    if ((await read(manifest)) !== undefined) for (const host of registries) hosts.add(host);
  return [...hosts];
}
