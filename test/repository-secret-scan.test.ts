import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { deepScan, SecretScanner } from '@pullwright/security';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * `pullwright scan .` on this repository finds nothing: tests plant credentials drawn at run
 * time (`sampleSecret`) or joined from parts, never as literals, so our own scanner and
 * GitHub's push protection have nothing to report. Only tracked files: a local data
 * directory may hold transcripts with planted tokens.
 */
it('no tracked file holds a credential-shaped literal', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
  const scanner = new SecretScanner();
  const findings = files.flatMap((file) =>
    deepScan(scanner, readFileSync(path.join(ROOT, file)), file).map((f) => `${file}:${f.line} ${f.ruleId}`),
  );
  expect(files.length).toBeGreaterThan(100);
  expect(findings).toEqual([]);
});
