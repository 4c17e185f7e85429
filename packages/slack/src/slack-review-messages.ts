import { interdiffPath, type Operation, type OperationEventDataOut } from '@pullwright/core';
import type { KnownBlock, View } from '@slack/types';
import { actionButton, confirmDialog, section } from './block-kit.ts';
import { escapeSlackText } from './escape-slack-text.ts';
import type { SlackMessage } from './slack-client.ts';

/** The button under a PR message that opens the change-request modal. */
export const REVISE_ACTION = 'pw_revise';
/** The button under the merged message that deploys it (deployers only; checked on click). */
export const DEPLOY_ACTION = 'pw_deploy';
/** The modal: its callback id, and the text box whose value comes with the submission. */
export const REVISE_VIEW = 'pw_revise_view';
export const REVISE_BLOCK = 'pw_revise_text';
export const REVISE_INPUT = 'pw_revise_input';

export function reviseButton(opId: string) {
  return actionButton(REVISE_ACTION, 'Request changes', opId);
}

/** The modal a Request changes click opens; `private_metadata` carries the operation id back. */
export function requestChangesModal(op: Pick<Operation, 'id' | 'repo'>, prNumber: number | undefined): View {
  return {
    type: 'modal',
    callback_id: REVISE_VIEW,
    private_metadata: op.id,
    title: { type: 'plain_text', text: 'Request changes' },
    submit: { type: 'plain_text', text: 'Request' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      section(
        `What should change in ${prNumber ? `pull request #${prNumber}` : 'the pull request'} on \`${op.repo}\`? The model revises the same branch; the reviewers see only what changed.`,
      ),
      {
        type: 'input',
        block_id: REVISE_BLOCK,
        label: { type: 'plain_text', text: 'Changes' },
        element: { type: 'plain_text_input', action_id: REVISE_INPUT, multiline: true, max_length: 10_000 },
      },
    ],
  };
}

/** The thread note when a change request is taken: who asked, and that a revision is on its way. */
export function changesRequested(user: string, text: string): SlackMessage {
  const said = escapeSlackText(text.split('\n')[0]!.slice(0, 200));
  return {
    text: `Changes requested: ${text.slice(0, 200)}`,
    blocks: [section(`:pencil2: <@${user}> requested changes: _${said}_ — revising the branch.`)],
  };
}

/**
 * After a revision: the new head, what was done about each request, and the link to the
 * changes since the head the reviewers saw (the interdiff), with the buttons again.
 */
export function revisedBlocks(op: Operation, dashboardUrl: string): { text: string; blocks: KnownBlock[] } {
  const round = op.ledger?.at(-1);
  const head = op.pullRequest?.headSha ?? '';
  const lines = (round?.entries ?? []).map((e) => {
    const outcome =
      e.outcome === 'fixed'
        ? `done in \`${head.slice(0, 7)}\``
        : e.outcome === 'declined'
          ? `declined: ${escapeSlackText(e.note ?? 'no reason given')}`
          : e.outcome === 'question'
            ? `question: ${escapeSlackText(e.note ?? '')}`
            : 'open';
    return `• ${escapeSlackText(e.text.split('\n')[0]!.slice(0, 120))} → ${outcome}`;
  });
  const since =
    round?.fromSha && round.fromSha !== head
      ? ` · <${dashboardUrl}${interdiffPath(op.id, round.fromSha)}|changes since \`${round.fromSha.slice(0, 7)}\`>`
      : '';
  return {
    text: `Revision pushed for ${op.id}: head ${head.slice(0, 12)}`,
    blocks: [
      section(`:repeat: Revision pushed: head \`${head.slice(0, 12)}\`${since}`),
      ...(lines.length ? [section(lines.join('\n').slice(0, 2800))] : []),
    ],
  };
}

/** One deploy step in the thread (the `deploy` events); the merged message carries the button. */
export function deployNote(d: OperationEventDataOut<'deploy'>): SlackMessage | undefined {
  const target = d.target ? ` to \`${escapeSlackText(d.target)}\`` : '';
  const error = d.reason ? `: ${escapeSlackText(d.reason.slice(0, 500))}` : '';
  const text: { [S in OperationEventDataOut<'deploy'>['step']]: string | undefined } = {
    started: `:rocket: Deploying${target}${d.by ? ` by ${escapeSlackText(d.by)}` : ''}.`,
    triggered: ':satellite: The deploy target took the deploy.',
    status: d.state ? `:hourglass_flowing_sand: Deploy status: ${escapeSlackText(d.state)}.` : undefined,
    succeeded: `:white_check_mark: Deployed${target}.`,
    rollback_started: ':leftwards_arrow_with_hook: Rolling back.',
    failed: `:boom: Deploy failed${error}.`,
    rolled_back: `:leftwards_arrow_with_hook: Deploy rolled back${error}.`,
    rollback_failed: `:rotating_light: Deploy failed and the rollback failed too${error}.`,
    finished: undefined,
  };
  const line = text[d.step];
  return line ? { text: line.replace(/[*`_]|:[a-z_]+: /g, ''), blocks: [section(line)] } : undefined;
}

export function deployButton(opId: string) {
  return {
    ...actionButton(DEPLOY_ACTION, 'Deploy', opId),
    confirm: confirmDialog(
      'Deploy this change?',
      'Runs the repository’s deploy for the merged commit.',
      'Deploy',
      'Not now',
    ),
  };
}
