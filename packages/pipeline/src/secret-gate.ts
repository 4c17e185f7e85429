import { PullwrightError } from '@pullwright/core';
import type { SecretFinding, SecretScanner } from '@pullwright/security';

/** A finding as people see it: rule, place and at most the first 4 characters. */
export function describeFinding(f: SecretFinding): string {
  return `${f.ruleId} in ${f.file}:${f.line} (${f.preview})`;
}

export class SecretFoundError extends PullwrightError<{ findings: SecretFinding[] }> {
  constructor(message: string, findings: SecretFinding[]) {
    super('secret_found', message, { findings });
  }
}

const key = (f: SecretFinding) => `${f.ruleId}\u0000${f.preview}`;

/**
 * Refuses a write that adds a secret: findings in the new content that the old content did
 * not have (a fixture the file already held is not the model's doing). The model sees the
 * rule and line, never the value.
 */
export function checkWrite(scanner: SecretScanner, rel: string, before: string | undefined, after: string): void {
  const seen = new Map<string, number>();
  for (const f of before === undefined ? [] : scanner.scanText(before, rel))
    seen.set(key(f), (seen.get(key(f)) ?? 0) + 1);
  const added = scanner.scanText(after, rel).filter((f) => {
    const n = seen.get(key(f)) ?? 0;
    if (n > 0) seen.set(key(f), n - 1);
    return n === 0;
  });
  if (added.length > 0) {
    throw new SecretFoundError(
      `write refused: it would add a secret (${added.map(describeFinding).join('; ')}). Use an environment variable or a placeholder instead.`,
      added,
    );
  }
}
