import { z } from 'zod';
import { envSection } from './env-section.ts';
import { positiveInt } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const limitSettings = envSection(
  'Limits per operation',
  {
    MAX_TURNS: envVariable(positiveInt, {
      doc: 'Model calls per operation (all roles) before the loop stops with a budget reason.',
      default: '40',
      readBy: READ_BY.every,
    }),
    MAX_TOKENS: envVariable(positiveInt, {
      doc: 'Tokens per operation (input + output + cache): about $5 of a mid-size model.',
      default: '2000000',
      readBy: READ_BY.every,
    }),
    MAX_WALL_MS: envVariable(positiveInt, {
      doc: 'Wall time of the agent loop per operation: 30 min.',
      default: '1800000',
      readBy: READ_BY.every,
    }),
    MAX_COST_USD: envVariable(z.coerce.number().positive(), {
      doc: 'Model cost per operation in USD, from the price table (and LLM_PRICES). The API caps a request’s own budget at these four.',
      default: '5',
      readBy: READ_BY.every,
    }),
    MAX_REPAIRS: envVariable(z.coerce.number().int().min(0).max(10), {
      doc: 'Repair rounds after the first attempt (one attempt and three repairs).',
      default: '3',
      readBy: READ_BY.worker,
    }),
    REPO_MAP_TOKENS: envVariable(positiveInt, {
      doc: 'Size of the repository map the model gets instead of whole files.',
      default: '2000',
      readBy: READ_BY.worker,
    }),
    FILE_OPS_PER_MINUTE: envVariable(positiveInt, {
      doc: 'File tool calls (read, list, search, edit, write, delete) one job may make per minute; over it the model is told, and the operation goes on.',
      default: '100',
      readBy: READ_BY.worker,
    }),
    CHECK_TIMEOUT_MS: envVariable(positiveInt, {
      doc: "The ceiling of every check's timeout (10 min covers most CI suites): install and `test` get 180 s and other checks 60 s unless `.pullwright.yml` gives a check its own `timeout_ms`.",
      default: '600000',
      readBy: READ_BY.worker,
    }),
    PLAN_CONFIRMATION_TIMEOUT_MS: envVariable(positiveInt, {
      doc: 'How long a plan that asks for confirmation (Slack `/implement` without `--auto`) waits for Start / Modify before the operation ends cancelled; the worker slot stays held meanwhile.',
      default: '3600000',
      readBy: READ_BY.worker,
    }),
    FORGE_RETRY_MS: envVariable(positiveInt, {
      doc: 'How long publishing keeps trying a forge that does not answer or answers 5xx (backoff 1 s, 2 s, 4 s … 30 s), within the operation’s time budget, before the operation fails naming the forge and its answer: a forge restart or a blip during the push no longer fails it.',
      default: '120000',
      readBy: READ_BY.worker,
    }),
  },
  (env) => ({
    budget: { turns: env.MAX_TURNS, tokens: env.MAX_TOKENS, wallMs: env.MAX_WALL_MS, costUsd: env.MAX_COST_USD },
    maxRepairs: env.MAX_REPAIRS,
    repoMapTokens: env.REPO_MAP_TOKENS,
    fileOpsPerMinute: env.FILE_OPS_PER_MINUTE,
    checkTimeoutMs: env.CHECK_TIMEOUT_MS,
    planConfirmationTimeoutMs: env.PLAN_CONFIRMATION_TIMEOUT_MS,
    forgeRetryMs: env.FORGE_RETRY_MS,
  }),
);
