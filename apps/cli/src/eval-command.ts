import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startWorker } from '@pullwright/code-worker';
import { type Config, createLogger, loadConfig, RepoSlug } from '@pullwright/core';
import {
  EvalReport,
  EvalRunner,
  EvalRunStore,
  formatReport,
  readTasks,
  replayRecordings,
  TaskMiner,
  taskLine,
} from '@pullwright/eval';
import { createRuntime, type Runtime } from '@pullwright/pipeline';
import { Redactor } from '@pullwright/security';
import { embeddedEnv } from './embedded-defaults.ts';
import { type EmbeddedRedis, embeddedRedis } from './embedded-redis.ts';
import { EVAL_HELP } from './help.ts';

interface Io {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

function usage(io: Io, reason: string): number {
  io.stderr.write(`pullwright eval: ${reason}\n${EVAL_HELP}\n`);
  return 2;
}

/** `pullwright eval mine|run`: see EVAL_HELP and docs/eval.md. */
export async function evalCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(rest);
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  if (sub === 'mine') return mine(parsed, io);
  if (sub === 'run') return run(parsed, io);
  return usage(io, sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`);
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      since: { type: 'string' },
      limit: { type: 'string' },
      branch: { type: 'string' },
      model: { type: 'string' },
      attempts: { type: 'string' },
      replay: { type: 'string' },
      compare: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1 (got ${value})`);
  return n;
}

/**
 * The process the subcommands run in: the service's configuration (REDIS_URL, forge, sandbox,
 * model), a private redis-server when REDIS_URL is unset, logs at warn unless LOG_LEVEL says.
 */
async function boot(
  env: NodeJS.ProcessEnv,
): Promise<{ runtime: Runtime; config: Config; replayDemo: boolean; redis: EmbeddedRedis | undefined }> {
  const embedded = embeddedEnv({ ...env, LOG_LEVEL: env.LOG_LEVEL || 'warn' });
  const redis = embedded.needsRedis ? await embeddedRedis(embedded.env.DATA_DIR!) : undefined;
  try {
    const config = loadConfig(redis ? { ...embedded.env, REDIS_URL: redis.url } : embedded.env, 'all');
    const redactor = new Redactor({ secrets: config.secrets });
    const logger = createLogger({ level: config.logLevel, scrubber: redactor, destination: process.stderr });
    return { runtime: await createRuntime(config, logger, redactor), config, replayDemo: embedded.replayDemo, redis };
  } catch (err) {
    await redis?.stop();
    throw err;
  }
}

async function mine(parsed: ReturnType<typeof parseOptions>, io: Io): Promise<number> {
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usage(io, 'mine takes one repository (owner/name)');
  const repo = RepoSlug.safeParse(positionals[0]);
  if (!repo.success) return usage(io, `${positionals[0]} is not owner/name`);
  let limit: number;
  let since: Date | undefined;
  try {
    limit = positiveInt(values.limit, '--limit', 20);
    since = values.since === undefined ? undefined : new Date(values.since);
    if (since && Number.isNaN(since.getTime())) throw new Error(`--since must be a date (got ${values.since})`);
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  const { runtime, redis } = await boot(io.env);
  try {
    if (!(await runtime.forge.repositoryExists(repo.data))) {
      io.stderr.write(
        `pullwright eval mine: ${repo.data} is not on the forge (add it with: pullwright repo add <path>)\n`,
      );
      return 1;
    }
    const result = await new TaskMiner(runtime).mine(repo.data, {
      limit,
      ...(since ? { since } : {}),
      ...(values.branch ? { branch: values.branch } : {}),
    });
    const jsonl = result.tasks.map((t) => `${taskLine(t)}\n`).join('');
    if (values.out) writeFileSync(values.out, jsonl);
    else io.stdout.write(jsonl);
    io.stderr.write(
      `${result.tasks.length} task${result.tasks.length === 1 ? '' : 's'} from ${result.repo} (${result.branch})${values.out ? ` in ${values.out}` : ''}\n`,
    );
    for (const t of result.tasks)
      io.stderr.write(
        `  task     ${t.instance_id}: ${t.FAIL_TO_PASS.length} red → green, ${t.PASS_TO_PASS.length} stay green\n`,
      );
    for (const s of result.skipped) io.stderr.write(`  skipped  ${s.id}: ${s.reason}\n`);
    return 0;
  } finally {
    await runtime.close();
    await redis?.stop();
  }
}

async function run(parsed: ReturnType<typeof parseOptions>, io: Io): Promise<number> {
  const { values, positionals } = parsed;
  if (positionals.length !== 1) return usage(io, 'run takes one tasks file (JSONL, SWE-bench instance format)');
  const file = positionals[0]!;
  let attempts: number;
  try {
    attempts = positiveInt(values.attempts, '--attempts', 1);
  } catch (err) {
    return usage(io, (err as Error).message);
  }
  if (values.replay && (io.env.REDIS_URL || io.env.REDIS_CLUSTER_NODES))
    return usage(
      io,
      '--replay answers the attempts from recordings in this process only: run it on its own Redis (unset REDIS_URL), where no other worker takes them',
    );
  const tasks = readTasks(readFileSync(file, 'utf8'), path.basename(file));
  const earlier = values.compare ? EvalReport.parse(JSON.parse(readFileSync(values.compare, 'utf8'))) : undefined;
  const env = {
    ...io.env,
    ...(values.model ? { LLM_MODEL: values.model } : {}),
    ...(values.replay ? { LLM_PROVIDER: 'replay' } : {}),
  };
  const { runtime, config, replayDemo, redis } = await boot(env);
  try {
    if (values.replay) runtime.createProvider = replayRecordings(path.resolve(values.replay));
    else if (replayDemo) {
      io.stderr.write(
        'pullwright eval run: no model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (and --model), or --replay <dir> of recordings\n',
      );
      return 1;
    }
    // A model named here or in LLM_MODEL is pinned on every attempt: whichever worker takes one answers with it.
    const named = values.replay ? undefined : (values.model ?? config.llm.model);
    const model = values.replay
      ? `replay:${path.basename(path.resolve(values.replay))}`
      : (named ?? `${config.llm.provider} (default model)`);
    const store = new EvalRunStore(runtime.redis, runtime.keys);
    const suite = path.basename(file).replace(/\.jsonl?$/, '');
    const compareWith = earlier ?? (await store.latest(suite));
    const worker = await startWorker(runtime);
    let report: EvalReport;
    try {
      report = await new EvalRunner(runtime).run(tasks, {
        suite,
        model,
        ...(named ? { pinnedModel: named } : {}),
        attempts,
        ...(compareWith ? { earlier: compareWith } : {}),
        onProgress: (line) => io.stderr.write(`  ${line}\n`),
      });
    } finally {
      await worker.close();
    }
    await store.put(report);
    if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
    io.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    return 0;
  } finally {
    await runtime.close();
    await redis?.stop();
  }
}
