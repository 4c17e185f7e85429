import { z } from 'zod';
import { defineTool, ToolInputError } from './define-tool.ts';

export const runCheckTool = defineTool({
  name: 'run_check',
  description:
    "Run one of the repository's checks (for example test, lint, typecheck, build) in the sandbox and return pass/fail, exit code, duration and the output (first and last parts when long).",
  readOnly: true,
  fileOperation: false,
  input: z.object({ name: z.string().min(1).describe('Check name, e.g. "test"') }),
  async run({ name }, ctx) {
    const names = ctx.checks.names();
    if (!names.includes(name)) {
      throw new ToolInputError(`No check named "${name}". Available: ${names.join(', ') || 'none'}.`);
    }
    const r = await ctx.checks.run(name, ctx.signal);
    const status = r.passed ? 'PASSED' : r.timedOut ? 'TIMED OUT' : 'FAILED';
    const failing = r.failingTests.length ? `\nFailing tests: ${r.failingTests.join('; ')}` : '';
    return `${name}: ${status} (exit ${r.exitCode ?? 'none'}, ${r.durationMs} ms)${failing}\n$ ${r.command}\n${r.output}`;
  },
});
