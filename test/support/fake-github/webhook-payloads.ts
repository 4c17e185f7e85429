import { createRequire } from 'node:module';

type JsonObject = Record<string, unknown>;

interface WebhookDefinition {
  name: string;
  examples: JsonObject[];
}

const require = createRequire(import.meta.url);
/** GitHub's own example deliveries (octokit/webhooks), so our router sees the real shapes. */
const DEFINITIONS = require('@octokit/webhooks-examples') as WebhookDefinition[];

/** A deep copy of GitHub's example payload for `event`/`action`. */
export function examplePayload(event: string, action: string): JsonObject {
  const def = DEFINITIONS.find((d) => d.name === event);
  const example = def?.examples.find((e) => e.action === action);
  if (!example) throw new Error(`no example payload for ${event}.${action}`);
  return structuredClone(example);
}

/** Objects merge key by key; anything else (arrays, scalars, null) replaces. */
export function deepMerge(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    const current = target[key];
    if (isObject(value) && isObject(current)) {
      deepMerge(current, value);
    } else {
      target[key] = value;
    }
  }
  return target;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface PayloadRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  webUrl: string;
  apiUrl: string;
}

interface PayloadPull {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  mergeCommitSha: string | null;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  author: string;
  updatedAt: string;
  mergedAt: string | null;
}

export function userJson(login: string, type: 'User' | 'Bot' = 'User'): JsonObject {
  return { login, type, id: Math.abs(hash(login)), html_url: `https://fake.invalid/${login}` };
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

export function repositoryJson(repo: PayloadRepo): JsonObject {
  return {
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    owner: userJson(repo.owner),
    default_branch: repo.defaultBranch,
    html_url: `${repo.webUrl}/${repo.owner}/${repo.name}`,
    url: `${repo.apiUrl}/repos/${repo.owner}/${repo.name}`,
    clone_url: `${repo.webUrl}/${repo.owner}/${repo.name}.git`,
  };
}

export function pullRequestJson(repo: PayloadRepo, pr: PayloadPull, mergedBy?: string): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  return {
    number: pr.number,
    title: pr.title,
    body: pr.body,
    state: pr.state,
    draft: pr.draft,
    merged: pr.merged,
    merge_commit_sha: pr.mergeCommitSha,
    merged_at: pr.mergedAt,
    updated_at: pr.updatedAt,
    merged_by: mergedBy ? userJson(mergedBy) : null,
    user: userJson(pr.author, pr.author.endsWith('[bot]') ? 'Bot' : 'User'),
    html_url: `${repo.webUrl}/${full}/pull/${pr.number}`,
    url: `${repo.apiUrl}/repos/${full}/pulls/${pr.number}`,
    head: { ref: pr.head.ref, sha: pr.head.sha, label: `${repo.owner}:${pr.head.ref}`, repo: repositoryJson(repo) },
    base: { ref: pr.base.ref, sha: pr.base.sha, label: `${repo.owner}:${pr.base.ref}`, repo: repositoryJson(repo) },
  };
}

interface PayloadIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  author: string;
  labels: string[];
  assignees: string[];
}

export function labelJson(name: string): JsonObject {
  return { id: Math.abs(hash(name)), name, color: 'ededed', default: false, description: null };
}

/** An issue as GitHub shows it in `issues` and `issue_comment` deliveries and `GET /issues/:n`. */
export function issueJson(repo: PayloadRepo, issue: PayloadIssue): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    user: userJson(issue.author, issue.author.endsWith('[bot]') ? 'Bot' : 'User'),
    labels: issue.labels.map(labelJson),
    assignee: issue.assignees[0]
      ? userJson(issue.assignees[0], issue.assignees[0].endsWith('[bot]') ? 'Bot' : 'User')
      : null,
    assignees: issue.assignees.map((a) => userJson(a, a.endsWith('[bot]') ? 'Bot' : 'User')),
    html_url: `${repo.webUrl}/${full}/issues/${issue.number}`,
    url: `${repo.apiUrl}/repos/${full}/issues/${issue.number}`,
    // Every change moves it, so relabelling later is not the same delivery body.
    updated_at: new Date().toISOString(),
    comments_url: `${repo.apiUrl}/repos/${full}/issues/${issue.number}/comments`,
  };
}

interface PayloadCheckRun {
  id: number;
  name: string;
  headSha: string;
  conclusion: string;
  title: string;
  summary: string;
  suiteId: number;
}

/** A completed check run of GitHub Actions (`check_run` deliveries and `GET …/check-runs`). */
export function checkRunJson(
  repo: PayloadRepo,
  run: PayloadCheckRun,
  headBranch: string | null,
  pulls: JsonObject[],
): JsonObject {
  const full = `${repo.owner}/${repo.name}`;
  return {
    id: run.id,
    name: run.name,
    head_sha: run.headSha,
    external_id: String(run.id),
    status: 'completed',
    conclusion: run.conclusion,
    started_at: new Date().toISOString(),
    completed_at: new Date().toISOString(),
    url: `${repo.apiUrl}/repos/${full}/check-runs/${run.id}`,
    html_url: `${repo.webUrl}/${full}/actions/runs/${run.suiteId}/job/${run.id}`,
    details_url: `${repo.webUrl}/${full}/actions/runs/${run.suiteId}/job/${run.id}`,
    output: {
      title: run.title,
      summary: run.summary,
      text: null,
      annotations_count: 0,
      annotations_url: `${repo.apiUrl}/repos/${full}/check-runs/${run.id}/annotations`,
    },
    check_suite: { id: run.suiteId, head_branch: headBranch, head_sha: run.headSha },
    app: { id: 15368, slug: 'github-actions', name: 'GitHub Actions' },
    pull_requests: pulls,
  };
}
