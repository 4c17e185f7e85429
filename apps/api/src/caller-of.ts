import type { Caller } from '@pullwright/pipeline';
import type { Response } from 'express';
import { principalOf } from './session-auth.ts';

/**
 * Who acts: a signed-in dashboard user is their session (a `user` in the body is ignored, so
 * nobody acts under another name); an API client is the body's `user` (default `api`).
 */
export function callerOf(res: Response, bodyUser: string | undefined): Caller & { source: 'dashboard' | 'api' } {
  const principal = principalOf(res);
  return principal.kind === 'session'
    ? { user: principal.session.user, source: 'dashboard' }
    : { user: bodyUser ?? 'api', source: 'api' };
}
