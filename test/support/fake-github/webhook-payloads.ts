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
    merged_by: mergedBy ? userJson(mergedBy) : null,
    user: userJson(pr.author, pr.author.endsWith('[bot]') ? 'Bot' : 'User'),
    html_url: `${repo.webUrl}/${full}/pull/${pr.number}`,
    url: `${repo.apiUrl}/repos/${full}/pulls/${pr.number}`,
    head: { ref: pr.head.ref, sha: pr.head.sha, label: `${repo.owner}:${pr.head.ref}`, repo: repositoryJson(repo) },
    base: { ref: pr.base.ref, sha: pr.base.sha, label: `${repo.owner}:${pr.base.ref}`, repo: repositoryJson(repo) },
  };
}
