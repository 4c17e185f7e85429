import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli-process.ts';

describe('npm run demo', () => {
  // The demo's temporary DATA_DIR is made under TMPDIR: a private one shows what it leaves behind.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'pw-demo-tmp-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('merges the sample operation, prints a timeline with no undefined in it, and removes its temporary directory', async () => {
    const demo = spawnCli(['demo'], { TMPDIR: tmp });
    const { code } = await demo.exited;
    expect(code, demo.output()).toBe(0);
    const out = demo.stdout();
    expect(out).toMatch(/^operation \w+: debug on demo\/sample-slugify$/m);
    // One line per event (core describeEvent): the base's red check, the evidence, the merge.
    expect(out).toMatch(/s {2}Base branch( \(cached\))?: test failing$/m);
    expect(out).toMatch(/s {2}Reproduced: \d+ tests? failing before, passing after$/m);
    expect(out).toMatch(/s {2}Merged as [0-9a-f]{7}/m);
    expect(out).not.toMatch(/undefined/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
