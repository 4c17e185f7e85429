import { z } from 'zod';

/**
 * The three ways Pullwright runs: `pullwright api`, `pullwright worker`, and `all` (`npm start`:
 * API, worker and dashboard in one process, with generated defaults).
 */
export type ProcessRole = 'api' | 'worker' | 'all';

/** The processes that read a variable: the API's, the worker's, or both (the all-in-one reads both). */
export const READ_BY = {
  api: ['api', 'all'],
  worker: ['worker', 'all'],
  every: ['api', 'worker', 'all'],
  /** `pullwright worker` alone: the all-in-one serves no worker health port. */
  workerAlone: ['worker'],
} as const satisfies Record<string, readonly ProcessRole[]>;

/** What a process started without the variable does: refuse to start, or start and warn. */
export interface Need {
  level: 'required' | 'recommended';
  /** Why this process needs it: ends the start-up message, so it says what breaks. */
  why: string;
  /** Another variable that serves instead (REDIS_CLUSTER_NODES for REDIS_URL). */
  orElse?: string;
}

/**
 * One environment variable, declared once: its type, default, meaning, whether it is a
 * secret, and which processes read or need it. Everything else (the parse, `<NAME>_FILE`,
 * the redaction list, the per-process contract, the docs, .env.example) is derived from it.
 */
export interface EnvVariable<T = unknown> {
  /** Parses the text; an empty value counts as unset (compose passes `${X:-}` as ""). */
  schema: z.ZodType<T>;
  /** One or two sentences: what it is, and the number behind a default. */
  doc: string;
  /** The default as one would write it in the environment; parsed like a set value. */
  default: string | undefined;
  /** How a default that is not a fixed text reads in the docs (`<DATA_DIR>/forge`). */
  defaultDoc: string | undefined;
  /**
   * A secret may come from the file `<NAME>_FILE` names (Docker secrets), is fed to the
   * Redactor, and the sandbox hides that file. `parts` picks the secrets out of a value that
   * holds more than a secret (a URL's password, the tokens of `user:token` pairs).
   */
  secret: false | { parts: (value: T) => readonly (string | undefined)[] };
  readBy: readonly ProcessRole[];
  /** What a process started alone lacks without it (the all-in-one generates what it needs). */
  needs: Partial<Record<ProcessRole, Need>>;
}

interface Declaration<T> {
  doc: string;
  readBy: readonly ProcessRole[];
  /** The whole value is a secret (`true`), or `parts` of it are. */
  secret?: true | { parts: (value: T) => readonly (string | undefined)[] };
  needs?: Partial<Record<ProcessRole, Need>>;
  defaultDoc?: string;
}

const emptyIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const whole = (value: unknown) => [typeof value === 'string' ? value : undefined];

/** A variable with a default: its parsed type is never undefined. */
export function envVariable<S extends z.ZodType>(
  type: S,
  declaration: Declaration<z.output<S>> & { default: string },
): EnvVariable<z.output<S>>;
/** A variable that may be unset. */
export function envVariable<S extends z.ZodType>(
  type: S,
  declaration: Declaration<z.output<S>> & { default?: undefined },
): EnvVariable<z.output<S> | undefined>;
export function envVariable<S extends z.ZodType>(
  type: S,
  declaration: Declaration<z.output<S>> & { default?: string | undefined },
): EnvVariable<z.output<S> | undefined> {
  const inner = declaration.default === undefined ? type.optional() : type.prefault(declaration.default as z.input<S>);
  const { secret } = declaration;
  return {
    schema: z.preprocess(emptyIsUnset, inner) as z.ZodType<z.output<S> | undefined>,
    doc: declaration.doc,
    default: declaration.default,
    defaultDoc: declaration.defaultDoc,
    secret: secret === undefined ? false : secret === true ? { parts: whole } : (secret as EnvVariable['secret']),
    readBy: declaration.readBy,
    needs: declaration.needs ?? {},
  } as EnvVariable<z.output<S> | undefined>;
}
