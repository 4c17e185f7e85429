import { runGit } from '@pullwright/security';

/** One object `git cat-file --batch` found; `missing` for a name it could not resolve. */
type BatchObject = { name: string; oid: string; type: string; content: Buffer } | { name: string; missing: true };

/**
 * Objects by name (`<oid>` or `<commit>:<path>`) in one git process, in request order:
 * `<oid> <type> <size>\n<content>\n` per object found, `<name> missing\n` per name not.
 * Names are one per line, so a path with a newline cannot be asked for.
 */
export async function catFileBatch(dir: string, names: readonly string[]): Promise<BatchObject[]> {
  if (names.length === 0) return [];
  const out = await runGit(dir, ['cat-file', '--batch'], { input: `${names.join('\n')}\n` });
  const objects: BatchObject[] = [];
  let at = 0;
  for (const name of names) {
    const nl = out.indexOf(0x0a, at);
    const header = out.subarray(at, nl).toString('utf8');
    if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
      objects.push({ name, missing: true });
      at = nl + 1;
      continue;
    }
    const [oid, type, size] = header.split(' ');
    const end = nl + 1 + Number(size);
    objects.push({ name, oid: oid!, type: type!, content: out.subarray(nl + 1, end) });
    at = end + 1;
  }
  return objects;
}
