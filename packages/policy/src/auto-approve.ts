import type { Operation, Policy, RiskAssessment } from '@pullwright/core';
import { analyzeDiff, assessRisk, type DiffAnalysis } from './assess-risk.ts';
import { matchPathRules } from './path-rules.ts';

type AutoApproval =
  | { approve: true; rule: string; risk: RiskAssessment }
  | { approve: false; reasons: string[]; risk: RiskAssessment };

/**
 * Seed Phase 4's auto-approval: every criterion must hold — the policy enables it, risk is
 * not high, at most `max_lines` changed lines, only the allowed kinds (tests, docs), no
 * dependency, schema, API or security change, no secret finding, no path rule touched,
 * and every check green. The `rule` names what allowed it, for the audit trail.
 */
export function autoApprove(
  op: Pick<Operation, 'checks'>,
  diff: string | DiffAnalysis,
  policy: Policy,
  options: { secretFindings?: number } = {},
): AutoApproval {
  const a = typeof diff === 'string' ? analyzeDiff(diff, options) : diff;
  const risk = assessRisk(a);
  const rules = policy.auto_approve;
  const reasons: string[] = [];
  const lines = a.additions + a.deletions;
  if (!rules.enabled) reasons.push('auto-approval is not enabled by the policy');
  if (risk.level === 'high') reasons.push('high risk is never auto-approved');
  if (lines > rules.max_lines) reasons.push(`${lines} changed lines (at most ${rules.max_lines})`);
  if (a.files.length === 0) reasons.push('no files changed');
  const other = a.files.filter((f) => !(rules.kinds as string[]).includes(f.kind));
  if (other.length)
    reasons.push(`not only ${rules.kinds.join('/')}: ${other.map((f) => `${f.path} (${f.kind})`).join(', ')}`);
  if (a.dependencies.length) reasons.push('dependencies changed');
  if (a.api.length) reasons.push('public API changed');
  if (a.secretFindings > 0) reasons.push('secret scan findings');
  const touched = matchPathRules(
    policy.path_rules,
    a.files.flatMap((f) => [f.path, f.oldPath]),
  );
  if (touched.length) reasons.push(`path rules apply: ${touched.map((m) => m.rule.name).join(', ')}`);
  if (op.checks.length === 0) reasons.push('no checks ran');
  const red = op.checks.filter((c) => !c.passed).map((c) => c.name);
  if (red.length) reasons.push(`checks not green: ${red.join(', ')}`);
  if (reasons.length) return { approve: false, reasons, risk };
  return {
    approve: true,
    rule: `auto_approve: ≤ ${rules.max_lines} lines of ${rules.kinds.join('/')}, checks green`,
    risk,
  };
}
