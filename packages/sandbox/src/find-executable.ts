import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The path `name` resolves to on PATH (or itself when it contains a slash), if executable. */
export function findExecutable(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : searchPath
        .split(':')
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
