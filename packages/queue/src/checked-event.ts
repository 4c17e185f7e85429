import { checkEventData } from '@pullwright/core';

/** Under test (vitest, or NODE_ENV=test) every event written is checked against its schema. */
const CHECKING = Boolean(process.env.VITEST) || process.env.NODE_ENV === 'test';

/**
 * An event's data as it is about to be written: in tests, checked against the vocabulary
 * (core `checkEventData`, which throws on a mismatch), so every whole-system test checks every
 * event it writes; in production written as the compiler already checked it.
 */
export function checkedEvent<D>(type: string, data: D): D {
  if (CHECKING) checkEventData(type, data);
  return data;
}
