import { z } from 'zod';
import type { EnvVariable, ProcessRole } from './env-variable.ts';

// biome-ignore lint/suspicious/noExplicitAny: a record of variables of any parsed type
export type EnvVariables = Record<string, EnvVariable<any>>;

/** The parsed values of a section's variables, by name. */
type ParsedEnv<V extends EnvVariables> = { [K in keyof V]: V[K] extends EnvVariable<infer T> ? T : never };

/** One problem with one variable, as a start-up error or warning shows it. */
export interface EnvIssue {
  variable: string;
  reason: string;
}

/**
 * A part of the configuration: its variables, and the section of `Config` they parse into.
 * `schema` parses the whole environment (it reads only its own variables) and its output is
 * the section itself: no second mapping from variables to fields.
 */
export interface EnvSection<V extends EnvVariables = EnvVariables, Out = unknown> {
  title: string;
  variables: V;
  schema: z.ZodType<Out>;
  /** A setting a process starts with but will not work as meant: each names the fix. */
  warnings(section: Out, role: ProcessRole): EnvIssue[];
  /** Secrets this section derives from its variables (a key derived from a token): redacted too. */
  derivedSecrets(section: Out): readonly (string | undefined)[];
}

interface SectionRules<V extends EnvVariables, Out> {
  /** Rules between this section's variables (a provider without its key): refuse to start. */
  check?: (env: ParsedEnv<V>) => EnvIssue[];
  warnings?: (section: Out, role: ProcessRole) => EnvIssue[];
  derivedSecrets?: (section: Out) => readonly (string | undefined)[];
}

export function envSection<V extends EnvVariables, Out>(
  title: string,
  variables: V,
  toConfig: (env: ParsedEnv<V>) => Out,
  rules: SectionRules<V, Out> = {},
): EnvSection<V, Out> {
  const shape = Object.fromEntries(Object.entries(variables).map(([name, v]) => [name, v.schema]));
  const schema = z
    .object(shape)
    .superRefine((env, ctx) => {
      for (const issue of rules.check?.(env as ParsedEnv<V>) ?? []) {
        ctx.addIssue({ code: 'custom', path: [issue.variable], message: issue.reason });
      }
    })
    .transform((env) => toConfig(env as ParsedEnv<V>));
  return {
    title,
    variables,
    schema,
    warnings: rules.warnings ?? (() => []),
    derivedSecrets: rules.derivedSecrets ?? (() => []),
  };
}
