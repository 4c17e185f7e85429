/**
 * Errors carry a stable `code` so one switch (see `errorOutcome`) decides what happens:
 * answer 4xx, fail the operation with a reason, or retry the job.
 */
export type ErrorCode =
  | 'config_invalid'
  | 'validation_failed'
  | 'not_found'
  | 'invalid_transition'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'check_failed'
  | 'agent_failed'
  | 'budget_exhausted'
  | 'cancelled'
  | 'git_failed'
  | 'forge_failed'
  | 'path_refused'
  | 'secret_found'
  | 'unavailable';

export class PullwrightError<C extends Record<string, unknown> = Record<string, unknown>> extends Error {
  readonly code: ErrorCode;
  readonly context: C;

  constructor(code: ErrorCode, message: string, context: C = {} as C, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.context = context;
  }
}

export interface FieldIssue {
  field: string;
  reason: string;
}

/** Bad input: every offending field with the reason, so a caller can fix all of them at once. */
export class ValidationError extends PullwrightError<{ issues: FieldIssue[] }> {
  constructor(message: string, issues: FieldIssue[]) {
    super('validation_failed', message, { issues });
  }
}

export class NotFoundError extends PullwrightError<{ what: string; id: string }> {
  constructor(what: string, id: string) {
    super('not_found', `${what} ${id} not found`, { what, id });
  }
}

/** What the system does with an error: the single place the mapping lives. */
type ErrorOutcome = { kind: 'http'; status: number } | { kind: 'fail_operation' } | { kind: 'retry' };

export function errorOutcome(code: ErrorCode): ErrorOutcome {
  switch (code) {
    case 'validation_failed':
    case 'config_invalid':
      return { kind: 'http', status: 400 };
    case 'unauthorized':
      return { kind: 'http', status: 401 };
    case 'forbidden':
      return { kind: 'http', status: 403 };
    case 'not_found':
      return { kind: 'http', status: 404 };
    case 'invalid_transition':
    case 'conflict':
      return { kind: 'http', status: 409 };
    case 'unavailable':
      return { kind: 'retry' };
    case 'check_failed':
    case 'agent_failed':
    case 'budget_exhausted':
    case 'cancelled':
    case 'git_failed':
    case 'forge_failed':
    case 'path_refused':
    case 'secret_found':
      return { kind: 'fail_operation' };
  }
}

export function isPullwrightError(err: unknown): err is PullwrightError {
  return err instanceof PullwrightError;
}
