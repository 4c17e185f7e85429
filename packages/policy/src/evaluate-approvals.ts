import { type ApprovalRecord, type Policy, type RiskAssessment, Role } from '@pullwright/core';
import { matchPathRules } from './path-rules.ts';
import { roleAtLeast } from './roles.ts';

interface ApprovalInput {
  policy: Policy;
  risk: Pick<RiskAssessment, 'level'>;
  /** Every path the change touches (renames: both sides). */
  files: readonly string[];
  approvals: readonly ApprovalRecord[];
  /** The PR head now: approvals for any other sha do not count. */
  headSha: string;
  /** Identity id of whoever asked for the change. */
  requesterId: string;
}

interface ApprovalVerdict {
  satisfied: boolean;
  /** The approvals for the current head, one per identity. */
  current: ApprovalRecord[];
  /** What is still needed, each a sentence a person can act on. */
  missing: string[];
}

interface Requirement {
  label: string;
  required: number;
  roles: Role[];
  groups: string[];
  notRequester: boolean;
  minRole?: Role;
  /** Whether an auto-approval by the policy satisfies it (never for path rules: those want people). */
  policyCounts: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function roleOf(a: ApprovalRecord): Role | undefined {
  const r = Role.safeParse(a.role);
  return r.success ? r.data : undefined;
}

/**
 * Whether a change may merge given who approved which head sha. Requirements add up: the
 * base count, the high-risk count, every path rule a changed file falls under, and one
 * approval from someone allowed to merge. Each unmet one says what would meet it.
 */
export function evaluateApprovals(input: ApprovalInput): ApprovalVerdict {
  const { policy } = input;
  const latest = new Map<string, ApprovalRecord>();
  for (const a of input.approvals)
    if (a.headSha === input.headSha) latest.set(`${a.source === 'policy'}:${a.identity}`, a);
  const current = [...latest.values()];
  const byPolicy = current.some((a) => a.source === 'policy');
  const people = current.filter((a) => a.source !== 'policy');

  const requirements: Requirement[] = [
    {
      label: 'this change',
      required: policy.approvals.required,
      roles: [],
      groups: [],
      notRequester: false,
      policyCounts: true,
    },
  ];
  if (input.risk.level === 'high')
    requirements.push({
      label: 'high risk',
      required: policy.approvals.high_risk.required,
      roles: [],
      groups: [],
      notRequester: policy.approvals.high_risk.not_requester,
      policyCounts: false,
    });
  for (const { rule, files } of matchPathRules(policy.path_rules, input.files))
    requirements.push({
      label: `${rule.name} (${files.length === 1 ? files[0] : plural(files.length, 'file')})`,
      required: rule.required,
      roles: rule.roles,
      groups: rule.groups,
      notRequester: rule.not_requester,
      policyCounts: false,
    });
  requirements.push({
    label: 'merge',
    required: 1,
    roles: [],
    groups: [],
    notRequester: false,
    minRole: policy.permissions.merge,
    policyCounts: true,
  });

  const missing: string[] = [];
  for (const req of requirements) {
    if (req.policyCounts && byPolicy) continue;
    let requesterExcluded = false;
    const counted = people.filter((a) => {
      const role = roleOf(a);
      if (!role) return false;
      if (req.minRole && !roleAtLeast(role, req.minRole)) return false;
      if (req.roles.length && !req.roles.some((r) => roleAtLeast(role, r))) return false;
      if (req.groups.length && !a.groups.some((g) => req.groups.includes(g))) return false;
      if (req.notRequester && a.identity === input.requesterId) {
        requesterExcluded = true;
        return false;
      }
      return true;
    }).length;
    if (counted >= req.required) continue;
    if (requesterExcluded) missing.push(`the requester's own approval does not count for ${req.label}`);
    if (req.minRole) {
      missing.push(`needs an approval from a ${req.minRole} (or higher) to merge`);
      continue;
    }
    const from = [
      req.groups.length ? `group ${req.groups.join(' or ')}` : '',
      req.roles.length ? `a ${req.roles.join(' or ')}` : '',
    ]
      .filter(Boolean)
      .join(' in ');
    const more = req.required - counted;
    missing.push(
      `${req.label} needs ${plural(req.required, 'approver')}${req.notRequester ? ' other than the requester' : ''}: ` +
        `${more} more${from ? ` from ${from}` : ''}`,
    );
  }
  return { satisfied: missing.length === 0, current, missing };
}
