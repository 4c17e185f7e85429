import path from 'node:path';
import { pathToFileURL } from 'node:url';

const PUBLIC = path.resolve(import.meta.dirname, '../../apps/dashboard/public');

/**
 * A dashboard module (plain JS, served as is) loaded into the test's DOM environment. The
 * path is computed, so TypeScript types it by the interface the test states.
 */
export async function loadCard<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(path.join(PUBLIC, file)).href)) as T;
}

/** The part of a DOM element the card tests use, typed without the DOM library (the project compiles for Node). */
export interface CardElement {
  id: string;
  className: string;
  hidden: boolean;
  textContent: string | null;
  value: string;
  disabled: boolean;
  dataset: Record<string, string | undefined>;
  click(): void;
  getAttribute(name: string): string | null;
  querySelector(selector: string): CardElement | null;
  querySelectorAll(selector: string): CardElement[] & { length: number };
}
