import { runScanCommand } from '@pullwright/security';

/** `pullwright scan …`: built on its own (dist/scan.js) so it starts fast and needs no server dependencies. */
export function main(argv: string[]): Promise<number> {
  return runScanCommand(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
  });
}
