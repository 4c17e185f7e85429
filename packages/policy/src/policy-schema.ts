import { ACTIONS, type Action, BranchName, NetworkAllowText, OperationType, Role } from '@pullwright/core';
import picomatch from 'picomatch';
import { z } from 'zod';
import { CronSchedule } from './cron-schedule.ts';

const Glob = z
  .string()
  .min(1)
  .max(300)
  .refine((g) => !g.startsWith('/') && !g.split('/').includes('..'), 'must be a path inside the repository')
  .refine((g) => {
    try {
      picomatch.makeRe(g);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid glob');

const GroupName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a lower-case group name');
const count = z.number().int().min(1, 'must be at least 1').max(10, 'must be at most 10');

export const PathRule = z.strictObject({
  /** Shown in what-is-missing messages; default: the first pattern. */
  name: z.string().min(1).max(100).optional(),
  paths: z.array(Glob).min(1, 'needs at least one pattern'),
  /** Distinct approvers needed when any changed file matches. */
  required: count.optional(),
  /** Only approvers holding at least one of these roles count. */
  roles: z.array(Role).min(1).optional(),
  /** Only approvers in at least one of these groups count. */
  groups: z.array(GroupName).min(1).optional(),
  /** The requester's own approval never counts for this rule. */
  not_requester: z.boolean().optional(),
});
export type PathRule = z.infer<typeof PathRule>;

/** `url` is written in the file; `url_env` names a service variable holding a secret URL (Railway hooks). */
const HookUrl = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    url_env: z
      .string()
      .regex(/^DEPLOY_[A-Z0-9_]{1,60}$/, 'must name a DEPLOY_* environment variable')
      .optional(),
  })
  .refine((h) => (h.url === undefined) !== (h.url_env === undefined), 'needs exactly one of url or url_env');

const DeployTarget = z.discriminatedUnion('kind', [
  /** POST of a signed JSON body (`X-Pullwright-Signature-256`). */
  z.strictObject({ kind: z.literal('webhook'), url: z.url().optional(), url_env: z.string().optional() }),
  /** A Railway deploy hook: POST to the hook URL, which is itself the credential. */
  z.strictObject({ kind: z.literal('railway'), url: z.url().optional(), url_env: z.string().optional() }),
  /** A GitHub deployment on the merge commit, through the forge. */
  z.strictObject({ kind: z.literal('github_deployment'), environment: z.string().min(1).max(100).optional() }),
]);

export const DeploySettings = z.strictObject({
  /** Deploy as soon as the operation is merged; otherwise only on `/deploy`. */
  on_merge: z.boolean().optional(),
  target: DeployTarget.superRefine((t, ctx) => {
    if (t.kind === 'github_deployment') return;
    const parsed = HookUrl.safeParse({ url: t.url, url_env: t.url_env });
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
  }),
  /** Called when the deploy fails or times out. */
  rollback: HookUrl.optional(),
  /** Where to poll for the deploy's state (`{id}` is replaced by the id the target returned). */
  status: z
    .strictObject({
      url: z.string().min(1).max(2000).optional(),
      poll_ms: z.number().int().min(100).max(60_000).optional(),
      timeout_ms: z.number().int().min(1000).max(3_600_000).optional(),
    })
    .optional(),
});
export type DeploySettings = z.infer<typeof DeploySettings>;

const GitHubLogin = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/, 'must be a GitHub login');

/** What a repository may say about work that starts on GitHub: it can only turn triggers off or lower limits. */
const RepoTriggers = z.strictObject({
  /** Issues labelled, assigned to the app or commented `/pullwright …` start operations. */
  issues: z.strictObject({ enabled: z.boolean().optional() }).optional(),
  /** Red CI on an operation's PR head starts a revision with the failing checks as feedback. */
  ci: z
    .strictObject({
      enabled: z.boolean().optional(),
      /** Automatic revisions in a row before a person must look; 0 turns them off. */
      max_attempts: z.number().int().min(0).max(10).optional(),
    })
    .optional(),
});

/** The service's triggers: the same switches, plus what only the operator sets. */
const ServiceTriggers = z.strictObject({
  issues: z
    .strictObject({
      enabled: z.boolean().optional(),
      /** The label that starts an operation. Default `pullwright`. */
      label: z.string().min(1).max(50).optional(),
    })
    .optional(),
  ci: z
    .strictObject({
      enabled: z.boolean().optional(),
      max_attempts: z.number().int().min(0).max(10).optional(),
      /** How long after the first red check the revision starts, so the other checks finish. */
      settle_ms: z.number().int().min(0).max(3_600_000).optional(),
    })
    .optional(),
  /** Bot accounts whose labels, assignments and comments may start work; every other bot is refused. */
  allow_bots: z.array(GitHubLogin).max(100).optional(),
});

/** The policy keys, as either file writes them (nothing defaulted: unset means "as the service says"). */
const policyShape = {
  /** Minimum role per action; a repository can only raise them. */
  permissions: z
    .strictObject(
      Object.fromEntries(ACTIONS.map((a) => [a, Role.optional()])) as Record<Action, z.ZodOptional<typeof Role>>,
    )
    .optional(),
  approvals: z
    .strictObject({
      required: count.optional(),
      high_risk: z.strictObject({ required: count.optional(), not_requester: z.boolean().optional() }).optional(),
    })
    .optional(),
  path_rules: z.array(PathRule).max(100).optional(),
  /** Paths the agent may never write, on top of the built-in protected files. */
  protected_paths: z.array(Glob).max(200).optional(),
  auto_approve: z
    .strictObject({
      enabled: z.boolean().optional(),
      max_lines: z.number().int().min(0).max(10_000).optional(),
      kinds: z
        .array(z.enum(['tests', 'docs']))
        .min(1)
        .optional(),
    })
    .optional(),
  budgets: z
    .strictObject({
      turns: z.number().int().positive().max(1000).optional(),
      tokens: z.number().int().positive().optional(),
      wall_ms: z.number().int().positive().optional(),
      cost_usd: z.number().positive().max(1000).optional(),
      /**
       * Issue 32: at this percentage of the cost budget the operation pauses and asks the
       * requester and approvers to extend it or stop. Default 80; 100 never pauses (the
       * operation stops at its budget, keeping the work).
       */
      pause_at_percent: z.number().int().min(1).max(100).optional(),
      /** How long a paused operation waits for extend / stop before it stops. Default 1 h, as a plan waits. */
      decision_timeout_ms: z.number().int().positive().max(86_400_000).optional(),
      /** The estimate shown when the repository has no finished operation of the type yet (USD). Default none. */
      estimate_usd: z.number().nonnegative().max(1000).optional(),
      /** What one repository's operations may spend per UTC day, all together (USD). Default no cap. */
      repository_daily_usd: z.number().positive().max(1_000_000).optional(),
      /** What all operations may spend per UTC day, all repositories together (USD). Default no cap. */
      daily_usd: z.number().positive().max(1_000_000).optional(),
    })
    .optional(),
  branches: z
    .strictObject({
      prefix: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*\/$/, 'must be lower-case path segments ending in /')
        .max(60)
        .optional(),
    })
    .optional(),
  deploy: DeploySettings.optional(),
  verification: z
    .strictObject({
      /**
       * Seed 004: after each plan step, the checks the step declares (`tests`) run, and a red
       * step goes to the fixer before the next one starts. Default false: the checks run once
       * the whole plan is done (fewer check runs; a slow suite makes per-step costly).
       */
      per_step: z.boolean().optional(),
    })
    .optional(),
};

const CHECK_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** The roles of a solve that may be offered MCP tools. */
export const MCP_ROLES = ['planner', 'coder', 'fixer', 'reviewer'] as const;
export type McpRole = (typeof MCP_ROLES)[number];

/** A tool name a server offers, or `*` for all of them. */
const McpToolName = z.string().regex(/^(\*|[A-Za-z0-9_./-]{1,64})$/, 'must be a tool name or *');

/**
 * One MCP server: a stdio `command` run in the sandbox (the worktree read-only, no network),
 * or a Streamable HTTP `url` with an optional bearer credential read from the worker's
 * environment variable `credential_env` (never written in a file). `roles` says which tools
 * each role may call: nothing is offered to a role it does not name.
 */
export const McpServerEntry = z
  .strictObject({
    command: z.string().min(1).max(500).optional(),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    credential_env: z
      .string()
      .regex(/^MCP_[A-Z0-9_]{1,60}$/, 'must name an MCP_* environment variable')
      .optional(),
    roles: z
      .strictObject(
        Object.fromEntries(MCP_ROLES.map((r) => [r, z.array(McpToolName).min(1).max(100).optional()])) as Record<
          McpRole,
          z.ZodOptional<z.ZodArray<typeof McpToolName>>
        >,
      )
      .refine((r) => Object.values(r).some(Boolean), 'must name the tools of at least one role'),
    /** The operation fails when the server cannot start; default false: it goes on without it and says so. */
    required: z.boolean().optional(),
    /** One tool call's deadline. Default 60 s. */
    timeout_ms: z.number().int().min(1000).max(600_000).optional(),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), 'needs exactly one of command or url')
  .refine((s) => s.credential_env === undefined || s.url !== undefined, 'credential_env goes with url only');
export type McpServerEntry = z.infer<typeof McpServerEntry>;

/** `mcp.servers`: name → server. The name prefixes its tools for the model: `mcp__<name>__<tool>`. */
const McpSettings = z.strictObject({
  servers: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'server names are lower-case words'),
    McpServerEntry,
  ),
});
export type McpSettings = z.infer<typeof McpSettings>;

/** A command as `.pullwright.yml` may write it: the line, or the line with its own timeout. */
const CommandEntry = z.union([
  z.string().min(1).max(500),
  z.strictObject({
    command: z.string().min(1).max(500),
    /** Overrides the default (install and test 180 s, others 60 s); never above CHECK_TIMEOUT_MS. */
    timeout_ms: z.number().int().min(1000).max(3_600_000).optional(),
  }),
]);
export type CommandEntry = z.infer<typeof CommandEntry>;

/**
 * One `schedules:` entry: an ordinary operation started by BullMQ's job scheduler on `cron`
 * (UTC; five fields, or six with seconds first), against `branch` (default `main`), under
 * the same budget and approval rules as any request.
 */
const ScheduleEntry = z.strictObject({
  cron: z
    .string()
    .min(9)
    .max(100)
    .superRefine((c, ctx) => {
      const problem = CronSchedule.problem(c);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  type: OperationType,
  description: z.string().trim().min(1, 'must not be empty').max(4000),
  branch: BranchName.optional(),
});

/** Schedule names: the dashboard and the scheduler's id use them. */
export const ScheduleName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'schedule names are lower-case words');

/**
 * `.pullwright.yml` in the target repository: the one schema of the file. How to install,
 * check and lint is read by the pipeline (`detectRepoCommands`), the policy keys by
 * `mergePolicies`; both get it from one `parseRepoPolicy` of the base commit's file.
 */
export const RepoPolicyFile = z.strictObject({
  /** The repository's checks by name, run in the sandbox; default: what package.json implies. */
  checks: z.record(z.string().regex(CHECK_NAME, 'check names are lower-case words'), CommandEntry).optional(),
  /** Dependency install, the one command allowed network (through the egress proxy, see `network`). */
  install: CommandEntry.optional(),
  network: z
    .strictObject({
      /**
       * Hosts the install step may reach (`host[:port]`, `*.` for subdomains), on public
       * addresses only; replaces the default, the package registries of the ecosystems the
       * repository uses (see defaultRegistries). The deployment's NETWORK_ALLOW adds to it.
       */
      allow: z.array(NetworkAllowText).max(100),
    })
    .optional(),
  /** Lints one file after each edit; `{file}` is replaced by the path. */
  lint_file: z.string().min(1).max(500).includes('{file}', { message: 'must contain {file}' }).optional(),
  ...policyShape,
  triggers: RepoTriggers.optional(),
  /**
   * Instruction files for the model beyond the ones it always reads (AGENTS.md, CLAUDE.md,
   * .github/copilot-instructions.md, .cursor/rules): skill files documenting the codebase.
   * Paths or globs inside the repository, read from the base commit.
   */
  instructions: z.array(Glob).max(50).optional(),
  /** The repository's MCP servers, on top of the service's. */
  mcp: McpSettings.optional(),
  /** Work started on a clock: name → entry (see docs/schedules-and-events.md). */
  schedules: z.record(ScheduleName, ScheduleEntry).optional(),
});
export type RepoPolicyFile = z.infer<typeof RepoPolicyFile>;

/** The service's policy file (`POLICY_FILE`): the same keys plus what repositories are allowed. */
export const ServicePolicyFile = z.strictObject({
  ...policyShape,
  triggers: ServiceTriggers.optional(),
  /** MCP servers every repository's operations may use. */
  mcp: McpSettings.optional(),
  allow: z
    .strictObject({
      /** Whether a repository file may configure a deploy at all. Default true. */
      repo_deploy: z.boolean().optional(),
      /** Hosts a repository file's deploy URLs may name. Default none: only DEPLOY_* variables. */
      deploy_hosts: z.array(z.string().min(1).max(253)).optional(),
      /** Hosts a repository file's MCP server URLs may name. Default none: only stdio servers. */
      mcp_hosts: z.array(z.string().min(1).max(253)).optional(),
    })
    .optional(),
});
export type ServicePolicyFile = z.infer<typeof ServicePolicyFile>;
