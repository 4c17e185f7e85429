import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { costOf, ReplayTranscript } from '@pullwright/agent';
import { Operation } from '@pullwright/core';
import { EvalReport, readTasks } from '@pullwright/eval';
import { startRedisServer } from '@pullwright/queue';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKitHistory, EVAL_FIXTURES } from './support/eval-fixture.ts';

/**
 * Issue 33 end to end, as a team runs it: the fixture's history imported with `repo add`,
 * tasks mined with `eval mine`, and `eval run` on recorded model conversations (no model),
 * each CLI call a real process on its own private Redis and sandbox.
 */

const BIN = path.resolve(import.meta.dirname, '../apps/cli/bin/pullwright.js');
const README = path.resolve(import.meta.dirname, '../README.md');
/** Each mining or run starts a redis-server and runs the suite in bubblewrap several times. */
const SLOW = 240_000;

/** Fields that differ between two runs of the same recordings: ids, clocks, wall time. */
function stable(report: EvalReport) {
  const { run: _run, startedAt: _s, finishedAt: _f, wallMs: _w, ...rest } = report;
  return {
    ...rest,
    ...(rest.comparison ? { comparison: { ...rest.comparison, against: '<earlier run>' } } : {}),
    results: rest.results.map((t) => ({
      ...t,
      attempts: t.attempts.map(({ opId: _o, wallMs: _wall, ...a }) => a),
    })),
  };
}

/** What the recordings billed: every turn's usage at the recorded model's list price. */
function recordedSpend(files: string[]): { usd: number; tokens: number } {
  let usd = 0;
  let tokens = 0;
  for (const file of files) {
    const r = ReplayTranscript.parse(JSON.parse(readFileSync(file, 'utf8')));
    for (const turn of r.turns) {
      const u = turn.usage!;
      usd += costOf(r.model, u).usd;
      tokens += u.inputTokens + u.outputTokens;
    }
  }
  return { usd, tokens };
}

describe('pullwright eval: the agent measured on a repository’s own history', () => {
  let home: string;
  let dataDir: string;
  let kit: string;
  let forgeRefs: string;
  /** Not spawnSync: a minute-long blocking call starves the test worker's own messages to vitest. */
  const cli = async (...args: string[]) => {
    const child = execFile(process.execPath, [BIN, ...args], {
      encoding: 'utf8',
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home, DATA_DIR: dataDir, CHECK_TIMEOUT_MS: '60000' },
      timeout: SLOW,
      maxBuffer: 64 * 1024 * 1024,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: string) => (stdout += c));
    child.stderr!.on('data', (c: string) => (stderr += c));
    const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    return { status, stdout, stderr };
  };
  const forgeRepo = () => path.join(dataDir, 'forge', 'acme', 'kit.git');
  const refsOf = (dir: string) => execFileSync('git', ['-C', dir, 'for-each-ref'], { encoding: 'utf8' });
  const sha = (rev: string) => execFileSync('git', ['-C', kit, 'rev-parse', rev], { encoding: 'utf8' }).trim();

  beforeAll(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'pw-eval-'));
    dataDir = path.join(home, 'data');
    kit = path.join(home, 'kit');
    buildKitHistory(kit);
    const added = await cli('repo', 'add', 'kit', '--name', 'acme/kit');
    expect(added.stderr).toBe('');
    forgeRefs = refsOf(forgeRepo());
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it(
    'eval mine yields exactly the fix merges whose tests went red → green, in the SWE-bench instance format',
    async () => {
      const mined = await cli('eval', 'mine', 'acme/kit', '--out', 'tasks.jsonl');
      expect(mined.status, mined.stderr).toBe(0);
      const fix = sha('HEAD~1');
      expect(mined.stderr).toBe(
        [
          '4 tasks from acme/kit (main) in tasks.jsonl',
          '  task     acme__kit-5: 1 red → green, 10 stay green',
          `  task     acme__kit-${fix.slice(0, 12)}: 1 red → green, 9 stay green`,
          '  task     acme__kit-3: 1 red → green, 8 stay green',
          '  task     acme__kit-1: 1 red → green, 6 stay green',
          '  skipped  4: the change touches no test',
          '  skipped  2: its tests already pass on the base',
          '',
        ].join('\n'),
      );
      const text = readFileSync(path.join(home, 'tasks.jsonl'), 'utf8');
      // As the published SWE-bench files write them: the test lists are JSON text.
      const raw = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(Object.keys(raw[0]!).sort()).toEqual(
        [
          'FAIL_TO_PASS',
          'PASS_TO_PASS',
          'base_commit',
          'created_at',
          'hints_text',
          'instance_id',
          'patch',
          'problem_statement',
          'repo',
          'test_patch',
        ].sort(),
      );
      expect(raw[3]!.FAIL_TO_PASS).toBe('["clamp raises a value below the range"]');

      const tasks = readTasks(text);
      expect(tasks.map((t) => [t.instance_id, t.base_commit, t.FAIL_TO_PASS])).toEqual([
        ['acme__kit-5', fix, ['countWords gives 0 for an empty text']],
        [`acme__kit-${fix.slice(0, 12)}`, sha('HEAD~2'), ['seconds reads hours']],
        ['acme__kit-3', sha('HEAD~3^1'), ['slug joins every word with a dash']],
        ['acme__kit-1', sha('HEAD~5^1'), ['clamp raises a value below the range']],
      ]);
      const clamp = tasks[3]!;
      expect(clamp.PASS_TO_PASS).toEqual([
        'clamp keeps a value inside the range',
        'clamp lowers a value above the range',
        'countWords counts words',
        'seconds reads minutes',
        'seconds reads seconds',
        'slug lowercases a word',
      ]);
      expect(clamp.problem_statement).toBe(
        'clamp ignores the lower bound\n\nclamp(-5, 0, 10) returns -5; a value below the range should come back as the lower bound.',
      );
      // The code change and the hidden test change, apart.
      expect(clamp.patch).toContain('+++ b/src/clamp.js');
      expect(clamp.patch).not.toContain('test/');
      expect(clamp.test_patch).toContain('+++ b/test/clamp.test.js');
      expect(clamp.test_patch).not.toContain('src/clamp.js');
      // Untrusted text: what GitHub would not show is not in the problem statement.
      expect(tasks[2]!.problem_statement).toBe(
        "slug replaces only the first space\n\nslug('Ship it to everyone') gives 'ship-it to everyone': every space should become a dash.",
      );
      // A direct fix commit: its message is the problem.
      expect(tasks[1]!.problem_statement).toBe(
        "fix: seconds() rejects hours\n\nseconds('2h') throws 'not a duration: 2h'; hours are a duration too.",
      );
    },
    SLOW,
  );

  it(
    'recordings that solve some tasks and not others give the exact report; its spend is the recordings’ spend',
    async () => {
      const recordings = path.join(EVAL_FIXTURES, 'solves-some');
      const ran = await cli('eval', 'run', 'tasks.jsonl', '--replay', recordings, '--out', 'run1.json');
      expect(ran.status, ran.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(readFileSync(path.join(home, 'run1.json'), 'utf8')));
      const fix = `acme__kit-${sha('HEAD~1').slice(0, 12)}`;
      const attempt = (a: object) => ({ attempt: 1, repairs: 0, ...a });
      expect(stable(report)).toEqual({
        suite: 'tasks',
        model: 'replay:solves-some',
        attemptsPerTask: 1,
        tasks: 4,
        solved: 1,
        solveRate: 0.25,
        interval: { low: 0.0456, high: 0.6994 },
        passAt1: 0.25,
        costUsd: { total: 5.25, perTask: 1.3125, perSolve: 5.25 },
        tokens: { total: 2_613_000, perTask: 653_250, perSolve: 2_613_000 },
        turns: { total: 11, perTask: 2.8 },
        repairs: { total: 0, perTask: 0 },
        failures: { no_change: 1, checks_red: 0, hidden_tests_red: 1, budget: 1, error: 0 },
        results: [
          {
            instance: 'acme__kit-5',
            solved: false,
            reason: 'budget',
            detail: 'budget exhausted: token budget used (2601000 of 2000000 tokens)',
            chosenAttempt: 1,
            attempts: [
              attempt({
                solved: false,
                reason: 'budget',
                detail: 'budget exhausted: token budget used (2601000 of 2000000 tokens)',
                costUsd: 5.21,
                tokens: 2_601_000,
                turns: 1,
              }),
            ],
          },
          {
            instance: fix,
            solved: false,
            reason: 'no_change',
            detail: 'no changes: the model made no changes',
            chosenAttempt: 1,
            attempts: [
              attempt({
                solved: false,
                reason: 'no_change',
                detail: 'no changes: the model made no changes',
                costUsd: 0.008,
                tokens: 2400,
                turns: 2,
              }),
            ],
          },
          {
            instance: 'acme__kit-3',
            solved: false,
            reason: 'hidden_tests_red',
            detail: 'not passing: slug joins every word with a dash',
            chosenAttempt: 1,
            attempts: [
              attempt({
                solved: false,
                reason: 'hidden_tests_red',
                detail: 'not passing: slug joins every word with a dash',
                costUsd: 0.016,
                tokens: 4800,
                turns: 4,
              }),
            ],
          },
          {
            instance: 'acme__kit-1',
            solved: true,
            reason: 'solved',
            chosenAttempt: 1,
            attempts: [attempt({ solved: true, reason: 'solved', costUsd: 0.016, tokens: 4800, turns: 4 })],
          },
        ],
      });
      // The report's money and tokens are exactly what the recorded calls billed.
      const files = readdirSync(recordings).map((f) => path.join(recordings, f));
      const spend = recordedSpend(files);
      expect(report.costUsd.total).toBe(Math.round(spend.usd * 1e6) / 1e6);
      expect(report.costUsd.perSolve).toBe(Math.round((spend.usd / report.solved) * 1e6) / 1e6);
      expect(report.tokens.total).toBe(spend.tokens);
      expect(report.wallMs.total).toBe(report.results.reduce((n, t) => n + t.attempts[0]!.wallMs, 0));
      // People read the same figures on the terminal: README's sample is this run's report.
      const sample = /<!-- eval-sample -->\n```text\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'))![1];
      const normal = (t: string) =>
        t.replace(/^eval \S+:/m, 'eval <run>:').replace(/^( {2}per task {4})\d+\.\d s,/m, '$1<time> s,');
      expect(normal(ran.stdout)).toBe(normal(sample!));
    },
    SLOW,
  );

  it(
    '--attempts 2 is pass@2 chosen by executed checks, and the report says which tasks flipped since the earlier run',
    async () => {
      const tasks = readFileSync(path.join(home, 'tasks.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => /"instance_id":"acme__kit-[13]"/.test(l));
      // A tasks file of the same name: compared with the earlier run of it, with no --compare.
      mkdirSync(path.join(home, 'two'), { recursive: true });
      writeFileSync(path.join(home, 'two', 'tasks.jsonl'), `${tasks.join('\n')}\n`);
      const ran = await cli(
        'eval',
        'run',
        'two/tasks.jsonl',
        '--attempts',
        '2',
        '--replay',
        path.join(EVAL_FIXTURES, 'two-attempts'),
        '--json',
      );
      expect(ran.status, ran.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(ran.stdout));
      const s = stable(report);
      expect({ ...s, results: undefined }).toEqual({
        suite: 'tasks',
        model: 'replay:two-attempts',
        attemptsPerTask: 2,
        tasks: 2,
        solved: 2,
        solveRate: 1,
        interval: { low: 0.3424, high: 1 },
        passAt1: 0.5,
        costUsd: { total: 0.06, perTask: 0.03, perSolve: 0.03 },
        tokens: { total: 18_000, perTask: 9000, perSolve: 9000 },
        turns: { total: 15, perTask: 7.5 },
        repairs: { total: 2, perTask: 1 },
        failures: { no_change: 0, checks_red: 0, hidden_tests_red: 0, budget: 0, error: 0 },
        results: undefined,
        comparison: {
          against: '<earlier run>',
          modelBefore: 'replay:solves-some',
          solveRateBefore: 0.5,
          solveRateNow: 1,
          common: 2,
          nowSolved: ['acme__kit-3'],
          nowUnsolved: [],
        },
      });
      // clamp: the first attempt broke the visible tests and its fixer gave up; the second solved it.
      expect(s.results.map((t) => [t.instance, t.chosenAttempt, t.attempts.map((a) => [a.reason, a.repairs])])).toEqual(
        [
          [
            'acme__kit-3',
            1,
            [
              ['solved', 0],
              ['no_change', 0],
            ],
          ],
          [
            'acme__kit-1',
            2,
            [
              ['checks_red', 2],
              ['solved', 0],
            ],
          ],
        ],
      );
      expect(report.comparison?.against).toBe(JSON.parse(readFileSync(path.join(home, 'run1.json'), 'utf8')).run);
    },
    SLOW,
  );

  it(
    'a model that writes nothing: every task unsolved with reason no_change',
    async () => {
      const silent = path.join(home, 'silent');
      mkdirSync(silent);
      for (const t of readTasks(readFileSync(path.join(home, 'tasks.jsonl'), 'utf8')))
        cpSync(
          path.join(EVAL_FIXTURES, 'writes-nothing.replay.json'),
          path.join(silent, `${t.instance_id}.replay.json`),
        );
      const ran = await cli('eval', 'run', 'tasks.jsonl', '--replay', silent, '--compare', 'run1.json', '--json');
      expect(ran.status, ran.stderr).toBe(0);
      const report = EvalReport.parse(JSON.parse(ran.stdout));
      expect(report.solved).toBe(0);
      expect(report.failures).toEqual({ no_change: 4, checks_red: 0, hidden_tests_red: 0, budget: 0, error: 0 });
      expect(report.results.map((r) => r.reason)).toEqual(['no_change', 'no_change', 'no_change', 'no_change']);
      expect(report.costUsd.perSolve).toBeNull();
      // Compared with the run named, not the newest stored one.
      expect(report.comparison).toMatchObject({ common: 4, nowSolved: [], nowUnsolved: ['acme__kit-1'] });
      expect(report.comparison?.against).toBe(JSON.parse(readFileSync(path.join(home, 'run1.json'), 'utf8')).run);
    },
    SLOW,
  );

  it('nothing reached the forge: no push, no branch, no pull request; every attempt ended evaluated or failed', async () => {
    expect(refsOf(forgeRepo())).toBe(forgeRefs);
    const redis = await startRedisServer({ dataDir: path.join(dataDir, 'redis') });
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      await client.connect();
      expect(await client.keys('pw:forge:*')).toEqual([]);
      const ids = await client.zrange('pw:ops', 0, -1);
      expect(ids.length).toBe(4 + 4 + 4);
      for (const id of ids) {
        const op = Operation.parse(JSON.parse((await client.get(`pw:op:{${id}}`))!));
        expect(op.eval?.run).toBeTruthy();
        expect(['evaluated', 'failed']).toContain(op.status);
        expect(op.pullRequest).toBeUndefined();
      }
      // The three runs are kept for the dashboard and /metrics.
      expect(await client.zcard('pw:eval:runs')).toBe(3);
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});
