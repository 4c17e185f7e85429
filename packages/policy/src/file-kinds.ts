import path from 'node:path';

export const FILE_KINDS = ['tests', 'docs', 'source', 'dependencies', 'migrations', 'ci', 'security'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const CI = [
  /^\.github\/(workflows|actions)\//,
  /^\.github\/dependabot\.ya?ml$/,
  /^\.gitlab-ci\.ya?ml$/,
  /^\.circleci\//,
  /^\.buildkite\//,
  /^\.ci\//,
  /^\.travis\.ya?ml$/,
  /^azure-pipelines\.ya?ml$/,
  /(^|\/)Jenkinsfile$/,
  /(^|\/)Dockerfile[^/]*$/,
  /(^|\/)docker-compose[^/]*\.ya?ml$/,
  /(^|\/)railway\.(toml|json)$/,
];

/** Paths whose change widens or narrows who can do what: authentication, secrets, ownership, our own policy. */
const SECURITY = [
  /(^|\/)(auth|oauth|authn|authz|authentication|authorization|security|crypto|permissions?|rbac|acl|secrets?|passwords?|sessions?)(\/|\.[^/]*$|$)/i,
  /(^|\/)CODEOWNERS$/,
  /^\.pullwright\.ya?ml$/,
  /(^|\/)\.gitleaks\.toml$/,
  /(^|\/)\.env[^/]*$/,
  /\.(pem|key|p12|pfx|jks)$/,
];

const MIGRATIONS = [
  /(^|\/)(migrations?|migrate|alembic|flyway|liquibase)\//,
  /\.sql$/,
  /(^|\/)schema\.prisma$/,
  /(^|\/)db\/(schema\.rb|structure\.sql)$/,
];

const MANIFESTS = new Set([
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'Pipfile',
  'Pipfile.lock',
  'pyproject.toml',
  'poetry.lock',
  'uv.lock',
  'go.mod',
  'go.sum',
  'Cargo.toml',
  'Cargo.lock',
  'Gemfile',
  'Gemfile.lock',
  'composer.json',
  'composer.lock',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'gradle.lockfile',
]);

const TESTS = [
  /(^|\/)(test|tests|__tests__|spec|specs|testdata|__snapshots__)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /_test\.go$/,
  /(^|\/)test_[^/]*\.py$/,
  /_test\.py$/,
  /_spec\.rb$/,
  /(^|\/)conftest\.py$/,
];

const DOCS = [
  /\.(md|mdx|markdown|rst|adoc|txt)$/i,
  /(^|\/)docs?\//,
  /(^|\/)(LICENSE|CHANGELOG|AUTHORS|NOTICE|CONTRIBUTING)[^/]*$/,
];

/**
 * What a changed path is, for risk and auto-approval. The order matters: a workflow file is CI
 * even though it is YAML, `requirements.txt` is dependencies even though it is text, and a
 * test under `auth/` is still security-sensitive.
 */
export function fileKind(file: string): FileKind {
  if (CI.some((r) => r.test(file))) return 'ci';
  if (SECURITY.some((r) => r.test(file))) return 'security';
  if (MIGRATIONS.some((r) => r.test(file))) return 'migrations';
  const base = path.posix.basename(file);
  if (MANIFESTS.has(base) || /^requirements[^/]*\.(txt|in)$/.test(base)) return 'dependencies';
  if (TESTS.some((r) => r.test(file))) return 'tests';
  if (DOCS.some((r) => r.test(file))) return 'docs';
  return 'source';
}
