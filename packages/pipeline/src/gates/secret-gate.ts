import { PullwrightError } from '@pullwright/core';
import { describeOutboundFinding, type OutboundFinding, type SecretScanner, scanOutbound } from '@pullwright/security';

class SecretFoundError extends PullwrightError<{ findings: OutboundFinding[] }> {
  constructor(message: string, findings: OutboundFinding[]) {
    super('secret_found', message, { findings });
  }
}

/**
 * Refuses a write that adds a secret, read the way the publish will read it (encoded runs
 * decoded, split pieces joined): findings in the new content that the old content did not
 * have (a fixture the file already held is not the model's doing). The model sees the rule
 * and line, never the value.
 */
export function checkWrite(scanner: SecretScanner, rel: string, before: string | undefined, after: string): void {
  const added = scanOutbound(scanner, {
    channel: 'file',
    where: rel,
    content: after,
    ...(before === undefined ? {} : { before }),
  }).filter((f) => !f.preExisting);
  if (added.length > 0) {
    throw new SecretFoundError(
      `write refused: it would add a secret (${added.map(describeOutboundFinding).join('; ')}). Use an environment variable or a placeholder instead.`,
      added,
    );
  }
}
