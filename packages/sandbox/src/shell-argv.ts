/**
 * How every repository command line runs: bash with errexit and pipefail, reading no profile
 * or rc file — the shell a CI job gives a step (GitHub Actions' `shell: bash` is
 * `bash --noprofile --norc -eo pipefail {0}`; seed 004 asks for `set -euo pipefail`). Under
 * plain `sh -c`, `npm test | tee test.log` passed when the tests failed, and the PR was signed
 * as verified. Not nounset: CI shells do not set it, and a check that reads an optional
 * variable (`jest $JEST_ARGS`) would fail here while it passes there.
 */
export function shellArgv(command: string): string[] {
  return ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', command];
}
