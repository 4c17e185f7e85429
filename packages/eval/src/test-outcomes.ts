import { failingTests, passingTests } from '@pullwright/agent';

/** The tests one run of a repository's `test` check named, sorted. */
export interface TestOutcomes {
  passed: string[];
  failed: string[];
}

/**
 * Which tests passed and failed, by the names the runner printed (node:test/TAP, vitest,
 * jest, mocha, pytest `-rA`, go test `-v`, cargo test: the agent's one parser of those
 * formats). A name reported both ways — two tests of one name in different files — failed.
 * These names are an evaluation task's FAIL_TO_PASS and PASS_TO_PASS.
 */
export function testOutcomes(output: string): TestOutcomes {
  const failed = failingTests(output);
  const failing = new Set(failed);
  return { passed: passingTests(output).filter((t) => !failing.has(t)), failed };
}
