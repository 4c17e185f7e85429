import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { PolicyFileError } from './policy-file-error.ts';
import { RepoPolicyFile, ServicePolicyFile } from './policy-schema.ts';

function parseYamlText(text: string, file: string): unknown {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 50 }) ?? {};
  } catch (err) {
    throw new PolicyFileError(file, [{ field: file, reason: `not valid YAML: ${(err as Error).message}` }]);
  }
  if (typeof doc !== 'object' || Array.isArray(doc) || doc === null)
    throw new PolicyFileError(file, [{ field: file, reason: 'must be a mapping of keys' }]);
  return doc;
}

/**
 * `.pullwright.yml` text from the target repository (as the base commit has it); throws
 * `PolicyFileError` naming every bad field. The one parse of the file: policy keys and check
 * commands both come from it.
 */
export function parseRepoPolicy(text: string, file = '.pullwright.yml'): RepoPolicyFile {
  const parsed = RepoPolicyFile.safeParse(parseYamlText(text, file));
  if (!parsed.success) throw PolicyFileError.fromZod(file, parsed.error);
  return parsed.data;
}

export function parseServicePolicy(text: string, file = 'POLICY_FILE'): ServicePolicyFile {
  const parsed = ServicePolicyFile.safeParse(parseYamlText(text, file));
  if (!parsed.success) throw PolicyFileError.fromZod(file, parsed.error);
  return parsed.data;
}

/** The service policy from `POLICY_FILE`, or the built-in defaults when none is configured. */
export function loadServicePolicy(file: string | undefined): ServicePolicyFile {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyFileError('POLICY_FILE', [
      { field: 'POLICY_FILE', reason: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` },
    ]);
  }
  return parseServicePolicy(text, 'POLICY_FILE');
}
