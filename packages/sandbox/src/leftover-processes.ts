import { spawnSync } from 'node:child_process';

/** For tests: host processes whose command line contains `marker` (pgrep -af), one per line. */
export function leftoverProcesses(marker: string): string {
  const result = spawnSync('pgrep', ['-af', marker], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .filter((line) => line && !line.includes('pgrep'))
    .join('\n');
}
