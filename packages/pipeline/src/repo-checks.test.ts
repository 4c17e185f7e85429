import { describe, expect, it } from 'vitest';
import { detectRepoCommands } from './repo-checks.ts';

const CEILING = 600_000;
const repoOf = (files: Record<string, string>) => (file: string) => Promise.resolve(files[file]);
const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}) =>
  JSON.stringify({ scripts, devDependencies });

describe('detectRepoCommands', () => {
  it('gives install and test 180 s and other checks 60 s by default', async () => {
    const commands = await detectRepoCommands(
      repoOf({
        'package.json': pkg({ lint: 'eslint .', test: 'vitest run' }, { eslint: '9' }),
        'package-lock.json': '{}',
      }),
      CEILING,
    );
    expect(commands).toEqual({
      checks: {
        lint: { command: 'npm run lint', timeoutMs: 60_000 },
        test: { command: 'npm test', timeoutMs: 180_000 },
      },
      install: { command: 'npm ci --no-audit --no-fund', timeoutMs: 180_000 },
      lintFile: 'npx --no-install eslint --no-color {file}',
    });
  });

  it('takes timeout_ms per check from .pullwright.yml, never above CHECK_TIMEOUT_MS', async () => {
    const commands = await detectRepoCommands(
      repoOf({
        '.pullwright.yml': [
          'checks:',
          '  test: { command: "make test", timeout_ms: 900000 }',
          '  lint: { command: "make lint", timeout_ms: 5000 }',
          '  build: make build',
          'install: { command: "make deps", timeout_ms: 240000 }',
        ].join('\n'),
      }),
      CEILING,
    );
    expect(commands.checks).toEqual({
      test: { command: 'make test', timeoutMs: CEILING },
      lint: { command: 'make lint', timeoutMs: 5000 },
      build: { command: 'make build', timeoutMs: 60_000 },
    });
    expect(commands.install).toEqual({ command: 'make deps', timeoutMs: 240_000 });
  });

  it.each([
    ['a check', 'checks: { test: "npm run dev" }', /check "test" cannot run: command refused \(long_running\)/],
    [
      'the install step',
      'checks: { test: "npm test" }\ninstall: "npx nodemon"',
      /the install step cannot run: .*"nodemon" does not exit/,
    ],
    [
      'lint_file',
      'checks: { test: "npm test" }\nlint_file: "npx eslint --watch {file}"',
      /lint_file cannot run: .*"--watch"/,
    ],
  ])('refuses a server or watcher as %s', async (_what, yml, reason) => {
    await expect(detectRepoCommands(repoOf({ '.pullwright.yml': yml }), CEILING)).rejects.toThrow(reason);
  });

  it('names the field of a bad timeout', async () => {
    await expect(
      detectRepoCommands(repoOf({ '.pullwright.yml': 'checks: { test: { command: "x", timeout_ms: 5 } }' }), CEILING),
    ).rejects.toThrow(/\.pullwright\.yml\.checks\.test\.timeout_ms: Too small/);
  });
});
