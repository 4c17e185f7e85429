import {
  describeOutcome,
  type FeatureRequest,
  FINAL_STATUSES,
  type Operation,
  type OperationEvent,
  type OperationEventDataOut,
  type OperationStatus,
  type OutcomeCode,
  originLabel,
  type Plan,
  readEvent,
} from '@pullwright/core';
import type { KnownBlock } from '@slack/types';
import { actionButton, confirmDialog, section } from './block-kit.ts';
import { escapeSlackText } from './escape-slack-text.ts';
import { budgetDecidedText, budgetEstimateText, budgetPauseBlocks } from './slack-budget-messages.ts';
import type { SlackMessage } from './slack-client.ts';

export { escapeSlackText };

import { changesRequested, deployButton, deployNote, reviseButton, revisedBlocks } from './slack-review-messages.ts';

/** Slack refuses section text over 3000 characters; leave room for the dashboard link. */
export const SLACK_TEXT_LIMIT = 2800;
/** Check output and failure reasons shown in the thread; the dashboard has the rest. */
const OUTPUT_LIMIT = 1500;
const DESCRIPTION_LIMIT = 600;

export const APPROVE_ACTION = 'pw_approve';
export const REJECT_ACTION = 'pw_reject';
export const PLAN_START_ACTION = 'pw_plan_start';
export const PLAN_MODIFY_ACTION = 'pw_plan_modify';
export const PLAN_CANCEL_ACTION = 'pw_plan_cancel';
/** The text box of the plan message; its value arrives with the Modify click (`state.values`). */
export const PLAN_NOTE_BLOCK = 'pw_plan_note';
export const PLAN_NOTE_INPUT = 'pw_plan_note_input';

const STATUS_ICON: Record<OperationStatus, string> = {
  queued: ':hourglass_flowing_sand:',
  running: ':gear:',
  awaiting_approval: ':eyes:',
  approved: ':+1:',
  merging: ':twisted_rightwards_arrows:',
  merged: ':tada:',
  rejected: ':no_entry_sign:',
  failed: ':boom:',
  cancelled: ':octagonal_sign:',
  evaluated: ':straight_ruler:',
};

/** A thread detail; `milestone` ones also go out through the response_url fallback. */
export interface SlackNote extends SlackMessage {
  milestone: boolean;
  /** Carries Approve / Reject buttons: its ts is kept to take them away later. */
  approval: boolean;
  /** Carries the plan with Start / Modify / Cancel: its ts is kept to show the decision later. */
  plan?: boolean;
}

/** What the channel message shows besides the operation itself. */
interface ProgressView {
  step: string | undefined;
  lastEventAt: string | undefined;
  budgetUsd: number | undefined;
}

/** `a.ts`, `b.ts` from an event's file list. */
function fileList(files: readonly string[] | undefined): string {
  return (files ?? []).map((f) => `\`${escapeSlackText(f)}\``).join(', ');
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function context(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

const CONFIRM_REJECT = confirmDialog(
  'Reject this change?',
  'The pull request stays open but Pullwright will not merge it.',
  'Reject',
);
const CONFIRM_PLAN_CANCEL = confirmDialog(
  'Cancel this operation?',
  'The coder will not start and nothing is changed.',
  'Cancel it',
);

/** `<url|label>` for an http(s) URL that cannot break out of Slack's link syntax; the label alone otherwise. */
function slackLink(u: string | undefined, label: string): string {
  return u && /^https?:\/\/[^\s|<>]+$/i.test(u) ? `<${u}|${escapeSlackText(label)}>` : escapeSlackText(label);
}

/** Block Kit for everything Pullwright says in Slack. Texts here are raw; SlackClient redacts on the way out. */
export class SlackMessages {
  constructor(private readonly dashboardUrl: string) {}

  dashboardLink(opId: string): string {
    return `${this.dashboardUrl}/#/op/${opId}`;
  }

  /** Escapes and cuts `text` to `max` characters, ending with a link to the full text in the dashboard. */
  truncate(text: string, max: number, opId: string): string {
    const escaped = escapeSlackText(text);
    if (escaped.length <= max) return escaped;
    // Never cut an entity (`&amp;`) in half.
    const cut = escaped.slice(0, max).replace(/&[a-z]{0,4}$/, '');
    return `${cut}\n… <${this.dashboardLink(opId)}|full text in the dashboard>`;
  }

  #codeBlock(text: string, opId: string): string {
    return `\`\`\`${this.truncate(text.replace(/```/g, "'''"), OUTPUT_LIMIT, opId)}\`\`\``;
  }

  #title(op: Operation): string {
    return `${STATUS_ICON[op.status]} *${op.type}* on \`${op.repo}\` (\`${op.baseBranch}\`) · \`${op.id}\` · *${op.status.replace('_', ' ')}*`;
  }

  /** The channel message, rewritten in place as the operation moves. */
  status(op: Operation, view: ProgressView, now = new Date()): SlackMessage {
    const finished = FINAL_STATUSES.has(op.status);
    const elapsed = (finished ? Date.parse(op.updatedAt) : now.getTime()) - Date.parse(op.createdAt);
    const facts = [`requested by <@${op.requester.user}>`, `elapsed ${formatDuration(elapsed)}`];
    if (view.step && !finished) facts.unshift(`step: ${escapeSlackText(view.step)}`);
    if (view.lastEventAt && !finished) {
      facts.push(`last output ${formatDuration(now.getTime() - Date.parse(view.lastEventAt))} ago`);
    }
    const u = op.usage;
    facts.push(`tokens ${formatTokens(u.inputTokens)} in / ${formatTokens(u.outputTokens)} out`);
    facts.push(
      `cost $${u.costUsd.toFixed(2)}${view.budgetUsd !== undefined ? ` of $${view.budgetUsd.toFixed(2)}` : ''}`,
    );
    const blocks: KnownBlock[] = [
      section(this.#title(op)),
      section(`>${this.truncate(op.description, DESCRIPTION_LIMIT, op.id).replace(/\n/g, '\n>')}`),
      context(facts.join(' · ')),
    ];
    const links = [`<${this.dashboardLink(op.id)}|dashboard>`];
    if (op.pullRequest) links.unshift(`<${op.pullRequest.url}|pull request #${op.pullRequest.number}>`);
    if (op.origin) {
      const from = originLabel(op.origin);
      links.unshift(`from ${slackLink(from.url, from.text)}`);
    }
    blocks.push(context(`${links.join(' · ')}${finished ? '' : ' · react with :x: to stop'}`));
    return { text: `${op.type} ${op.id} on ${op.repo}: ${op.status}`, blocks };
  }

  /** The one-line answer in a channel: what was queued and where progress will show. */
  queued(op: Operation, delivery: 'bot' | 'response_url'): SlackMessage {
    const where = delivery === 'bot' ? 'Progress follows in this channel.' : 'Updates follow here.';
    return {
      text: `Queued ${op.type} ${op.id} on ${op.repo}.`,
      blocks: [section(`Queued *${op.type}* \`${op.id}\` on \`${op.repo}\`. ${where}`)],
    };
  }

  /** `/feature`: what was captured, and where it is triaged once analysed. */
  featureCaptured(request: Pick<FeatureRequest, 'id' | 'title' | 'repo'>): SlackMessage {
    const link = `${this.dashboardUrl}/#/features/${request.id}`;
    const text = `Feature request ${request.id} on ${request.repo} captured; its analysis runs now. Triage it on the dashboard: ${link}`;
    return {
      text,
      blocks: [
        section(
          `Feature request \`${request.id}\` on \`${request.repo}\`: *${escapeSlackText(request.title)}*\nIts analysis runs now; triage it <${link}|on the dashboard>.`,
        ),
      ],
    };
  }

  usage(usage: string, problem: string): SlackMessage {
    const text = `${escapeSlackText(problem)}\n${usage}`;
    return { text, blocks: [section(text)] };
  }

  notice(text: string): SlackMessage {
    return { text, blocks: [section(escapeSlackText(text))] };
  }

  /** `/pw-status` without an id: the channel's recent operations. */
  list(ops: Operation[]): SlackMessage {
    if (ops.length === 0) return this.notice('No operations were started from this channel yet.');
    const lines = ops.map(
      (op) =>
        `${STATUS_ICON[op.status]} \`${op.id}\` *${op.type}* on \`${op.repo}\`: ${op.status.replace('_', ' ')} · ${this.truncate(op.description.split('\n')[0]!, 80, op.id)}`,
    );
    return { text: `${ops.length} recent operations`, blocks: [section(lines.join('\n'))] };
  }

  /**
   * The PR message with its buttons; the button value (`<operation id>/<head sha>`) binds the
   * approval to the head sha shown. Not `id:sha`: an id whose time part spells a credential
   * word (`…key…`, `…api…`) followed by `:` and a sha reads as `name: secret`, and the
   * outbound scan would withhold the message with its buttons.
   */
  approval(op: Pick<Operation, 'id'>, pr: { number: number; url: string; headSha: string }): SlackNote {
    const value = `${op.id}/${pr.headSha}`;
    return {
      milestone: true,
      approval: true,
      text: `Pull request #${pr.number} is ready for review: ${pr.url}`,
      blocks: [
        section(
          `:eyes: <${pr.url}|Pull request #${pr.number}> is ready for review (head \`${pr.headSha.slice(0, 12)}\`).`,
        ),
        {
          type: 'actions',
          block_id: `pw_review_${op.id}`,
          elements: [
            actionButton(APPROVE_ACTION, 'Approve', value, 'primary'),
            { ...actionButton(REJECT_ACTION, 'Reject', value, 'danger'), confirm: CONFIRM_REJECT },
            reviseButton(op.id),
          ],
        },
      ],
    };
  }

  /** After a revision: what was done, the interdiff link, and the review buttons for the new head. */
  revised(op: Operation): SlackNote {
    const pr = op.pullRequest!;
    const { text, blocks } = revisedBlocks(op, this.dashboardUrl);
    const buttons = this.approval(op, pr).blocks!.at(-1)!;
    return { milestone: true, approval: true, text, blocks: [...blocks, buttons] };
  }

  /** A change request taken from Slack (modal or thread reply), said in the thread. */
  changesRequested(user: string, text: string): SlackMessage {
    return changesRequested(user, text);
  }

  /** The PR message once it has been decided: same link, no buttons. */
  decided(op: Operation): SlackMessage {
    const pr = op.pullRequest;
    const link = pr ? `<${pr.url}|Pull request #${pr.number}>` : 'The pull request';
    const who = op.approval ? ` by <@${op.approval.by}> at \`${op.approval.headSha.slice(0, 12)}\`` : '';
    return {
      text: `${pr ? `Pull request #${pr.number}` : 'Pull request'}: ${op.status}`,
      blocks: [section(`${STATUS_ICON[op.status]} ${link}: *${op.status.replace('_', ' ')}*${who}.`)],
    };
  }

  /** The plan waiting for confirmation, with a box for a note and Start / Modify / Cancel. */
  planConfirmation(op: Pick<Operation, 'id'>, plan: Plan | undefined): SlackNote {
    const button = (action_id: string, text: string, style?: 'primary' | 'danger') =>
      actionButton(action_id, text, op.id, style);
    return {
      milestone: true,
      approval: false,
      plan: true,
      text: `The plan for ${op.id} is ready: press Start to let the coder begin.`,
      blocks: [
        ...this.#planBlocks(op.id, plan),
        {
          type: 'input',
          block_id: PLAN_NOTE_BLOCK,
          optional: true,
          label: { type: 'plain_text', text: 'What should change? (for Modify)' },
          element: { type: 'plain_text_input', action_id: PLAN_NOTE_INPUT, multiline: true, max_length: 4000 },
        },
        {
          type: 'actions',
          block_id: `pw_plan_${op.id}`,
          elements: [
            button(PLAN_START_ACTION, 'Start', 'primary'),
            button(PLAN_MODIFY_ACTION, 'Modify'),
            { ...button(PLAN_CANCEL_ACTION, 'Cancel', 'danger'), confirm: CONFIRM_PLAN_CANCEL },
          ],
        },
      ],
    };
  }

  /** The plan message once decided: the same plan, no buttons, who decided what. */
  planDecided(op: Operation): SlackMessage {
    const c = op.planConfirmation;
    let outcome: string;
    if (c?.state === 'started') outcome = `:arrow_forward: Started by ${this.#who(c.by)}.`;
    else if (c?.state === 'modified')
      outcome = `:pencil2: Modified by ${this.#who(c.by)}: ${this.truncate(c.note ?? '', OUTPUT_LIMIT, op.id)}`;
    else if (op.cancelRequested || op.status === 'cancelled')
      outcome = `:octagonal_sign: Not started: ${this.truncate(op.error ?? 'cancelled', OUTPUT_LIMIT, op.id)}`;
    else outcome = `Not started: the operation is ${op.status.replace('_', ' ')}.`;
    return {
      text: `The plan for ${op.id}: ${outcome.replace(/:[a-z0-9_]+: /, '')}`,
      blocks: [...this.#planBlocks(op.id, op.plan), section(outcome)],
    };
  }

  #planBlocks(opId: string, plan: Plan | undefined): KnownBlock[] {
    if (!plan) return [section(':memo: *Plan*')];
    const steps = plan.steps.map((st, i) => {
      const files = st.files.length > 0 ? ` (${fileList(st.files)})` : '';
      return `${i + 1}. ${escapeSlackText(st.title)}${files}`;
    });
    const blocks = [
      section(`:memo: *Plan*\n${this.truncate(plan.summary, DESCRIPTION_LIMIT, opId)}`),
      section(this.#cut(steps.join('\n'), opId)),
    ];
    if (plan.risks.length > 0)
      blocks.push(section(this.#cut(`*Risks*\n${plan.risks.map((r) => `• ${escapeSlackText(r)}`).join('\n')}`, opId)));
    return blocks;
  }

  /** Cuts already-escaped mrkdwn to Slack's section limit, with the dashboard link. */
  #cut(text: string, opId: string): string {
    if (text.length <= SLACK_TEXT_LIMIT) return text;
    return `${text.slice(0, SLACK_TEXT_LIMIT).replace(/&[a-z]{0,4}$/, '')}\n… <${this.dashboardLink(opId)}|the whole plan in the dashboard>`;
  }

  /** One-line step label for the channel message, from any event. */
  step(e: OperationEvent): string | undefined {
    const k = readEvent(e);
    switch (k?.type) {
      case 'status':
        return k.data.to.replace('_', ' ');
      case 'step':
        return `${k.data.step}${k.data.state ? ` ${k.data.state}` : ''}`;
      case 'model':
        return `model turn ${k.data.turn}`;
      case 'tool':
        return `tool ${k.data.name}`;
      case 'check':
        return `check ${k.data.name} ${k.data.passed ? 'passed' : 'failed'}`;
      case 'plan_confirmation':
        return k.data.state === 'pending' ? 'waiting for Start on the plan' : `plan ${k.data.state}`;
      case 'budget_pause':
        return k.data.state === 'pending' ? 'paused at the budget: extend or stop' : `budget ${k.data.state}`;
      // The rest keep the step line as it is; `note` below names every type.
      default:
        return undefined;
    }
  }

  /**
   * The thread detail for an event, if it deserves one (model turns and tool calls only move
   * the step). Read from the typed event: a type this build does not know, or data that does
   * not fit its schema (an older record), gets no note.
   */
  note(e: OperationEvent, op: Operation): SlackNote | undefined {
    const k = readEvent(e);
    if (!k) return undefined;
    const plain = (text: string, milestone = false): SlackNote => ({
      text: text.replace(/[*`]/g, ''),
      blocks: [section(text)],
      milestone,
      approval: false,
    });
    switch (k.type) {
      case 'step': {
        const d = k.data;
        if (d.step === 'prepare') {
          return plain(`:seedling: Working copy ready on branch \`${escapeSlackText(d.branch ?? '?')}\`.`);
        }
        if (d.step === 'agent' && d.state === 'finished') {
          const repairs = d.repairs ? ` after ${d.repairs} repair round${d.repairs === 1 ? '' : 's'}` : '';
          return plain(`:robot_face: The model finished${repairs}: ${escapeSlackText(d.outcome ?? 'done')}.`);
        }
        if (d.step === 'agent' && d.state === 'started') {
          const checks = Array.isArray(d.checks) && d.checks.length > 0 ? ` Checks: ${d.checks.join(', ')}.` : '';
          return plain(`:robot_face: The model is working.${escapeSlackText(checks)}`);
        }
        if (d.step === 'push') {
          return plain(
            `:arrow_up: Pushed \`${escapeSlackText(d.branch ?? '?')}\` at \`${(d.headSha ?? '').slice(0, 12)}\`.`,
          );
        }
        return undefined;
      }
      case 'phase': {
        const d = k.data;
        if (d.phase === 'plan' && d.plan)
          return plain(`:memo: Plan ready.${d.note ? ` Note: ${escapeSlackText(d.note)}.` : ''}`);
        if (d.phase === 'verify')
          return plain(`:test_tube: Running the repository's checks on ${fileList(d.files) || 'the change'}.`);
        if (d.phase === 'repair') return plain(`:wrench: Repair round ${d.round ?? '?'}.`);
        if (d.phase === 'review') return plain(':mag: Reviewing the change.');
        return undefined;
      }
      case 'check': {
        const d = k.data;
        const took = ` in ${formatDuration(d.durationMs)}`;
        const name = escapeSlackText(d.name);
        return d.passed
          ? plain(`:white_check_mark: \`${name}\` passed${took}.`)
          : plain(`:x: \`${name}\` failed (exit ${d.exitCode ?? '?'})${took}.`);
      }
      case 'message':
        return plain(`:incoming_envelope: The model read the message from <@${escapeSlackText(k.data.from)}>.`);
      case 'plan_confirmation':
        return k.data.state === 'pending' ? this.planConfirmation(op, k.data.plan) : undefined;
      case 'budget_estimate':
        return plain(budgetEstimateText(k.data));
      case 'budget_pause':
        return k.data.state === 'pending'
          ? {
              text: `${op.id} paused at its budget's threshold: extend it or stop.`,
              blocks: budgetPauseBlocks(op, k.data),
              milestone: true,
              approval: false,
            }
          : plain(budgetDecidedText(k.data, this.#who(k.data.by)), true);
      case 'commit_signature':
        return k.data.state === 'unsigned' && k.data.reason
          ? plain(`:warning: The commits were pushed unsigned: ${escapeSlackText(k.data.reason)}.`)
          : undefined;
      case 'cancel_requested':
        return plain(`:hand: Cancel requested by ${this.#who(k.data.by)}; stopping after the current step.`);
      case 'revision':
        return k.data.state === 'requested'
          ? plain(`:pencil2: Revising: ${k.data.requests ?? 'the'} change request(s) to address.`)
          : undefined;
      case 'deploy': {
        const m = deployNote(k.data);
        return m ? { ...m, milestone: true, approval: false } : undefined;
      }
      case 'status':
        return this.#statusNote(k.data, op);
      case 'sandbox':
        return k.data.sandboxed
          ? undefined
          : plain(':warning: The checks run WITHOUT a sandbox (`SANDBOX=none`).', true);
      case 'mcp':
        return k.data.state === 'failed'
          ? plain(
              `:electric_plug: MCP server \`${escapeSlackText(k.data.server)}\` did not start: ${escapeSlackText(k.data.reason ?? '')}`,
            )
          : undefined;
      case 'ci_failure':
        return this.#ciNote(k.data, plain);
      // No thread note: the channel message's step line and the dashboard show these.
      case 'created':
      case 'model':
      case 'tool':
      case 'waiting':
      case 'locks_acquired':
      case 'checkpoint':
      case 'evidence':
      case 'overlap':
      case 'risk':
      case 'approval':
      case 'approval_pending':
      case 'auto_approval':
      case 'usage':
      case 'base_merged':
      case 'head_moved':
      case 'retry_of':
      case 'retried':
      case 'slack_session':
      case 'slack_thread':
      case 'stuck':
      case 'unstuck':
      case 'egress_refused':
      case 'plan_step':
      case 'fix_report':
      case 'instructions':
        return undefined;
      default:
        return unreachable(k);
    }
  }

  /** Red CI on the PR head: what Pullwright does about it, with the CI run's link. */
  #ciNote(
    d: OperationEventDataOut<'ci_failure'>,
    plain: (text: string, milestone?: boolean) => SlackNote,
  ): SlackNote | undefined {
    const names = (v: readonly string[] | undefined) => (v ?? []).map((c) => `\`${escapeSlackText(c)}\``).join(', ');
    const head = `\`${d.headSha.slice(0, 7)}\``;
    const run = d.runUrl ? ` (${slackLink(d.runUrl, 'CI run')})` : '';
    switch (d.state) {
      case 'revision_queued':
        return plain(
          `:rotating_light: CI is red on ${head}${run}: ${names(d.checks)}. Revising, attempt ${d.attempt ?? '?'} of ${d.of ?? '?'}.${d.missingPermissions ? ` Without ${names(d.missingPermissions)} on the GitHub App's installation, the CI job logs were not read.` : ''}`,
        );
      case 'needs_human':
        return plain(
          `:sos: CI is still red on ${head}${run} after ${d.attempts ?? 0} automatic revision(s): ${names(d.checks)}. This needs a person.`,
          true,
        );
      case 'pre_existing':
        return plain(
          `:large_yellow_circle: CI is red on ${head}${run}, but ${names(d.preExisting)} fail on the base too: no revision.`,
        );
      case 'unreadable':
        return undefined;
    }
  }

  #who(s: string | undefined): string {
    if (!s) return 'someone';
    return /^[UW][A-Z0-9]{2,}$/.test(s) ? `<@${s}>` : escapeSlackText(s);
  }

  #statusNote(d: OperationEventDataOut<'status'>, op: Operation): SlackNote | undefined {
    // An end carries its outcome: the sentence is derived from it, the emoji picked by its code.
    const reason = d.outcome ? describeOutcome(d.outcome) : d.reason;
    const emoji = d.outcome ? OUTCOME_EMOJI[d.outcome.code] : undefined;
    const plain = (text: string, milestone: boolean): SlackNote => ({
      text: text.replace(/[*`]/g, '').slice(0, 300),
      blocks: [section(text)],
      milestone,
      approval: false,
    });
    switch (d.to) {
      case 'awaiting_approval': {
        if (d.revisionFailed)
          return plain(
            `:warning: The revision could not be completed; the branch is unchanged:\n${this.#codeBlock(d.revisionFailed, op.id)}`,
            true,
          );
        if (d.revision && op.pullRequest) return this.revised(op);
        if (!d.url || !d.headSha || d.pullRequest === undefined) return undefined;
        return this.approval(op, { number: d.pullRequest, url: d.url, headSha: d.headSha });
      }
      case 'approved':
        return plain(`:+1: Approved by ${this.#who(d.by)} at \`${(d.headSha ?? '').slice(0, 12)}\`; merging.`, false);
      case 'rejected':
        return plain(
          `${emoji ?? ':no_entry_sign:'} ${this.truncate(reason ?? 'Rejected.', OUTPUT_LIMIT, op.id)}`,
          true,
        );
      case 'merged': {
        const text = `:tada: Merged${d.mergeSha ? ` as \`${d.mergeSha.slice(0, 12)}\`` : ''}.`;
        // The Deploy button: whoever presses it needs the deploy role (checked on click).
        return {
          ...plain(text, true),
          blocks: [section(text), { type: 'actions', block_id: `pw_deploy_${op.id}`, elements: [deployButton(op.id)] }],
        };
      }
      case 'failed':
        // The failure report (Summary, Issues, Partial changes, Recommendation) when the job wrote one.
        if (op.failureReport)
          return plain(
            `${emoji ?? ':boom:'} ${this.truncate(slackMarkdown(op.failureReport), SLACK_TEXT_LIMIT, op.id)}`,
            true,
          );
        return plain(`${emoji ?? ':boom:'} Failed:\n${this.#codeBlock(reason ?? 'no reason recorded', op.id)}`, true);
      case 'cancelled':
        return plain(
          `${emoji ?? ':octagonal_sign:'} Cancelled: ${this.truncate(reason ?? 'no reason recorded', OUTPUT_LIMIT, op.id)}`,
          true,
        );
      default:
        return undefined;
    }
  }
}

/**
 * The emoji a note about an ended operation leads with, per outcome code: a code without one
 * does not typecheck. Failures a person should act on differently look different.
 */
const OUTCOME_EMOJI = {
  merged: ':tada:',
  evaluated: ':test_tube:',
  rejected: ':no_entry_sign:',
  requested: ':octagonal_sign:',
  timeout: ':hourglass:',
  checks_failed: ':boom:',
  no_change: ':zero:',
  budget: ':money_with_wings:',
  spend_cap: ':money_with_wings:',
  stuck: ':repeat:',
  review_rejected: ':mag:',
  invalid_plan: ':boom:',
  invalid_review: ':boom:',
  model: ':robot_face:',
  secret_found: ':closed_lock_with_key:',
  path_refused: ':no_entry:',
  forbidden: ':no_entry:',
  conflict: ':twisted_rightwards_arrows:',
  not_found: ':grey_question:',
  misconfigured: ':wrench:',
  install_failed: ':package:',
  sandbox: ':construction:',
  forge_unavailable: ':cloud:',
  git_failed: ':boom:',
  stalled: ':skull:',
  internal: ':bug:',
} as const satisfies Record<OutcomeCode, string>;

/** The report's markdown in Slack's dialect: headings bold, bullets as •; code fences and `code` stay. */
function slackMarkdown(markdown: string): string {
  return markdown
    .replace(/^#{1,6} (.+)$/gm, '*$1*')
    .replace(/^- /gm, '• ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The end of an exhaustive switch: compiles only when every case was handled. */
function unreachable(value: never): undefined {
  void value;
  return undefined;
}
