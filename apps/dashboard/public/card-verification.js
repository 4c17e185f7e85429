// The PR body's signed verification block, as the server checked it against the forge's copy.
import { h } from './dom.js';

/**
 * `GET /v1/operations/:id/verification` (pipeline's `VerificationResult`).
 * @typedef {object} VerificationResult
 * @property {boolean} valid
 * @property {string} [reason]  Why the block is not valid.
 * @property {VerificationBlock} [block]
 * @typedef {object} VerificationBlock
 * @property {string} headSha
 * @property {Array<{ command: string, exitCode: number | null, durationMs: number }>} checks
 * @property {{ passed: boolean, findings: number }} secretScan
 * @property {{ signature: 'forge' | 'unsigned', reason?: string }} [commits]
 */

/**
 * @param {VerificationResult | null | undefined} v  undefined while it loads, null when it could not be checked.
 * @param {string | undefined} headSha  The PR's current head.
 */
export function renderVerification(v, headSha) {
  if (v === undefined) return h('p', { class: 'muted' }, 'Checking the signature…');
  if (v === null) return h('p', { class: 'muted' }, 'The verification block could not be checked.');
  if (!v.valid) return h('p', { class: 'bad' }, `Not valid: ${v.reason ?? 'the signature does not match'}.`);
  const b = v.block;
  const current = b.headSha === headSha;
  return h(
    'div',
    {},
    h(
      'p',
      { class: current ? 'good' : 'bad' },
      current
        ? 'Signed by Pullwright for the current head.'
        : `Signed for ${b.headSha.slice(0, 7)}, not the current head.`,
    ),
    h(
      'ul',
      { class: 'plain' },
      b.checks.map((c) => h('li', {}, h('code', {}, c.command), ` exit ${c.exitCode ?? '–'} · ${c.durationMs} ms`)),
      h('li', {}, `secret scan: ${b.secretScan.passed ? 'clean' : `${b.secretScan.findings} finding(s)`}`),
      b.commits
        ? h(
            'li',
            { class: b.commits.reason ? 'bad' : '' },
            b.commits.signature === 'forge'
              ? 'commits: signed by the forge (Verified)'
              : `commits: unsigned (${b.commits.reason ?? 'the forge signs none'})`,
          )
        : null,
    ),
  );
}
