import { type FieldIssue, ValidationError } from '@pullwright/core';
import type { z } from 'zod';

/**
 * A policy file that cannot be used, naming each field and why (`.pullwright.yml.path_rules.0.required:
 * must be at least 1`). The pipeline fails the operation at claim time with this message.
 */
export class PolicyFileError extends ValidationError {
  readonly file: string;

  constructor(file: string, issues: FieldIssue[]) {
    super(`${file} is invalid: ${issues.map((i) => `${i.field}: ${i.reason}`).join('; ')}`, issues);
    this.file = file;
  }

  static fromZod(file: string, error: z.ZodError): PolicyFileError {
    const field = (path: PropertyKey[]) => [file, ...path.map(String)].join('.');
    return new PolicyFileError(
      file,
      error.issues.flatMap((i) =>
        i.code === 'unrecognized_keys'
          ? i.keys.map((k) => ({ field: field([...i.path, k]), reason: 'unknown field' }))
          : [{ field: field(i.path), reason: i.message }],
      ),
    );
  }
}
