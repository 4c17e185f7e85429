/** A lock as stored: one string "<token> <since ms> <opId>" (see acquire-files-n.lua). */
interface LockValue {
  token: number;
  since: number;
  opId: string;
}

const VALUE = /^(\d+) (\d+) ([\s\S]*)$/;

/** Null for a missing key; a value of another shape is not one of our locks either. */
export function parseLockValue(value: string | null): LockValue | null {
  const match = value === null ? null : VALUE.exec(value);
  if (!match) return null;
  return { token: Number(match[1]), since: Number(match[2]), opId: match[3]! };
}
