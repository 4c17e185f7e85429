import { type Action, PullwrightError, type Role } from '@pullwright/core';
import type { Identity } from './identity-directory.ts';
import { DEFAULT_PERMISSIONS } from './merge-policies.ts';
import { roleAtLeast } from './roles.ts';

interface AuthorizeContext {
  /** Minimum role per action from the effective policy; the defaults otherwise. */
  permissions?: Readonly<Record<Action, Role>>;
  /** Identity id of the operation's requester: they may cancel or withdraw their own request. */
  requesterId?: string;
}

type Authorization =
  | { allowed: true; identity: Identity }
  | { allowed: false; identity: Identity; missingRole: Role; reason: string };

const VERBS: Record<Action, string> = {
  request: 'request operations',
  revise: 'send an operation back for revision',
  approve: 'approve',
  reject: 'reject',
  cancel: 'cancel',
  merge: 'merge',
  deploy: 'deploy',
};

/** Actions the requester may take on their own operation whatever their role. */
const OWN_OPERATION: ReadonlySet<Action> = new Set(['cancel', 'reject']);

/**
 * The one authorization check every entry point (REST, dashboard, Slack, GitHub) goes
 * through. A refusal names the role that is missing, so the person knows whom to ask.
 */
export function authorize(identity: Identity, action: Action, context: AuthorizeContext = {}): Authorization {
  const minimum = context.permissions?.[action] ?? DEFAULT_PERMISSIONS[action];
  if (identity.role !== null && roleAtLeast(identity.role, minimum)) return { allowed: true, identity };
  if (identity.role !== null && OWN_OPERATION.has(action) && identity.id === context.requesterId)
    return { allowed: true, identity };
  const has = identity.role === null ? 'no role' : `the ${identity.role} role`;
  return {
    allowed: false,
    identity,
    missingRole: minimum,
    reason: `${identity.id} may not ${VERBS[action]}: that needs the ${minimum} role (${identity.id} has ${has})`,
  };
}

export class ForbiddenError extends PullwrightError<{ action: Action; missingRole: Role; identity: string }> {
  constructor(refusal: Extract<Authorization, { allowed: false }>, action: Action) {
    super('forbidden', refusal.reason, { action, missingRole: refusal.missingRole, identity: refusal.identity.id });
  }
}

/** `authorize`, throwing `ForbiddenError` (→ 403 with the missing role) on a refusal. */
export function assertAuthorized(identity: Identity, action: Action, context: AuthorizeContext = {}): Identity {
  const result = authorize(identity, action, context);
  if (!result.allowed) throw new ForbiddenError(result, action);
  return identity;
}
