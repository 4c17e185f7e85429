import { describe, expect, it } from 'vitest';
import { NoCommandRunner } from './no-command-runner.ts';

describe('NoCommandRunner (the API alone)', () => {
  it('says it does not sandbox and refuses to run anything rather than run it unsandboxed', async () => {
    const runner = new NoCommandRunner();
    expect(runner).toMatchObject({ name: 'none', sandboxed: false });
    await expect(runner.run()).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringMatching(/runs no repository commands/),
    });
  });
});
