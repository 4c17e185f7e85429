import { isPullwrightError, type Operation } from '@pullwright/core';
import type { NewOperation } from '@pullwright/queue';
import type { SlackMessage, SlackResponse } from './slack-client.ts';
import { parseSlackCommand, type SlackCommand, slackUsage } from './slack-command.ts';
import type { SlackDeps } from './slack-deps.ts';
import type { SlashCommandForm } from './slack-payloads.ts';
import { mayCancel } from './slack-permissions.ts';

/** `/pw-status` without an id lists this many of the channel's latest operations. */
const STATUS_LIST_SIZE = 5;

/**
 * Slash commands: `/debug`, `/implement`, `/fix` queue an operation; `/pw-status` (or `/status`), `/cancel`
 * and `/deploy` act on one. Answers are what Slack shows the user (ephemeral unless said).
 */
export class SlackCommandHandler {
  constructor(private readonly deps: SlackDeps) {}

  async handle(form: SlashCommandForm): Promise<SlackResponse> {
    const { messages } = this.deps;
    const cmd = parseSlackCommand(form.command, form.text);
    try {
      switch (cmd.kind) {
        case 'usage':
          return ephemeral(messages.usage(slackUsage(form.command), cmd.problem));
        case 'status':
          return await this.#status(form, cmd.opId);
        case 'cancel':
          return await this.#cancel(form, cmd.opId);
        case 'deploy':
          return await this.#deploy(form, cmd.opId);
        case 'run':
          return await this.#run(form, cmd);
        case 'feature':
          return await this.#feature(form, cmd);
      }
    } catch (err) {
      if (!isPullwrightError(err)) throw err;
      return ephemeral(messages.notice(err.message));
    }
  }

  /** The command's repository (named, the channel's, or the default), or the answer saying why there is none. */
  async #repoOf(form: SlashCommandForm, named: string | undefined): Promise<{ repo: string } | SlackResponse> {
    const { messages, settings } = this.deps;
    const repo = named ?? settings.channelRepos[form.channel_id] ?? settings.defaultRepo;
    if (!repo) {
      return ephemeral(
        messages.usage(slackUsage(form.command), 'name the repository: this channel has none configured'),
      );
    }
    if (!(await this.deps.repositoryExists(repo))) {
      return ephemeral(messages.usage(slackUsage(form.command), `repository ${repo} is not available to Pullwright`));
    }
    return { repo };
  }

  /** `/feature`: captured under the same policy as any request; the analysis runs in a worker. */
  async #feature(form: SlashCommandForm, cmd: Extract<SlackCommand, { kind: 'feature' }>): Promise<SlackResponse> {
    const resolved = await this.#repoOf(form, cmd.repo);
    if (!('repo' in resolved)) return resolved;
    const by = { user: form.user_id, source: 'slack' as const };
    const request = await this.deps.featureRequests.capture(
      {
        repo: resolved.repo,
        baseBranch: cmd.baseBranch ?? 'main',
        description: cmd.description,
        requester: { ...by, channel: form.channel_id },
      },
      by,
      // Slack redelivers a command it thinks timed out with the same trigger_id: one request per trigger.
      `slack:${form.trigger_id}`,
    );
    return ephemeral(this.deps.messages.featureCaptured(request));
  }

  async #run(form: SlashCommandForm, cmd: Extract<SlackCommand, { kind: 'run' }>): Promise<SlackResponse> {
    const { store, queue, sessions, client, messages } = this.deps;
    const resolved = await this.#repoOf(form, cmd.repo);
    if (!('repo' in resolved)) return resolved;
    const { repo } = resolved;
    // The same policy as every entry point: a refusal (naming the missing role) is answered below.
    const by = { user: form.user_id, source: 'slack' } as const;
    await this.deps.actions.authorize(undefined, by, 'request');
    // `--budget`: the operation's own cost cap, kept by the worker's budget like any request's.
    const budget = cmd.budgetUsd !== undefined ? { costUsd: cmd.budgetUsd } : undefined;
    if (budget) this.deps.actions.authorizeBudget(by, budget);
    const request: NewOperation & Pick<Operation, 'confirmPlan'> = {
      type: cmd.type,
      repo,
      baseBranch: cmd.baseBranch ?? 'main',
      description: cmd.description,
      requester: { source: 'slack', user: form.user_id, channel: form.channel_id },
      ...(budget ? { budget } : {}),
      ...(cmd.priority ? { priority: cmd.priority } : {}),
      // `--auto`: the coder starts on the planner's plan without waiting for Start.
      ...(cmd.auto ? { confirmPlan: false } : {}),
    };
    // Slack redelivers a command it thinks timed out with the same trigger_id: one operation per trigger.
    const { op, created } = await store.createOnce(`slack:${form.trigger_id}`, request);
    const delivery = client.hasBot ? 'bot' : 'response_url';
    if (created || !(await sessions.get(op.id))) {
      await sessions.create({
        opId: op.id,
        channel: form.channel_id,
        user: form.user_id,
        delivery,
        responseUrl: form.response_url,
        budgetUsd: cmd.budgetUsd,
        auto: cmd.auto,
      });
      // Also wakes the notifier (the event reaches the global feed) to post the channel message.
      await this.deps.events.append(op.id, 'slack_session', {
        channel: form.channel_id,
        user: form.user_id,
        ...(cmd.budgetUsd !== undefined ? { budgetUsd: cmd.budgetUsd } : {}),
        auto: cmd.auto,
      });
    }
    // As in REST: a no-op when the first delivery got this far, a repair when it did not.
    await queue.add('run', { opId: op.id, priority: op.priority });
    if (delivery === 'bot') return ephemeral(messages.queued(op, delivery));
    // Without a bot token this answer is the channel message; later milestones follow through response_url.
    const status = messages.status(op, { step: 'queued', lastEventAt: undefined, budgetUsd: cmd.budgetUsd });
    return { response_type: 'in_channel', ...status };
  }

  async #status(form: SlashCommandForm, opId: string | undefined): Promise<SlackResponse> {
    const { store, sessions, messages } = this.deps;
    if (opId) {
      const op = await store.get(opId);
      const s = await sessions.get(opId);
      return ephemeral(messages.status(op, { step: s?.step, lastEventAt: s?.lastEventAt, budgetUsd: s?.budgetUsd }));
    }
    const recent: Operation[] = (await store.list({ limit: 200 })).filter(
      (op) => op.requester.source === 'slack' && op.requester.channel === form.channel_id,
    );
    return ephemeral(messages.list(recent.slice(0, STATUS_LIST_SIZE)));
  }

  /** `/deploy`: the policy's deploy role decides (a refusal names it); progress follows in the thread. */
  async #deploy(form: SlashCommandForm, opId: string): Promise<SlackResponse> {
    const op = await this.deps.actions.deploy(opId, { user: form.user_id, source: 'slack' });
    const target = op.deploy?.target ? ` to ${op.deploy.target}` : '';
    return ephemeral(this.deps.messages.notice(`Deploying ${opId}${target}; progress follows in its thread.`));
  }

  async #cancel(form: SlashCommandForm, opId: string): Promise<SlackResponse> {
    const { store, actions, messages, settings } = this.deps;
    const op = await store.get(opId);
    if (!mayCancel(form.user_id, op, settings.approvers)) {
      return ephemeral(messages.notice(`Only the requester or an approver may cancel ${opId}.`));
    }
    const after = await actions.cancel(opId, { user: form.user_id, source: 'slack' });
    return ephemeral(
      messages.notice(
        after.status === 'cancelled' ? `Cancelled ${opId}.` : `Cancelling ${opId}: it stops after its current step.`,
      ),
    );
  }
}

function ephemeral(message: SlackMessage): SlackResponse {
  return { response_type: 'ephemeral', ...message };
}
