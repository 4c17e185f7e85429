import { interdiffPath, type LedgerEntry, type LedgerRound, type Logger, type Operation } from '@pullwright/core';
import type { Forge } from '@pullwright/forge';
import type { Redactor } from '@pullwright/security';
import { evidenceMarkdown } from '../checks/red-green.ts';

interface TrackingCommentDeps {
  forge: Pick<Forge, 'upsertTrackingComment'>;
  redactor: Pick<Redactor, 'redact'>;
  /** PUBLIC_URL: the interdiff links of the review ledger; none without it. */
  publicUrl?: string | undefined;
}

/**
 * The one writer of the PR's tracking comment: the body with `note`, always redacted and
 * linked. Nothing without a pull request. A failed update is logged, never fatal: the
 * operation's own record is the truth.
 */
export async function updateTrackingComment(
  deps: TrackingCommentDeps,
  op: Operation,
  note: string,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  if (!op.pullRequest) return;
  await deps.forge
    .upsertTrackingComment(op.repo, op.pullRequest.number, deps.redactor.redact(trackingBody(op, note, deps.publicUrl)))
    .catch((err: unknown) => log.warn({ opId: op.id, err: (err as Error).message }, 'tracking comment update failed'));
}

/** Where the dashboard shows an operation's changes since `fromSha` (the interdiff). */
function interdiffLink(publicUrl: string, opId: string, fromSha: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${interdiffPath(opId, fromSha)}`;
}

/**
 * The one progress comment on the PR: status, head, what happened last, and the review
 * ledger: every round of change requests with what was done about each (older rounds
 * collapsed, so the history is never overwritten). `publicUrl` adds the interdiff links.
 */
export function trackingBody(op: Operation, note: string, publicUrl?: string): string {
  const status = op.status.replace(/_/g, ' ');
  const head = op.pullRequest?.headSha ? ` · head \`${op.pullRequest.headSha.slice(0, 7)}\`` : '';
  const ledger = ledgerMarkdown(op, publicUrl);
  // /debug: the red → green evidence stays on the comment whatever the latest note says.
  const evidence = op.evidence ? `\n\n${evidenceMarkdown(op.evidence)}` : '';
  return `**Pullwright** · operation \`${op.id}\` · ${status}${head}\n\n${note}${evidence}${ledger ? `\n\n${ledger}` : ''}`;
}

/** Quotes a reason in the comment (at most 20 lines). */
export function quote(text: string): string {
  return text
    .split('\n')
    .slice(0, 20)
    .map((l) => `> ${l}`)
    .join('\n');
}

/** `Done in abc1234` / `Declined: …` / `Question: …`; the reply each review thread gets too. */
export function outcomeText(entry: Pick<LedgerEntry, 'outcome' | 'note'>, sha: string | undefined): string {
  const note = entry.note?.trim();
  switch (entry.outcome) {
    case 'fixed':
      return `Fixed in ${sha ? sha.slice(0, 7) : 'the branch'}.${note ? ` ${note}` : ''}`;
    case 'declined':
      return `Declined: ${note || 'no reason given'}`;
    case 'question':
      return `Question: ${note || 'could you say more?'}`;
    case undefined:
      return 'Working on it…';
  }
}

const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

function roundTable(round: LedgerRound): string {
  const rows = round.entries.map((e) => {
    const where = e.path ? ` on \`${e.path}${e.line ? `:${e.line}` : ''}\`` : '';
    const said = e.text.trim().split('\n')[0]!.slice(0, 80);
    const answer =
      round.state === 'failed' && !e.outcome ? 'Not done: the revision failed' : outcomeText(e, round.headSha);
    return `| @${cell(e.user)} (${e.source})${cell(where)}: ${cell(said)} | ${cell(answer)} |`;
  });
  return ['| Request | Outcome |', '|---|---|', ...rows].join('\n');
}

function roundTitle(round: LedgerRound, n: number, op: Operation, publicUrl: string | undefined): string {
  const state =
    round.state === 'working'
      ? 'in progress'
      : round.state === 'failed'
        ? `failed${round.error ? `: ${round.error.split('\n')[0]!.slice(0, 120)}` : ''}`
        : round.headSha && round.headSha !== round.fromSha
          ? `pushed \`${round.headSha.slice(0, 7)}\``
          : 'no change needed';
  const link =
    publicUrl && round.state === 'pushed' && round.fromSha && round.headSha !== round.fromSha
      ? ` · [changes since \`${round.fromSha.slice(0, 7)}\`](${interdiffLink(publicUrl, op.id, round.fromSha)})`
      : '';
  return `Round ${n} · ${round.entries.length} request(s) · ${state}${link}`;
}

/** The newest round open, the older ones in `<details>`, newest first. */
function ledgerMarkdown(op: Operation, publicUrl: string | undefined): string {
  const rounds = op.ledger ?? [];
  if (!rounds.length) return '';
  const parts = rounds
    .map((round, i) => ({ round, n: i + 1 }))
    .reverse()
    .map(({ round, n }, i) => {
      const title = roundTitle(round, n, op, publicUrl);
      const table = roundTable(round);
      return i === 0 ? `#### ${title}\n\n${table}` : `<details><summary>${title}</summary>\n\n${table}\n\n</details>`;
    });
  return ['### Review ledger', ...parts].join('\n\n');
}
