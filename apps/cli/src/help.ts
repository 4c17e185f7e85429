/**
 * Every command's usage text, and `helpFor`, which decides whether a command line asks for
 * it. Built on its own (dist/help.js, no dependencies): `pullwright <command> --help`
 * prints without loading the server, and starts nothing.
 */

export const REPO_HELP = `usage: pullwright repo add <path-or-git-url> [--name owner/name]
       pullwright repo list

add   imports an existing repository into the local forge: every branch and tag of a
      working copy, a bare repository or a git URL (file://, https://, ssh://, git@host:…),
      as <FORGE_DIR>/<owner>/<name>.git (FORGE_DIR defaults to <DATA_DIR>/forge, DATA_DIR
      to .pullwright). Only commits are imported: commit what you want the agent to see.
      The name defaults to the URL's last two segments, or local/<directory> for a path.
      A running \`pullwright start\` on the same DATA_DIR sees it at once.
list  the repositories in the local forge and their default branches.`;

export const EVAL_HELP = `usage: pullwright eval mine <owner/name> [--since <date>] [--limit N] [--branch <name>] [--out tasks.jsonl]
       pullwright eval run <tasks.jsonl> [--model <id>] [--attempts k] [--compare <report.json>] [--out report.json] [--json]
       pullwright eval run <tasks.jsonl> --replay <dir>

mine  turns the repository's merged changes into evaluation tasks (SWE-bench instance format,
      JSONL on stdout or --out): merged pull requests (GitHub forge) or merges and fix commits
      of the branch (local forge; default: the default branch), newest first, kept when they
      touch code and tests and their tests fail on the base and pass on the merge (run in the
      sandbox). --limit: at most N tasks (default 20); --since: merged on or after the date.
run   runs every task as an operation in evaluation mode (no push, no PR, a worktree of the
      base commit alone), --attempts times each (default 1: pass@k), grades each change with
      the task's hidden tests in the sandbox, and prints the report (--json: the JSON; --out:
      the JSON to a file). The run is kept in Redis for the dashboard and /metrics, and
      compared with the previous run of the same tasks file (any model), or with --compare.
      --model: the model every attempt uses (default LLM_MODEL). --replay <dir>: recorded
      conversations (<instance_id>[.<attempt>].replay.json) instead of a model, on this
      process's own Redis only. A private redis-server runs when REDIS_URL is unset.
More: docs/eval.md.`;

export const USAGE = `usage: pullwright <command>

  start     API + worker + dashboard on embedded defaults (private redis-server, local forge, replay demo)
  api       the API alone (needs REDIS_URL or REDIS_CLUSTER_NODES, API_TOKEN, VERIFICATION_KEY)
  worker    a code worker alone (needs REDIS_URL or REDIS_CLUSTER_NODES, VERIFICATION_KEY); health on WORKER_PORT
  demo      the start flow headless: run the sample /debug operation, approve it, print its timeline
  export    export <id>: an operation's record, timeline and transcript as redacted JSONL (REDIS_URL, else npm start's Redis)
  mcp       an MCP server on stdio for editor agents: create, follow, approve operations through the REST API
  repo      repo add <path-or-git-url> [--name owner/name]: import your repository into the local forge; repo list
  init-secrets <dir> [<api-dir>]  create the verification key, Redis password, worker token and API token files compose uses (kept if present)
  scan      secret scan of files or directories, or of a diff on stdin (exit 1 on findings; --json, --config <gitleaks.toml>)
  eval      eval mine <owner/name>: tasks from the repository's own merged fixes; eval run <tasks.jsonl>: the agent measured on them

pullwright <command> --help describes one command; pullwright --version prints the version.`;

/** `pullwright <command> --help`: printed to stdout; the command does not run. */
const COMMAND_HELP: Record<string, string> = {
  start: `usage: pullwright start

Runs the API, a code worker and the dashboard in one process on embedded defaults: a
private redis-server when neither REDIS_URL nor REDIS_CLUSTER_NODES is set (its REDIS_URL
is printed), the local forge when no GitHub App is configured, and the replay model with a
demo operation when no model key is set. Stop with Ctrl-C. Configuration:
docs/configuration.md.`,
  api: `usage: pullwright api

Runs the API alone (REST, Slack, GitHub webhooks, SSE, dashboard). Needs REDIS_URL (or
REDIS_CLUSTER_NODES), API_TOKEN and VERIFICATION_KEY; it runs no repository code and needs
no sandbox or model key. Scale it out behind a load balancer.`,
  worker: `usage: pullwright worker

Runs a code worker alone: takes operations from the queue on REDIS_URL (or
REDIS_CLUSTER_NODES) and runs them; needs VERIFICATION_KEY and a sandbox (SANDBOX), and
serves /healthz, /readyz and /metrics on WORKER_PORT. Start more processes (or containers)
on the same Redis to scale out.`,
  demo: `usage: pullwright demo

Runs the start flow headless: a private redis-server and local forge in a temporary
DATA_DIR (removed at the end), the sample /debug operation with the replay model, approval, merge, and the
operation's timeline on stdout. Exit 0 when the operation merged.`,
  export: `usage: pullwright export <operation-id>

Prints one operation's record, timeline and transcript as redacted JSONL on stdout (the same
as GET /v1/operations/<id>/audit). Reads REDIS_URL or REDIS_CLUSTER_NODES; without them, the
Redis of \`npm start\` on DATA_DIR (the one a running \`npm start\` printed, or its data).`,
  eval: EVAL_HELP,
  mcp: `usage: pullwright mcp

An MCP server on stdin/stdout for an editor's agent (Claude Code, Cursor, VS Code…): its
tools create an operation, read its status, diff, evidence and review ledger, and approve,
request changes, reject or cancel it. Each is a call to the REST API as PULLWRIGHT_USER,
authorized like any other request. Environment: PULLWRIGHT_URL (default
http://127.0.0.1:3000), PULLWRIGHT_TOKEN or PULLWRIGHT_TOKEN_FILE (the API token),
PULLWRIGHT_USER (default api; IDENTITIES gives it its role).`,
  repo: REPO_HELP,
  'init-secrets': `usage: pullwright init-secrets <dir> [<api-dir>]

Creates the files docker compose reads its secrets from: the verification key, the Redis
password and the worker token in <dir>, the API token in <api-dir> (default <dir>), a directory only the API
mounts. Files that exist are kept; a token an older layout kept in <dir> moves to <api-dir>.`,
};

const isHelpFlag = (a: string) => a === '-h' || a === '--help';

/** The text to print on stdout when `argv` asks for help, else undefined (`scan` answers its own). */
export function helpFor(argv: readonly string[]): string | undefined {
  const command = argv[0];
  if (command === undefined || command === 'help' || isHelpFlag(command)) return USAGE;
  const text = COMMAND_HELP[command];
  return text !== undefined && argv.slice(1).some(isHelpFlag) ? text : undefined;
}
