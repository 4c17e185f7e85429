import { readFileSync } from 'node:fs';
import { PullwrightError } from '../errors.ts';

/**
 * `GITHUB_APP_PRIVATE_KEY` is the PEM itself or a path to the .pem file GitHub hands out.
 * Platforms that take one-line variables store the PEM with literal `\n`; both spellings work.
 */
export function readGitHubPrivateKey(value: string): string {
  const text = value.trim();
  if (text.includes('-----BEGIN')) return text.replace(/\\n/g, '\n');
  let pem: string;
  try {
    pem = readFileSync(text, 'utf8');
  } catch (err) {
    // The path is not secret, the content is: name the path, never echo a value that might be a key.
    throw new PullwrightError(
      'config_invalid',
      `GITHUB_APP_PRIVATE_KEY is neither a PEM key nor a readable file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  if (!pem.includes('-----BEGIN')) {
    throw new PullwrightError('config_invalid', 'GITHUB_APP_PRIVATE_KEY file does not hold a PEM key');
  }
  return pem.trim();
}
