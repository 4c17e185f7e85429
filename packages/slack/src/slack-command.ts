import { BranchName, OperationPriority, type OperationType, RepoSlug } from '@pullwright/core';

export const SLACK_RUN_COMMANDS = { '/debug': 'debug', '/implement': 'implement', '/fix': 'fix' } as const;

/**
 * Every slash command the app answers: what the Slack manifests (docs) must list. The status
 * command is `/pw-status`: Slack's client keeps `/status` for setting one's own status, so an
 * app's `/status` never reaches the app from the message box.
 */
export const SLACK_COMMANDS = [
  ...(Object.keys(SLACK_RUN_COMMANDS) as (keyof typeof SLACK_RUN_COMMANDS)[]),
  '/feature',
  '/pw-status',
  '/cancel',
  '/deploy',
] as const;

/** `/status` still works where an app was created from an older manifest and Slack passes it on. */
const STATUS_COMMANDS = new Set(['/pw-status', '/status']);

/** Budgets above this are almost certainly a typo (`--budget 500` meant 5.00). */
const MAX_BUDGET_USD = 100;

export type SlackCommand =
  | {
      kind: 'run';
      type: OperationType;
      /** Named in the text; the caller falls back to the channel's or the default repository. */
      repo: string | undefined;
      baseBranch: string | undefined;
      budgetUsd: number | undefined;
      auto: boolean;
      /** `--priority critical`: starts before queued lower-priority work. */
      priority: OperationPriority | undefined;
      description: string;
    }
  | {
      kind: 'feature';
      repo: string | undefined;
      baseBranch: string | undefined;
      description: string;
    }
  | { kind: 'status'; opId: string | undefined }
  | { kind: 'cancel'; opId: string }
  | { kind: 'deploy'; opId: string }
  | { kind: 'usage'; command: string; problem: string };

/** The operation schema's limit. */
const MAX_DESCRIPTION = 20_000;
const OP_ID = /^[a-z0-9]{6,40}$/;

/** What to type, with an example, for the ephemeral answer to empty or malformed text. */
export function slackUsage(command: string): string {
  switch (command) {
    case '/pw-status':
    case '/status':
      return `Usage: \`${command} [operation id]\`\nExample: \`${command} lx2k9a3f01ab\``;
    case '/cancel':
      return 'Usage: `/cancel <operation id>`\nExample: `/cancel lx2k9a3f01ab`';
    case '/deploy':
      return 'Usage: `/deploy <operation id>` (a merged operation; needs the deploy role)\nExample: `/deploy lx2k9a3f01ab`';
    case '/feature':
      return [
        'Usage: `/feature [owner/repo] <what you would like> [--base <branch>]`',
        'Example: `/feature acme/api Rate-limit the public endpoints per API key`',
        'The request is analysed, then triaged on the dashboard; "Implement" turns it into an /implement operation.',
      ].join('\n');
    default:
      return [
        `Usage: \`${command} [owner/repo] <description> [--base <branch>] [--budget <usd>] [--priority low|medium|high|critical] [--auto]\``,
        `Example: \`${command} acme/api TypeError: Cannot read properties of undefined (reading 'id') in auth.ts:45 --base develop\``,
        'The repository may be left out when this channel has one configured.',
      ].join('\n');
  }
}

/**
 * Slack sends command text with `&`, `<` and `>` as entities; the model must see what the
 * user pasted (`Expected <div>`), so they are turned back (`&amp;` last, so `&amp;lt;` stays `&lt;`).
 */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Takes `--name value` / `--name` flags out of the text, keeping the rest (newlines included) as written. */
function takeFlag(
  text: string,
  name: string,
  withValue: boolean,
): { text: string; value: string | undefined; found: boolean } {
  const pattern = withValue
    ? new RegExp(`(^|\\s)--${name}(?:(?:=|\\s+)(\\S+))?(?=\\s|$)`)
    : new RegExp(`(^|\\s)--${name}(?=\\s|$)`);
  const m = pattern.exec(text);
  if (!m) return { text, value: undefined, found: false };
  const rest = text.slice(0, m.index) + m[1] + text.slice(m.index + m[0].length);
  return { text: rest, value: withValue ? m[2] : undefined, found: true };
}

/**
 * Parses a slash command's text: `[owner/repo] description --base <branch> --budget <usd> --auto`.
 * A first word shaped like `owner/name` is the repository; the caller checks that it exists.
 */
export function parseSlackCommand(command: string, rawText: string): SlackCommand {
  const text = unescapeSlack(rawText).replace(/\r\n/g, '\n').trim();
  const usage = (problem: string): SlackCommand => ({ kind: 'usage', command, problem });
  if (!STATUS_COMMANDS.has(command) && !(SLACK_COMMANDS as readonly string[]).includes(command))
    return usage(`unknown command ${command.slice(0, 40)}`);
  if (STATUS_COMMANDS.has(command)) {
    if (text === '') return { kind: 'status', opId: undefined };
    return OP_ID.test(text) ? { kind: 'status', opId: text } : usage(`"${text.slice(0, 60)}" is not an operation id`);
  }
  if (command === '/cancel') {
    if (text === '') return usage('name the operation to cancel');
    return OP_ID.test(text) ? { kind: 'cancel', opId: text } : usage(`"${text.slice(0, 60)}" is not an operation id`);
  }
  if (command === '/deploy') {
    if (text === '') return usage('name the operation to deploy');
    return OP_ID.test(text) ? { kind: 'deploy', opId: text } : usage(`"${text.slice(0, 60)}" is not an operation id`);
  }
  if (command === '/feature') {
    const base = takeFlag(text, 'base', true);
    if (base.found && !BranchName.safeParse(base.value).success) return usage('--base needs a branch name');
    if (takeFlag(base.text, 'base', true).found) return usage('--base was given twice');
    const { repo, description } = repoAndDescription(base.text);
    if (description === '') return usage('describe the feature you would like');
    if (description.length > MAX_DESCRIPTION)
      return usage(`the description is longer than ${MAX_DESCRIPTION} characters`);
    return { kind: 'feature', repo, baseBranch: base.value, description };
  }
  const type = SLACK_RUN_COMMANDS[command as keyof typeof SLACK_RUN_COMMANDS];

  let rest = text;
  const base = takeFlag(rest, 'base', true);
  rest = base.text;
  const budget = takeFlag(rest, 'budget', true);
  rest = budget.text;
  const auto = takeFlag(rest, 'auto', false);
  rest = auto.text;
  const priority = takeFlag(rest, 'priority', true);
  rest = priority.text;
  if (base.found && !BranchName.safeParse(base.value).success) return usage('--base needs a branch name');
  const parsedPriority = priority.found ? OperationPriority.safeParse(priority.value) : undefined;
  if (parsedPriority && !parsedPriority.success) return usage('--priority needs one of low, medium, high, critical');
  let budgetUsd: number | undefined;
  if (budget.found) {
    budgetUsd = Number(budget.value?.replace(/^\$/, ''));
    if (!budget.value || !Number.isFinite(budgetUsd) || budgetUsd <= 0 || budgetUsd > MAX_BUDGET_USD) {
      return usage(`--budget needs an amount in USD between 0 and ${MAX_BUDGET_USD}`);
    }
  }
  for (const name of ['base', 'budget', 'auto', 'priority']) {
    if (takeFlag(rest, name, name !== 'auto').found) return usage(`--${name} was given twice`);
  }

  const { repo, description } = repoAndDescription(rest);
  if (description === '') return usage('describe the problem or the change');
  if (description.length > MAX_DESCRIPTION)
    return usage(`the description is longer than ${MAX_DESCRIPTION} characters`);
  return {
    kind: 'run',
    type,
    repo,
    baseBranch: base.value,
    budgetUsd,
    auto: auto.found,
    priority: parsedPriority?.data,
    description,
  };
}

/** A first word shaped like `owner/name` is the repository (the caller checks it exists); the rest is the description. */
function repoAndDescription(text: string): { repo: string | undefined; description: string } {
  const rest = text.trim();
  const first = /^(\S+)(?:\s+|$)/.exec(rest);
  if (first && RepoSlug.safeParse(first[1]).success)
    return { repo: first[1], description: rest.slice(first[0].length).trim() };
  return { repo: undefined, description: rest };
}
